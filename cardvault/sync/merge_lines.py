"""Merging two versions of an agent's hot memory (`memory/agents/NAME.md`) fragment by fragment.

Every `- YYYY-MM-DD HH:MM text` fragment of both sides is kept once, in time order; one a side
removed (moved to the log over budget) stays removed. The other lines (the title) merge three-way.
"""

from __future__ import annotations

import re
from pathlib import Path

from cardvault.sync.merge_card import union
from cardvault.sync.merge_text import Merged, merge3, one_side

FRAGMENT = re.compile(r"^- (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) ")


def _split(text: str) -> tuple[str, list[str]]:
    """The lines that are not fragments (as text) and the fragments, in file order."""
    lines = text.split("\n")
    fragments = [line for line in lines if FRAGMENT.match(line)]
    rest = "\n".join(line for line in lines if not FRAGMENT.match(line)).rstrip("\n")
    return rest, fragments


def _when(fragment: str) -> str:
    match = FRAGMENT.match(fragment)
    return match.group(1) if match else ""


def merge_lines(base: str, ours: str, theirs: str, path: Path) -> Merged:
    """`ours` and `theirs` merged against `base` (see the module docstring)."""
    if (same := one_side(base, ours, theirs)) is not None:
        return Merged(same)
    (b_rest, b), (o_rest, o), (t_rest, t) = _split(base), _split(ours), _split(theirs)
    head = merge3(b_rest + "\n", o_rest + "\n", t_rest + "\n")
    fragments = sorted(union(b, o, t), key=_when)
    body = "\n".join(fragments)
    text = head.text.rstrip("\n") + ("\n\n" + body if body else "") + "\n"
    return Merged(text, head.conflicts)
