"""Targeted edits of a JSON document's text: add, replace or remove members and array items,
leaving every other byte as it was.

The document is parsed once with `json.loads` (so it is valid JSON), then navigated by
position: `elements` gives each member's key, each value's span and what it parses to, using
the C decoder (`raw_decode`) to step over values. An insertion goes after the container's last
element, indented like its siblings (or one indent unit deeper than the container's line);
removing what was inserted gives back the bytes that were there before. Comments (JSONC) are
not JSON: such a file is refused, never rewritten.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from cardvault.errors import CardvaultError
from cardvault.vault.bounded_data import json_loads

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
_INDENT = re.compile(r'^([ \t]+)"', re.M)
DEFAULT_UNIT = "  "


class HostFileError(CardvaultError):
    """A host's configuration file that cardvault cannot edit safely."""


@dataclass(frozen=True)
class Value:
    """A JSON value: its span [start, end) in the text, and what it parses to."""

    start: int
    end: int
    data: Any


@dataclass(frozen=True)
class Element:
    """A member of an object (`key`) or an item of an array (`key` None): where it starts (the
    key's quote, or the item) and its value."""

    key: str | None
    start: int
    value: Value


def load(text: str, path: Path) -> Any:
    """The parsed document; HostFileError (file and line) unless a JSON object."""
    try:
        data = json_loads(text)
    except json.JSONDecodeError as exc:
        raise HostFileError(
            f"not valid JSON ({exc.msg}); cardvault edits only plain JSON (no comments): fix it "
            "or add cardvault's entries by hand (`cardvault mcp --config`)",
            path,
            exc.lineno,
        ) from exc
    if not isinstance(data, dict):
        raise HostFileError("the file must hold a JSON object", path)
    return data


def find(text: str, path: tuple[str, ...]) -> Value | None:
    """The value at `path`, keys of nested objects (`()`: the document), or None when it is not
    there. With a repeated key, the last one counts (as `json.loads` reads it)."""
    here = _value_at(text, _skip(text, 0))
    for key in path:
        matching = [element.value for element in elements(text, here) if element.key == key]
        if not matching:
            return None
        here = matching[-1]
    return here


def elements(text: str, container: Value) -> list[Element]:
    """The members of an object or the items of an array, in order (none for a scalar)."""
    if not isinstance(container.data, dict | list):
        return []
    at = _skip(text, container.start + 1)
    found: list[Element] = []
    while text[at] not in "}]":
        start, key = at, None
        if isinstance(container.data, dict):
            key, after = scanstring(text, at + 1)
            at = _skip(text, _skip(text, after) + 1)  # past the colon
        value = _value_at(text, at)
        found.append(Element(key, start, value))
        at = _skip(text, value.end)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return found


def insert(text: str, path: tuple[str, ...], key: str | None, value: Any) -> str:
    """`text` with `value` after the last element of the container at `path` (as its member
    `key`, or an item when `key` is None), laid out like its siblings."""
    container = find(text, path)
    assert container is not None, path
    head = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
    present = elements(text, container)
    if not present:
        line_start = text.rfind("\n", 0, container.start) + 1
        outer = re.match(r"[ \t]*", text[line_start:]).group(0)  # type: ignore[union-attr]
        inner = outer + _indent_unit(text)
        opening, closing = text[container.start], text[container.end - 1]
        filled = f"{opening}\n{inner}{head}{_render(value, inner, text)}\n{outer}{closing}"
        return text[: container.start] + filled + text[container.end :]
    last = present[-1]
    indent = _line_indent(text, last.start)
    if indent is None:
        piece = ", " + head + json.dumps(value, ensure_ascii=False)
    else:
        piece = ",\n" + indent + head + _render(value, indent, text)
    return text[: last.value.end] + piece + text[last.value.end :]


def replace(text: str, element: Element, value: Any) -> str:
    """`text` with the value of `element` replaced by `value`, indented like its line."""
    indent = _line_indent(text, element.start)
    rendered = (
        json.dumps(value, ensure_ascii=False) if indent is None else _render(value, indent, text)
    )
    return text[: element.value.start] + rendered + text[element.value.end :]


def remove(text: str, path: tuple[str, ...], drop: Callable[[Element], bool]) -> str:
    """`text` without the elements of the container at `path` that `drop` picks, each with its
    separator; the last one from the end first, so the spans of those before it hold."""
    while (container := find(text, path)) is not None:
        present = elements(text, container)
        picked = [index for index, element in enumerate(present) if drop(element)]
        if not picked:
            break
        index = picked[-1]
        if len(present) == 1:
            empty = text[container.start] + text[container.end - 1]
            text = text[: container.start] + empty + text[container.end :]
        elif index > 0:
            text = text[: present[index - 1].value.end] + text[present[index].value.end :]
        else:
            text = text[: present[0].start] + text[present[1].start :]
    return text


def _render(value: Any, indent: str, text: str) -> str:
    """`value` as JSON laid out like the document: its indent unit, continuation lines under
    `indent`."""
    unit = _indent_unit(text)
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", "\n" + indent)


def _indent_unit(text: str) -> str:
    """The document's indentation step: the smallest indent before a key, else two spaces."""
    found = [match.group(1) for match in _INDENT.finditer(text)]
    return min(found, key=len) if found else DEFAULT_UNIT


def _line_indent(text: str, position: int) -> str | None:
    """The whitespace before `position` on its line, or None when other text precedes it there
    (an inline, one-line layout)."""
    line_start = text.rfind("\n", 0, position) + 1
    before = text[line_start:position]
    if before.strip():
        return None
    return before


def _value_at(text: str, start: int) -> Value:
    data, end = _DECODER.raw_decode(text, start)
    return Value(start, end, data)


def _skip(text: str, at: int) -> int:
    return _SPACE.match(text, at).end()  # type: ignore[union-attr]
