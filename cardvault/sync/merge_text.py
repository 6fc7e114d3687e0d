"""Three-way merge of plain text, line by line: git's own `merge-file` (history/merging.py).

The drivers use it for what has no finer structure: a card's body, the hand-written parts of
MEMORY.md and AGENTS.md, a file that does not parse. Conflict markers appear only where both
sides changed the same lines; elsewhere each side's change is taken.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardvault.history import merge_texts


@dataclass(frozen=True)
class Merged:
    """A merge's text and how many conflicts (marker blocks) it holds."""

    text: str
    conflicts: int = 0


def one_side(base: str, ours: str, theirs: str) -> str | None:
    """The merge when at most one side changed `base` (or both alike); None otherwise."""
    if ours == theirs or theirs == base:
        return ours
    return theirs if ours == base else None


def merge3(base: str, ours: str, theirs: str) -> Merged:
    """`ours` and `theirs` merged against `base`; markers labelled ours / theirs."""
    if (same := one_side(base, ours, theirs)) is not None:
        return Merged(same)
    text, conflicts = merge_texts(base, ours, theirs)
    return Merged(text, conflicts)
