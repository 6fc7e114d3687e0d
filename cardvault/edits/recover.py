"""Recovery: what a writing command does first, under the lock, after another was killed.

- Files git tracks in `.cardvault/` came from a repository: they are set aside unread
  (vault/cache.py), so a journal someone committed is never finished (docs/security.md); git's
  index is left alone and the note says to `git rm --cached` them.
- A journal left behind (journal.py) is finished: files still at their old text get the new one,
  the batch's temporary files are removed, and the change is committed with its own message (an
  undo restores the old texts and commits nothing). A file edited by hand since is left as found.
  A journal that names anything cardvault never writes is void: set aside, nothing applied.
- git lock files a killed git left are cleared (history/locks.py).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from cardvault import history
from cardvault.edits.batch import digest_or_absent, put_back, sweep_temp_files, write_steps
from cardvault.edits.journal import (
    Journal,
    Step,
    VoidJournal,
    clear_journal,
    journal_path,
    read_journal,
)
from cardvault.edits.lock import SYNC_LOCK, lock_path
from cardvault.errors import CardvaultError
from cardvault.trust.settings import shown
from cardvault.vault.cache import set_aside
from cardvault.vault.layout import Vault


@dataclass(frozen=True)
class Recovery:
    """What recovery found and did."""

    message: str | None = None  # the interrupted change's commit message
    rollback: bool = False
    commit: history.CommitResult | None = None
    left: tuple[str, ...] = ()  # files edited since the interruption, left as found
    swept: int = 0  # temporary files removed
    git_locks: tuple[str, ...] = ()  # stale git lock files removed
    notes: tuple[str, ...] = ()  # tracked cache files and void journals set aside

    @property
    def finished(self) -> bool:
        """Whether an interrupted write (or the undo of a failed one) was finished."""
        return self.message is not None or self.rollback


def recover(vault: Vault) -> Recovery:
    """Finish an interrupted write and clear git's stale locks (with the vault lock held)."""
    notes = take_out_tracked_cache(vault)
    cleared = history.clear_stale_git_locks(vault.root)
    try:
        journal = read_journal(vault)
    except VoidJournal as exc:
        kept = set_aside(vault.cache_dir, journal_path(vault), "journal.json")
        notes.append(f"{journal_path(vault)}: {exc.message} (kept as {vault.rel(kept)})")
        journal = None
    if journal is None:
        return Recovery(git_locks=tuple(cleared), notes=tuple(notes))
    done, left = _replay(vault, journal)
    swept = sweep_temp_files(vault.root, (s.rel for s in journal.steps), journal.id)
    commit = None
    if journal.moves is not None and not journal.rollback:
        notes.append(_finish_merge(vault, journal, done))
    elif journal.message is not None and not journal.rollback and done:
        message = journal.message.rstrip("\n") + "\n\n(finished after an interruption)\n"
        history.settle_git_locks(vault.root)
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
        journal.message if journal.moves is not None else journal.message or "",
        journal.rollback,
        commit,
        tuple(left),
        swept,
        tuple(cleared),
        tuple(notes),
    )


def _finish_merge(vault: Vault, journal: Journal, done: list[Step]) -> str:
    """sync's merge, killed after its journal was made and its files now written: bring the
    branch and the rest of the work tree to the merge commit."""
    top = history.work_tree_of(vault.root)
    assert journal.moves is not None
    old, new = journal.moves
    if top is None:
        return "an interrupted sync's files were written; the vault is no longer in git"
    rels = [os.path.relpath(vault.root / s.rel, top) for s in journal.steps]
    history.settle_git_locks(vault.root)
    found = history.finish_move(top, old, new, [Path(r).as_posix() for r in rels])
    if found == "in the branch":
        return f"an interrupted sync's merge ({new[:10]}) is in the branch already"
    if found == "moved on":
        return (
            f"an interrupted sync's merge ({new[:10]}) was not recorded: the branch moved "
            "since; the next `cardvault sync` merges again"
        )
    return f"finished an interrupted sync: the branch is at its merge {new[:10]}"


def take_out_tracked_cache(vault: Vault) -> list[str]:
    """Set aside the files git tracks in the cache folder (they came from a repository, never
    from this machine); a note naming them, or none."""
    top = history.work_tree_of(vault.root)
    if top is None:
        return []
    cache = vault.cache_dir
    where = Path(os.path.relpath(cache, top)).as_posix()
    listed = history.tracked_under(vault, cache)
    keep = {cache, lock_path(vault), lock_path(vault, SYNC_LOCK)}  # itself, the locks held
    present = [r for r in listed if r and top / r not in keep and os.path.lexists(top / r)]
    for rel in present:
        label = "git-" + "".join(c if c.isalnum() else "_" for c in rel)[-80:]
        set_aside(cache, top / rel, label)
    if not present:
        return []
    names = ", ".join(shown(rel) for rel in present[:3])
    more = f" and {len(present) - 3} more" if len(present) > 3 else ""
    return [
        f"{where}: git tracks {names}{more}, files that came from the repository: cardvault "
        f"never uses them and set them aside in {where}/untrusted/ (`git rm --cached` them to "
        "stop tracking them)"
    ]


def _replay(vault: Vault, journal: Journal) -> tuple[list[Step], list[str]]:
    """Bring each file to its `after` text where it is still at `before`; return the steps now
    done and the files that are at neither (edited meanwhile)."""
    pending: list[Step] = []
    done: list[Step] = []
    left: list[str] = []
    for step in journal.steps:
        found = digest_or_absent(vault.root / step.rel)
        if found == step.after:
            done.append(step)
        elif found == step.before:
            pending.append(step)
        else:
            left.append(step.rel)
    if journal.rollback:  # an undo: the old bytes kept beside a file are renamed back first
        pending = [s for s in pending if not put_back(vault.root, s.rel, journal.id)]
    if pending:
        write_steps(vault.root, pending, journal.id)
    return done + pending, left


def describe(recovery: Recovery) -> list[str]:
    """What a person should be told about a recovery, one line each."""
    lines = []
    if recovery.finished:
        subject = (recovery.message or "").split("\n", 1)[0]
        if recovery.rollback:
            lines.append("finished undoing a write that failed (nothing of it was kept)")
        elif recovery.commit is not None and recovery.commit.recorded:
            sha = (recovery.commit.sha or "")[:10]
            lines.append(f"finished an interrupted write ({subject}): committed {sha}")
        else:
            lines.append(f"finished an interrupted write ({subject})")
    for rel in recovery.left:
        lines.append(f"{rel}: edited since an interrupted write; left as it is")
    lines.extend(recovery.notes)
    if recovery.git_locks:
        names = ", ".join(recovery.git_locks)
        lines.append(f"removed git lock files left by a killed git: {names}")
    return lines


def announce(recovery: Recovery) -> None:
    """Say on stderr what recovery did, as it is done, so whichever command took the door is
    told, once (docs/writers.md)."""
    for line in describe(recovery):
        print(line, file=sys.stderr, flush=True)
