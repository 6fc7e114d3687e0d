"""A targeted edit of one table in a TOML file (Codex's `config.toml`), the rest kept byte for
byte: comments, order, other servers.

`tomllib` validates the file; the edit is on the text: the table is the lines from its `[a.b]`
header (and the marker comment above it) to the last key line before the next header, so the
comments above the next header stay with it. A new table goes at the end after a blank line,
which removing it takes away again. (A TOML document model, tomlkit, counts those comments as
the end of the table before them and drops them with it.)
"""

from __future__ import annotations

import json
import re
import tomllib
from itertools import accumulate
from pathlib import Path
from typing import Any

from cardvault.hosts.jsonedit import HostFileError
from cardvault.vault.bounded_data import toml_loads

MARKER = "# cardvault's MCP server: `cardvault install` wrote it, `--uninstall` removes it"
_HEADER = re.compile(r"^[ \t]*\[")
_TRIPLE = re.compile(r'"""|\'\'\'')


def load(text: str, path: Path) -> dict[str, Any]:
    """The parsed file; HostFileError naming the file unless it is valid TOML."""
    try:
        return toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise HostFileError(f"not valid TOML: {exc}", path) from exc


def table_text(dotted: tuple[str, ...], values: dict[str, Any]) -> str:
    """The marker comment, the `[a.b]` header and one `key = value` line per value (strings
    and lists of strings, written as TOML basic strings)."""
    lines = [MARKER, "[" + ".".join(dotted) + "]"]
    for key, value in values.items():
        if isinstance(value, list):
            rendered = "[" + ", ".join(json.dumps(item) for item in value) + "]"
        else:
            rendered = json.dumps(value)
        lines.append(f"{key} = {rendered}")
    return "\n".join(lines) + "\n"


def table_span(text: str, dotted: tuple[str, ...]) -> tuple[int, int] | None:
    """Where the table `dotted` (and its sub-tables) is written as a `[header]` block: the
    character span, or None when no such header exists."""
    lines = text.splitlines(keepends=True)
    starts = list(accumulate(map(len, lines), initial=0))
    own, sub = _header(dotted, r"\][ \t]*(?:#.*)?$"), _header(dotted, r"\.")
    first = None
    for number, line in _outside_strings(lines):
        if first is None and own.match(line):
            first = number
        elif first is not None and _HEADER.match(line) and not sub.match(line):
            return _block(lines, starts, first, number)
    if first is None:
        return None
    return _block(lines, starts, first, len(lines))


def upsert(text: str, span: tuple[int, int] | None, block: str) -> tuple[str, str]:
    """`text` with the table at `span` replaced by `block` or, with no span, `block` appended;
    also the separator put before an appended block ("" when replaced in place)."""
    if span is not None:
        return text[: span[0]] + block + text[span[1] :], ""
    separator = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
    return text + separator + block, separator


def remove(text: str, span: tuple[int, int], separator: str | None) -> str:
    """`text` without the table at `span` and the separator appended before it (`separator`
    None: not known, a blank line is assumed)."""
    start, end = span
    gap = "\n" if separator is None else separator
    if gap and text[:start].endswith(gap):
        start -= len(gap)
    return text[:start] + text[end:]


def _block(lines: list[str], starts: list[int], first: int, stop: int) -> tuple[int, int]:
    """Span of lines first..stop, less trailing blank and comment lines (they belong to what
    follows), plus the marker comment just above the header."""
    last = stop
    while last > first + 1 and (not lines[last - 1].strip() or lines[last - 1].lstrip()[:1] == "#"):
        last -= 1
    if first > 0 and lines[first - 1].rstrip("\r\n") == MARKER:
        first -= 1
    return starts[first], starts[last]


def _outside_strings(lines: list[str]) -> list[tuple[int, str]]:
    """(number, line) of the lines that are not inside a multi-line string."""
    inside = False
    found = []
    for number, line in enumerate(lines):
        if not inside:
            found.append((number, line))
        if len(_TRIPLE.findall(line)) % 2:
            inside = not inside
    return found


def _name(part: str) -> str:
    return rf"""[ \t]*(?:{re.escape(part)}|"{re.escape(part)}"|'{re.escape(part)}')[ \t]*"""


def _header(dotted: tuple[str, ...], after: str) -> re.Pattern[str]:
    """A header line opening the table `dotted` (`[a.b`), then `after`: `]` for the table's
    own header, `.` for a sub-table's."""
    return re.compile(r"^[ \t]*\[" + r"\.".join(map(_name, dotted)) + after)
