"""git's lock files, and clearing the ones a killed git left behind.

A git killed while it writes leaves `.git/index.lock`, `HEAD.lock` or a ref's `.lock`, and every
later commit fails until someone deletes it. `settle_git_locks`, under the vault lock before a
commit, removes them when no git process runs in any of the repository's work trees (seen
through /proc; without it, when older than STALE_SECONDS) and waits for a live git's. Only a
work tree's own locks and the shared ones count, never another work tree's. This is the one
thing cardvault does in `.git/` other than through git: it removes a regular file of one of
git's lock names, never through a link (docs/security.md).
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from cardvault.history.runner import common_dir, git_dir, work_tree_of

#: Without /proc, a git lock file older than this is taken as left by a dead git.
STALE_SECONDS = 600.0
#: How long a commit waits for a live git to let go of its lock files.
GIT_LOCK_WAIT = 10.0
#: A work tree's own lock files (in its git folder), and those all work trees share (in the
#: common folder, beside `refs/`).
_OWN_LOCKS = ("index.lock", "HEAD.lock", "ORIG_HEAD.lock", "MERGE_HEAD.lock")
_SHARED_LOCKS = ("packed-refs.lock",)


def git_lock_files(root: Path) -> list[Path]:
    """git's lock files in the way of a commit in the work tree holding `root`: its git
    folder's, and the shared refs of the common folder (not the main work tree's index)."""
    folders = _git_folders(root)
    found: list[Path] = []
    for folder in folders:
        names = (*_OWN_LOCKS, *_SHARED_LOCKS) if folder == folders[0] else _SHARED_LOCKS
        found += [folder / name for name in names if _regular(folder / name)]
        refs = folder / "refs"
        if refs.is_dir():
            found += [lock for lock in sorted(refs.rglob("*.lock")) if _regular(lock)]
    return list(dict.fromkeys(found))


def _git_folders(root: Path) -> list[Path]:
    folder = git_dir(root)
    if folder is None:
        return []
    common = common_dir(folder)
    return [folder] if common == folder else [folder, common]


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def clear_stale_git_locks(root: Path) -> list[str]:
    """Remove git lock files no live git holds; return their names (relative to their git
    folder, `index.lock`, `refs/heads/main.lock`)."""
    locks = git_lock_files(root)
    if not locks or git_running(root):
        return []
    folders = _git_folders(root)
    cleared = []
    for lock in locks:
        lock.unlink(missing_ok=True)
        base = next(folder for folder in folders if lock.is_relative_to(folder))
        cleared.append(lock.relative_to(base).as_posix())
    return cleared


def settle_git_locks(root: Path, wait: float = GIT_LOCK_WAIT) -> list[str]:
    """Before a commit: clear stale git locks; wait (up to `wait` s) for a live git's to go."""
    deadline = time.monotonic() + wait
    while True:
        cleared = clear_stale_git_locks(root)
        if not git_lock_files(root) or time.monotonic() >= deadline:
            return cleared
        time.sleep(0.05)


def git_running(root: Path) -> bool:
    """Whether a git process runs in any work tree or git folder of the repository holding
    `root` (a linked work tree's git may hold a shared ref's lock)."""
    top = work_tree_of(root)
    if top is None:
        return False
    proc = Path("/proc")
    if not (proc / "self" / "cwd").exists():
        return any(_age(lock) < STALE_SECONDS for lock in git_lock_files(root))
    places = [str(place) for place in _repository_places(top, _git_folders(root))]
    for entry in proc.iterdir():
        if not entry.name.isdigit() or entry.name == str(os.getpid()):
            continue
        try:
            if (entry / "comm").read_text().strip() != "git":
                continue
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if any(cwd == place or cwd.startswith(place + os.sep) for place in places):
            return True
    return False


def _repository_places(top: Path, folders: list[Path]) -> list[Path]:
    """Where a git of this repository may run: `top`, the git folders, the main work tree and
    each linked work tree (`worktrees/*/gitdir`)."""
    common = folders[-1]
    places = [top, *folders]
    if common.name == ".git":
        places.append(common.parent)
    linked = common / "worktrees"
    for gitdir in sorted(linked.glob("*/gitdir")) if linked.is_dir() else []:
        try:
            named = gitdir.read_text(encoding="utf-8").strip()
        except OSError:
            continue
        places.append(Path(named).parent)
    return list(dict.fromkeys(place.resolve() for place in places))


def _age(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return float("inf")
