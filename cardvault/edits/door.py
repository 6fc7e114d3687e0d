"""The one door every write to a vault goes through: lock, recover, plan, write, commit.

`Door(vault, on_wait)` is held by the app; services only plan (edits/proposal.py). A plan lands
one of three ways: `commit`, `commit(plan, branch=...)` (a new review branch, the work tree left
alone) and `merge` (sync's). `commit(plan)` takes the vault lock (lock.py); refuses while git is
in the middle of a rebase, merge or detached HEAD (history/states.py); finishes a write a killed
process left (recover.py, said on stderr); calls `plan()` under the lock; commits hand edits of
the files it is about to change as their own commit, so the write's commit holds the write
alone; adds MEMORY.md's table to a plan that adds, moves or removes a card (derived.py); applies
the changes all or nothing (apply.py) and commits exactly those paths. If a file changes between
the plan and the write (an editor saved it), the plan is made again, up to REPLANS times.
Nothing else takes the lock or commits; work that only reads (an index refresh) comes after.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from cardvault import history
from cardvault.edits import faults
from cardvault.edits.apply import AfterWrite, apply_changes, compose
from cardvault.edits.changes import Change
from cardvault.edits.derived import attributes_change, with_memory_table
from cardvault.edits.journal import left_behind
from cardvault.edits.lock import vault_lock
from cardvault.edits.proposal import OnWait, Planned, Proposal, Written, propose
from cardvault.edits.recover import Recovery, announce, recover
from cardvault.errors import CardvaultError, ConcurrentEditError, UnfinishedGitError
from cardvault.vault.files import ABSENT
from cardvault.vault.layout import Vault

T = TypeVar("T")
R = TypeVar("R")
#: How many times a plan is made again when a file changed between the plan and the write.
REPLANS = 2
#: Files one "hand edits" commit holds when `sync` commits many (Door.commit_hand_edits): a few
#: seconds of git's work, after which the vault lock is let go for a waiting writer.
PENDING_STEP = 2000


class Door:
    """The way into one vault for a write; `on_wait` is told who holds the lock when the wait
    for it is a noticeable one."""

    def __init__(self, vault: Vault, on_wait: OnWait | None = None) -> None:
        self.vault = vault
        self.on_wait = on_wait

    @contextlib.contextmanager
    def holding(
        self, merge_setup: bool = True, commit_pending: bool = False
    ) -> Iterator[Written[None]]:
        """Hold the lock, finish an interrupted write, set up the merge drivers when missing and,
        with `commit_pending`, commit every pending hand edit first; yields what that did."""
        vault = self.vault
        with vault_lock(vault, on_wait=self.on_wait):
            faults.begin()
            refuse_unfinished_git(vault)
            recovery = recover(vault)
            announce(recovery)
            setup = _merge_setup(vault) if merge_setup else None
            pending = _commit_dirty(vault, history.uncommitted(vault)) if commit_pending else None
            yield Written(None, pending=pending, setup=setup, recovery=recovery)

    def commit(
        self,
        plan: Callable[[], Proposal[T]],
        *,
        branch: str | None = None,
        after_write: AfterWrite | None = None,
        merge_setup: bool = True,
        commit_pending: bool = False,
    ) -> Written[T]:
        """Plan and commit one write under the vault lock; with `branch`, on that new branch;
        with `commit_pending`, every pending hand edit is committed first, else only those of
        the files it changes."""
        with self.holding(merge_setup, commit_pending) as entered:
            for attempt in range(REPLANS + 1):
                try:
                    written = self.write(plan(), after_write, branch)
                except ConcurrentEditError:
                    if attempt == REPLANS:
                        raise
                    continue
                break
        pending = entered.pending or written.pending
        return replace(written, setup=entered.setup, pending=pending, recovery=entered.recovery)

    def land(self, planned: Planned[T, R]) -> R:
        """Commit a service's plan and make the command's result of what landed."""
        return planned.result(self.commit(planned.plan))

    def write(
        self,
        proposal: Proposal[T],
        after_write: AfterWrite | None = None,
        branch: str | None = None,
    ) -> Written[T]:
        """Inside `holding`: commit hand edits of the targets, apply all or nothing, commit
        (with `branch`, on that new branch, the work tree left alone)."""
        vault = self.vault
        if branch is not None and not history.is_repo(vault.root):
            raise CardvaultError("committing to a branch needs the vault to be a git repository")
        proposal = replace(
            proposal, changes=with_memory_table(vault, proposal.changes, proposal.read)
        )
        ops = compose(proposal.changes)
        if not ops:
            return Written(proposal.value, proposal.changes)
        if branch is not None:
            texts = {op.path: op.text for op in ops}
            commit = history.commit_to_branch(vault, branch, proposal.message, texts)
            return Written(proposal.value, proposal.changes, (), commit, branch)
        history.settle_git_locks(vault.root)
        edited = [] if proposal.committed else [op.path for op in ops if op.expected != ABSENT]
        pending = _commit_dirty(vault, history.uncommitted(vault, edited)) if edited else None
        created = {op.path for op in ops if op.expected == ABSENT}
        commits: list[history.CommitResult] = []
        tried: list[Path] = []

        def record(paths: list[Path]) -> None:
            history.settle_git_locks(vault.root)
            tried.extend(paths)
            faults.step(vault.root / ".git")
            commits.append(history.commit(vault, proposal.message, paths, created=created))

        try:
            paths = apply_changes(vault, proposal.changes, after_write, record, proposal.message)
        except BaseException:
            # A failed commit may have staged its files (a new file is added before the commit):
            # out of the index again, once the files are put back (a full disk has room again
            # then), or a later `git commit` would record the write that failed.
            if tried and not commits:
                history.unstage(vault, tried)
            raise
        return Written(proposal.value, proposal.changes, tuple(paths), commits[0], None, pending)

    def merge(self, changes: Sequence[Change], merge: history.TreeMerge) -> tuple[Path, ...]:
        """Land sync's merge inside `holding`: write the merged files all or nothing
        (journaled), then move the branch to the merge commit instead of committing."""
        vault = self.vault
        new = merge.new
        top = history.work_tree_of(vault.root)
        assert new is not None and top is not None
        history.settle_git_locks(vault.root)
        moves = (merge.old, new)

        def move(paths: list[Path]) -> None:
            history.settle_git_locks(vault.root)
            faults.step(vault.root / ".git")
            rels = [Path(os.path.relpath(p, top)).as_posix() for p in paths]
            history.move_head(top, merge.old, new, rels)

        if not compose(changes):
            move([])
            return ()
        return tuple(apply_changes(vault, changes, None, move, None, moves))

    def commit_hand_edits(self) -> Written[None]:
        """Commit every pending hand edit (`sync`), PENDING_STEP files per commit with the lock
        let go in between, so a waiting writer (a `log`) gets in. A long list is screened whole
        first, outside the lock, so a secret anywhere commits none of it; a kill between two
        commits leaves only edits still to commit."""
        vault = self.vault
        with self.holding() as entered:
            dirty = history.uncommitted(vault)  # none outside git
            if len(dirty) <= PENDING_STEP:
                return replace(entered, pending=_commit_dirty(vault, dirty))
        top = history.work_tree_of(vault.root) or vault.root
        screen_hand_edits(top, dirty)  # the long read, holding no lock
        pending = None
        for start in range(0, len(dirty), PENDING_STEP):
            step = [top / rel for rel in dirty[start : start + PENDING_STEP]]
            with self.holding(merge_setup=False):
                pending = _commit_dirty(vault, history.uncommitted(vault, step)) or pending
        return replace(entered, pending=pending)

    def finish_interrupted(self) -> Recovery:
        """Finish a write a killed process left, before a caller plans outside the lock
        (`forget` asks first): a plan of half-written files would be wrong. No lock taken
        when no journal is left."""
        if not left_behind(self.vault):
            return Recovery()
        with self.holding(merge_setup=False) as entered:
            assert entered.recovery is not None
            return entered.recovery


def refuse_unfinished_git(vault: Vault) -> None:
    """Raise while git is in the middle of an operation a commit would be lost to or swept
    into (history/states.py words the line)."""
    operation = history.unfinished_operation(vault.root)
    if operation is not None:
        raise UnfinishedGitError(operation.message, history.work_tree_of(vault.root))


def _merge_setup(vault: Vault) -> history.CommitResult | None:
    """Configure the merge drivers; commit the `.gitattributes` block when the vault lacks it."""
    history.configure_drivers(vault.root)
    if not history.needs_attributes(vault.root):
        return None
    change = attributes_change(vault)
    if change is None:
        return None
    return Door(vault).write(propose([change], history.SUBJECT, None)).commit


def _commit_dirty(vault: Vault, dirty: list[str]) -> history.CommitResult | None:
    """Commit `dirty` (relative to the work tree) as "hand edits", once screened for secrets."""
    if not dirty:
        return None
    top = history.work_tree_of(vault.root) or vault.root
    screen_hand_edits(top, dirty)
    listing = "\n".join(dirty[:50]) + (f"\n… and {len(dirty) - 50} more" if len(dirty) > 50 else "")
    return history.commit(vault, f"hand edits\n\n{listing}\n", [top / rel for rel in dirty])


def screen_hand_edits(top: Path, dirty: Sequence[str]) -> None:
    """Refuse (SecretFoundError) a hand edit that adds a secret, compared with the committed
    text so a secret already in history is not blamed again. A file too big to screen is
    refused rather than committed unscreened; a symlink is not read (git records its target's
    name, never what it points at)."""
    from cardvault.errors import SecretFoundError
    from cardvault.guard import secrets_added

    texts = {}
    for rel in dirty:
        data = _hand_edit_bytes(top, rel)
        if data is not None and b"\0" not in data:  # a binary file holds no note to screen
            texts[rel] = data.decode("utf-8", errors="replace")
    committed = history.committed_texts(top, list(texts))
    for rel, text in texts.items():
        found = secrets_added(committed.get(rel, ""), text)
        if found:
            path = top / rel
            raise SecretFoundError(
                f"not committing this hand edit: it holds a secret ({found[0].kind}; the value "
                "is not shown); take it out of the file, then run the command again",
                path,
                found[0].line,
            )


def _hand_edit_bytes(top: Path, rel: str) -> bytes | None:
    from cardvault.errors import CardFormatError, UnsafePathError
    from cardvault.limits import VAULT_FILE as MAX_FILE_BYTES
    from cardvault.vault.confine import read_confined

    path = top / rel
    try:
        data = read_confined(top, path, MAX_FILE_BYTES)
    except (OSError, UnsafePathError, CardFormatError):
        return None  # gone, a link, a FIFO or a folder: nothing of its own to screen
    if len(data) > MAX_FILE_BYTES:
        raise CardFormatError(
            f"not committing this hand edit: it is over the {MAX_FILE_BYTES:,} bytes a vault "
            "file may hold, too big to screen for secrets; shrink it, or commit it yourself",
            path,
        )
    return data
