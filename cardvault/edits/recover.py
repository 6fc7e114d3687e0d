"""Recovery: what a writing command does first, under the lock, after another one was killed.

1. A journal left behind (journal.py) is finished: each file still as it was before the change
   gets its new text, files already written are left, the temporary files of the batch are
   removed, and the change is committed with its own message (a rollback journal restores the
   old texts and commits nothing). A file edited by hand since is left as found and reported.
2. git lock files a killed git left behind (`.git/index.lock`, `HEAD.lock`, a branch's
   `.lock`) block every later commit. They are removed when no git process is running in the
   repository (seen through /proc; where there is none, when they are older than
   STALE_SECONDS). A lock held by a live git (an editor open for `git commit`) is waited for.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from cardvault import history
from cardvault.edits.batch import sweep_temp_files, write_steps
from cardvault.edits.journal import Journal, Step, clear_journal, journal_path, read_journal
from cardvault.errors import CardvaultError
from cardvault.vault.files import ABSENT, current_digest
from cardvault.vault.layout import Vault

#: Without /proc, a git lock file older than this is taken as left by a dead git.
STALE_SECONDS = 600.0
#: How long a commit waits for a live git to let go of its lock files.
GIT_LOCK_WAIT = 10.0
_GIT_LOCKS = ("index.lock", "HEAD.lock", "ORIG_HEAD.lock", "MERGE_HEAD.lock", "packed-refs.lock")


@dataclass(frozen=True)
class Recovery:
    """What recovery found and did."""

    message: str | None = None  # the interrupted change's commit message
    rollback: bool = False
    commit: history.CommitResult | None = None
    left: tuple[str, ...] = ()  # files edited since the interruption, left as found
    swept: int = 0  # temporary files removed
    git_locks: tuple[str, ...] = field(default=())  # stale git lock files removed


def recover(vault: Vault) -> Recovery:
    """Finish an interrupted write and clear git's stale locks (call with the lock held)."""
    cleared = clear_stale_git_locks(vault)
    journal = read_journal(vault)
    if journal is None:
        return Recovery(git_locks=tuple(cleared))
    done, left = _replay(vault, journal)
    swept = sweep_temp_files(vault.root, (s.rel for s in journal.steps), journal.id)
    commit = None
    if journal.message is not None and not journal.rollback and done:
        message = journal.message.rstrip("\n") + "\n\n(finished after an interruption)\n"
        settle_git_locks(vault)
        try:
            writer = replace(vault, agent=journal.agent)  # signed by the agent who wrote it
            commit = history.commit(writer, message, [vault.root / s.rel for s in done])
        except CardvaultError as exc:
            raise CardvaultError(
                f"an interrupted write was finished on disk but git could not record it "
                f"({exc.message}); the next writing command tries again",
                journal_path(vault),
            ) from exc
    clear_journal(vault)
    return Recovery(
        journal.message or "", journal.rollback, commit, tuple(left), swept, tuple(cleared)
    )


def _replay(vault: Vault, journal: Journal) -> tuple[list[Step], list[str]]:
    """Bring each file to its `after` text where it is still at `before`; return the steps now
    done and the files that are at neither (edited meanwhile)."""
    pending: list[Step] = []
    done: list[Step] = []
    left: list[str] = []
    for step in journal.steps:
        found = _digest(vault.root / step.rel)
        if found == step.after:
            done.append(step)
        elif found == step.before:
            pending.append(step)
        else:
            left.append(step.rel)
    if pending:
        write_steps(vault.root, pending, journal.id)
    return done + pending, left


def _digest(path: Path) -> str:
    try:
        return current_digest(path)
    except (NotADirectoryError, IsADirectoryError):
        return ABSENT


def git_lock_files(vault: Vault) -> list[Path]:
    """git's lock files present in the vault's repository."""
    folder = history.git_dir(vault.root)
    if folder is None:
        return []
    found = [folder / name for name in _GIT_LOCKS if (folder / name).exists()]
    refs = folder / "refs"
    if refs.is_dir():
        found += sorted(refs.rglob("*.lock"))
    return found


def clear_stale_git_locks(vault: Vault) -> list[str]:
    """Remove git lock files no live git holds; return their names (relative to .git)."""
    locks = git_lock_files(vault)
    if not locks or git_running(vault):
        return []
    folder = history.git_dir(vault.root)
    assert folder is not None
    cleared = []
    for lock in locks:
        lock.unlink(missing_ok=True)
        cleared.append(lock.relative_to(folder).as_posix())
    return cleared


def settle_git_locks(vault: Vault, wait: float = GIT_LOCK_WAIT) -> list[str]:
    """Before a commit: clear stale git locks; wait (up to `wait` s) for a live git's to go."""
    deadline = time.monotonic() + wait
    while True:
        cleared = clear_stale_git_locks(vault)
        if not git_lock_files(vault) or time.monotonic() >= deadline:
            return cleared
        time.sleep(0.05)


def git_running(vault: Vault) -> bool:
    """Whether a git process is running inside the vault's repository (work tree or .git)."""
    top = history.work_tree_of(vault.root)
    if top is None:
        return False
    proc = Path("/proc")
    if not (proc / "self" / "cwd").exists():
        return any(_age(lock) < STALE_SECONDS for lock in git_lock_files(vault))
    top_text = str(top.resolve())
    for entry in proc.iterdir():
        if not entry.name.isdigit() or entry.name == str(os.getpid()):
            continue
        try:
            if (entry / "comm").read_text().strip() != "git":
                continue
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if cwd == top_text or cwd.startswith(top_text + os.sep):
            return True
    return False


def _age(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return float("inf")


def describe(recovery: Recovery) -> list[str]:
    """What a person should be told about a recovery, one line each."""
    lines = []
    if recovery.message is not None or recovery.rollback:
        subject = (recovery.message or "").split("\n", 1)[0]
        if recovery.rollback:
            lines.append("finished undoing a write that failed when its process was killed")
        elif recovery.commit is not None and recovery.commit.recorded:
            sha = (recovery.commit.sha or "")[:10]
            lines.append(f"finished an interrupted write ({subject}): committed {sha}")
        else:
            lines.append(f"finished an interrupted write ({subject})")
    for rel in recovery.left:
        lines.append(f"{rel}: edited since an interrupted write; left as it is")
    if recovery.git_locks:
        names = ", ".join(recovery.git_locks)
        lines.append(f"removed git lock files left by a killed git: {names}")
    return lines
