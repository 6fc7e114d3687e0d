"""Managed sections: the parts of MEMORY.md and AGENTS.md that cardvault owns.

A section is the text between `<!-- cardvault:begin NAME -->` and `<!-- cardvault:end NAME -->`.
Replacing it leaves every byte outside the markers as it was. A file without the markers gets
them appended at the end (with a blank line before), never inserted into the user's text.
"""

from __future__ import annotations

import re
from pathlib import Path

from cardvault.errors import CardFormatError

# A marker ends at the first "-->" and never runs past the next "<!--": an unclosed one is
# then given up where the next comment starts, so 45,000 unclosed markers in one card cost one
# pass over it, not one pass each (minutes for 900 KB).
_ANY_MARKER = re.compile(r"<!--\s*cardvault:(?:begin|end)\b(?:(?!-->|<!--).)*-->", re.S)


def without_markers(text: str) -> str:
    """`text` with every cardvault section marker removed: text bound for a section."""
    return _ANY_MARKER.sub("", text)


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- cardvault:begin {name} -->", f"<!-- cardvault:end {name} -->"


def _span(text: str, name: str, path: Path | None) -> tuple[int, int] | None:
    """(start, end) offsets of the section's content, or None when the markers are absent."""
    begin, end = _markers(name)
    starts = [m.end() for m in re.finditer(re.escape(begin), text)]
    ends = [m.start() for m in re.finditer(re.escape(end), text)]
    if not starts and not ends:
        return None
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        first = min(m.start() for m in re.finditer(re.escape(begin) + "|" + re.escape(end), text))
        line = text.count("\n", 0, first) + 1
        raise CardFormatError(
            f"managed section '{name}' needs exactly one begin marker followed by one end marker",
            path,
            line,
        )
    return starts[0], ends[0]


def get_section(text: str, name: str, path: Path | None = None) -> str | None:
    """The content between the section's markers (without the newlines next to them)."""
    span = _span(text, name, path)
    if span is None:
        return None
    return text[span[0] : span[1]].strip("\n")


def set_section(text: str, name: str, content: str, path: Path | None = None) -> str:
    """`text` with the section's content replaced (or the section appended at the end); content
    holding a marker is refused, as it would change where the section ends."""
    marker = _ANY_MARKER.search(content)
    if marker is not None:
        line = text.count("\n", 0, (_span(text, name, path) or (len(text), 0))[0]) + 1
        raise CardFormatError(
            f"refusing to write a cardvault marker into managed section '{name}'", path, line
        )
    body = "\n" + content.strip("\n") + "\n" if content.strip("\n") else "\n"
    span = _span(text, name, path)
    if span is not None:
        return text[: span[0]] + body + text[span[1] :]
    begin, end = _markers(name)
    prefix = text if text.endswith("\n") or not text else text + "\n"
    gap = "\n" if prefix else ""
    return f"{prefix}{gap}{begin}{body}{end}\n"


def section_line(text: str, name: str) -> int | None:
    """1-based line of the section's begin marker, if present."""
    begin, _ = _markers(name)
    index = text.find(begin)
    return None if index < 0 else text.count("\n", 0, index) + 1
