"""What a maintenance step (or `forget`, or `import`) asks to happen to the vault's files.

Changes are plain frozen values a step computes and never writes; `apply.apply_changes` is the
one place that carries them out. Each file change names the digest of the text it was computed
from, so a file edited meanwhile is never clobbered. `reason` is what a person reads in the
commit body, one line per action. A `Report` touches no file: it carries what a step found for
a person to decide (two cards that contradict each other, a card over its token budget).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cardvault.vault.files import ABSENT


@dataclass(frozen=True)
class WriteFile:
    """Replace (or create, when `expected_digest` is ABSENT) `path` with `new_text`."""

    path: Path
    new_text: str
    expected_digest: str
    reason: str
    step: str = ""
    tally: int = 0  # how many actions of its step this change stands for (commit subject)

    @property
    def creates(self) -> bool:
        return self.expected_digest == ABSENT


@dataclass(frozen=True)
class MoveFile:
    """Move `source` to `target` (which must not exist), writing `new_text` there."""

    source: Path
    target: Path
    new_text: str
    expected_digest: str
    reason: str
    step: str = ""
    tally: int = 0


@dataclass(frozen=True)
class DeleteFile:
    """Remove `path` (git keeps its history)."""

    path: Path
    expected_digest: str
    reason: str
    step: str = ""
    tally: int = 0


@dataclass(frozen=True)
class Report:
    """A finding for a person; changes no file (a conflict, a card over budget)."""

    kind: str  # "conflict" | "over-budget" | "skipped"
    message: str
    paths: tuple[Path, ...] = ()
    texts: tuple[str, ...] = ()
    step: str = ""


FileChange = WriteFile | MoveFile | DeleteFile
Change = WriteFile | MoveFile | DeleteFile | Report


def file_changes(changes: list[Change]) -> list[FileChange]:
    """The changes that touch files, in order."""
    return [c for c in changes if not isinstance(c, Report)]


def reports(changes: list[Change]) -> list[Report]:
    """The findings among `changes`, in order."""
    return [c for c in changes if isinstance(c, Report)]


def reason_lines(changes: list[Change]) -> list[str]:
    """Every action line of the file changes, in order, without repeats."""
    lines: dict[str, None] = {}
    for change in file_changes(changes):
        for line in change.reason.splitlines():
            if line.strip():
                lines.setdefault(line.strip(), None)
    return list(lines)


def touched_paths(change: FileChange) -> tuple[Path, ...]:
    """The paths a change writes or removes."""
    if isinstance(change, MoveFile):
        return (change.source, change.target)
    return (change.path,)


def over_budget(rel: str, tokens: int, budget: int, path: Path, step: str) -> Report:
    """The flag for a card left over its token budget (never cut: a person splits it)."""
    message = (
        f"{rel} is {tokens} tokens, over the card budget of {budget}: kept whole; split it by hand"
    )
    return Report("over-budget", message, (path,), (), step)
