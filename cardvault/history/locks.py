"""git's lock files, and clearing the ones a killed git left behind.

git takes `.git/index.lock`, `HEAD.lock`, a branch's `refs/heads/NAME.lock`... while it writes,
and a git killed meanwhile leaves them: every later commit then fails until a person deletes
the file (git has no command for it). A writer calls `settle_git_locks` under the vault lock
before it commits: lock files are removed when no git process is running in the repository
(seen through /proc; where there is none, when they are older than STALE_SECONDS), and a lock
held by a live git (an editor open for `git commit`) is waited for, never removed.

A repository may have several work trees (`git worktree add`): each has its own git folder
(index, HEAD) and all share the common one (refs, packed-refs). So the locks a write looks at
are its own work tree's and the shared ones, never another work tree's index or HEAD; and a
git running in *any* of the work trees (or in the git folders) counts as live, since it may
hold a shared ref's lock.

This is the one thing cardvault does in `.git/` other than through git: it removes a regular
file of one of git's own lock names, never writes one, never through a link (docs/security.md
says why). Standard library only: every write passes here.
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
    """git's lock files that stand in the way of a commit in the work tree holding `root`:
    its git folder's, and the common folder's refs and packed-refs a linked work tree shares
    (not the main work tree's own index or HEAD, which live there too)."""
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
    """The repository's git folder, and its common folder when it is a linked work tree's."""
    folder = git_dir(root)
    if folder is None:
        return []
    common = common_dir(folder)
    return [folder] if common == folder else [folder, common]


def _regular(path: Path) -> bool:
    """Whether `path` is a regular file (not followed if it is a link)."""
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
    """Whether a git process is running inside the repository holding `root`: in any of its
    work trees (a linked one's git may hold a shared ref's lock) or its git folders."""
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
    """Where a git of this repository may run: `top`, the git folders, the main work tree
    (the common folder's parent, when it is a `.git`) and each linked work tree (named by
    the common folder's `worktrees/*/gitdir`)."""
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
