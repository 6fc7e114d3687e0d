"""Merging two versions of MEMORY.md or AGENTS.md: managed sections apart from the rest.

Between its `<!-- cardvault:begin NAME -->` markers cardvault owns the text and each section
merges as a set of lines (MEMORY.md's table is made again from the merged cards by
sync/run.py); outside them the person does, merged three-way.
"""

from __future__ import annotations

import re
from pathlib import Path

from cardvault.errors import CardFormatError
from cardvault.sync.merge_card import union
from cardvault.sync.merge_text import Merged, merge3, one_side
from cardvault.vault.sections import get_section, set_section

_BEGIN = re.compile(r"<!-- cardvault:begin ([\w-]+) -->")
#: Sections whose lines are independent items (merged as a set); others are taken whole.
LINE_SETS = ("rules",)


#: The sections cardvault writes: MEMORY.md's categories table, AGENTS.md's learned rules.
#: Markers of any other name are text like the rest (each managed name is a scan of the file).
MANAGED = ("categories", "rules")


def section_names(*texts: str) -> list[str]:
    """Names of the managed sections in any of `texts`, in order of first appearance."""
    names: dict[str, None] = {}
    for text in texts:
        for match in _BEGIN.finditer(text):
            if match.group(1) in MANAGED:
                names.setdefault(match.group(1), None)
    return list(names)


def merge_managed(base: str, ours: str, theirs: str, path: Path) -> Merged:
    """`ours` and `theirs` merged against `base` (see the module docstring)."""
    if (same := one_side(base, ours, theirs)) is not None:
        return Merged(same)
    names = section_names(ours, theirs, base)
    try:
        contents = {name: _merge_section(name, base, ours, theirs, path) for name in names}
        blank = [_blanked(text, names, path) for text in (base, ours, theirs)]
    except CardFormatError:  # broken markers on some side: plain text
        return merge3(base, ours, theirs)
    rest = merge3(*blank)
    text = rest.text
    try:
        for name, content in contents.items():
            if get_section(text, name, path) is not None or content:
                text = set_section(text, name, content, path)
    except CardFormatError:  # a conflict block split a section's markers: leave them empty
        return rest
    return Merged(text, rest.conflicts)


def _merge_section(name: str, base: str, ours: str, theirs: str, path: Path) -> str:
    b, o, t = (get_section(text, name, path) or "" for text in (base, ours, theirs))
    if (same := one_side(b, o, t)) is not None:
        return same
    if name in LINE_SETS:
        lines = union(_lines(b), _lines(o), _lines(t))
        return "\n".join(sorted(lines, key=lambda line: (line.casefold(), line)))
    return o


def _lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip()]


def _blanked(text: str, names: list[str], path: Path) -> str:
    """`text` with each managed section emptied (markers kept), for merging the rest."""
    for name in names:
        if get_section(text, name, path) is not None:
            text = set_section(text, name, "", path)
    return text
