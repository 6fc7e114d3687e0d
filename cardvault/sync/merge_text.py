"""Three-way merge of plain text, line by line: git's own `merge-file`.

The drivers use it for what has no finer structure: a card's body, the hand-written parts of
MEMORY.md and AGENTS.md, a file that does not parse. Conflict markers appear only where both
sides changed the same lines; elsewhere each side's change is taken.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from cardvault.history import run_git

MARKERS = ("<<<<<<< ", "=======", ">>>>>>> ")


@dataclass(frozen=True)
class Merged:
    """A merge's text and how many conflicts (marker blocks) it holds."""

    text: str
    conflicts: int = 0


def merge3(base: str, ours: str, theirs: str) -> Merged:
    """`ours` and `theirs` merged against `base`; markers labelled ours / theirs."""
    if ours == theirs or theirs == base:
        return Merged(ours)
    if ours == base:
        return Merged(theirs)
    with tempfile.TemporaryDirectory(prefix="cardvault-merge-") as folder:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(folder) / name
            path.write_bytes(text.encode("utf-8"))
            paths.append(str(path))
        done = run_git(
            Path(folder), "merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs",
            *paths, check=False,
        )  # fmt: skip
    if done.returncode < 0 or done.returncode > 127:
        raise OSError(f"git merge-file failed: {done.stderr.strip()}")
    return Merged(done.stdout, done.returncode)


def conflict_lines(text: str) -> list[int]:
    """1-based lines where conflict blocks start (`<<<<<<< `)."""
    return [n for n, line in enumerate(text.splitlines(), start=1) if line.startswith(MARKERS[0])]
