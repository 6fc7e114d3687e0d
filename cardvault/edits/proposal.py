"""A write as a service plans it (`Planned`: the planning function the door calls under the
lock, returning a `Proposal`, and what to make of what landed) and as it landed (`Written`). The
app lands the plan through the door (edits/door.py); no service imports the door.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from cardvault.edits.changes import Change

if TYPE_CHECKING:
    from cardvault import history
    from cardvault.edits.lock import Holder
    from cardvault.edits.recover import Recovery
    from cardvault.vault.read import VaultSnapshot

T = TypeVar("T")
R = TypeVar("R")
#: Told who holds the lock when a writer has waited for it a noticeable while.
OnWait = Callable[["Holder"], None]


@dataclass(frozen=True)
class Proposal(Generic[T]):
    """What a planning function returns: the changes, the commit message, and a value for the
    caller. `committed`: the planner already found (or committed) every hand edit under the
    lock, so the door asks git no second time. `read`: the vault the planner read under the
    lock, which MEMORY.md's table starts from instead of a second read."""

    changes: tuple[Change, ...]
    message: str
    value: T
    committed: bool = False
    read: VaultSnapshot | None = None


def propose(
    changes: Sequence[Change],
    message: str,
    value: T,
    committed: bool = False,
    read: VaultSnapshot | None = None,
) -> Proposal[T]:
    """A Proposal of `changes`."""
    return Proposal(tuple(changes), message, value, committed, read)


@dataclass(frozen=True)
class Written(Generic[T]):
    """What landed: the plan's value, changes, paths and commit (None: nothing changed), and
    what happened on the way in."""

    value: T
    changes: tuple[Change, ...] = ()
    paths: tuple[Path, ...] = ()
    commit: history.CommitResult | None = None
    branch: str | None = None
    pending: history.CommitResult | None = None  # hand edits committed first
    setup: history.CommitResult | None = None  # .gitattributes for the merge drivers added
    recovery: Recovery | None = None


@dataclass(frozen=True)
class Planned(Generic[T, R]):
    """A service's write: `plan` is called by the door under the lock (again when a file
    changed before the write), `result` makes the command's result of what landed."""

    plan: Callable[[], Proposal[T]]
    result: Callable[[Written[T]], R]


def door_notes(written: Written[Any]) -> list[str]:
    """What a person should hear about the way in besides the recovery: the merge drivers set
    up, hand edits committed first."""
    notes: list[str] = []
    if written.setup is not None and written.setup.recorded:
        sha = (written.setup.sha or "")[:10]
        notes.append(f"set up git merge drivers for the vault's files (.gitattributes, {sha})")
    if written.pending is not None and written.pending.recorded:
        notes.append(f"committed hand edits first: {(written.pending.sha or '')[:10]}")
    return notes
