"""Targeted edits of a JSON document's text: add, replace or remove one member or array item,
leaving every other byte as it was.

The document is parsed once with `json.loads` (so it is valid JSON), then navigated by
position: `members` and `items` give each member's key and each value's span, using the C
decoder (`raw_decode`) to step over values that are not descended into. An insertion goes
after the container's last element, indented like its siblings (or one indent unit deeper than
the container's line); removing what was inserted gives back the bytes that were there
before. Comments (JSONC) are not JSON: such a file is refused, never rewritten.
"""

from __future__ import annotations

import json
import re
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

Path_ = tuple[str | int, ...]


class HostFileError(CardvaultError):
    """A host's configuration file that cardvault cannot edit safely."""


@dataclass(frozen=True)
class Value:
    """A JSON value's span in the text: [start, end), and its kind."""

    start: int
    end: int
    kind: str  # "object", "array" or "scalar"


@dataclass(frozen=True)
class Member:
    """One `"key": value` of an object: the key, where its quote starts, and its value."""

    key: str
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


def root(text: str) -> Value:
    """The document's top-level value."""
    return value_at(text, _SPACE.match(text, 0).end())  # type: ignore[union-attr]


def value_at(text: str, start: int) -> Value:
    """The value starting at `start`."""
    _, end = _DECODER.raw_decode(text, start)
    kind = {"{": "object", "[": "array"}.get(text[start], "scalar")
    return Value(start, end, kind)


def members(text: str, obj: Value) -> list[Member]:
    """The members of the object `obj`, in order."""
    return _elements(text, obj)


def items(text: str, array: Value) -> list[Value]:
    """The items of the array `array`, in order."""
    return [member.value for member in _elements(text, array)]


def _elements(text: str, container: Value) -> list[Member]:
    """The elements of an object or array, as Members (an item's key is "")."""
    at = _skip(text, container.start + 1)
    found: list[Member] = []
    while text[at] not in "}]":
        start, key = at, ""
        if container.kind == "object":
            key, after = scanstring(text, at + 1)
            at = _skip(text, _skip(text, after) + 1)  # past the colon
        value = value_at(text, at)
        found.append(Member(key, start, value))
        at = _skip(text, value.end)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return found


def lookup(text: str, path: Path_) -> Value | None:
    """The value at `path` (keys of objects, indexes of arrays), or None when it is not there.
    With a repeated key, the last one counts (as `json.loads` reads it)."""
    here = root(text)
    for step in path:
        if isinstance(step, str) and here.kind == "object":
            matching = [m.value for m in members(text, here) if m.key == step]
            if not matching:
                return None
            here = matching[-1]
        elif isinstance(step, int) and here.kind == "array":
            listed = items(text, here)
            if step >= len(listed):
                return None
            here = listed[step]
        else:
            return None
    return here


def insert_member(text: str, obj: Value, key: str, value: Any) -> str:
    """`text` with `"key": value` added at the end of the object `obj`."""
    return _append(text, obj, json.dumps(key, ensure_ascii=False) + ": ", value)


def append_item(text: str, array: Value, value: Any) -> str:
    """`text` with `value` added at the end of the array `array`."""
    return _append(text, array, "", value)


def _append(text: str, container: Value, head: str, value: Any) -> str:
    """`text` with `head` and `value` after the last element of `container`, laid out like it."""
    present = _elements(text, container)
    if not present:
        return _fill_empty(text, container, lambda indent: head + render(value, indent, text))
    last = present[-1]
    indent = line_indent(text, last.start)
    if indent is None:
        piece = ", " + head + json.dumps(value, ensure_ascii=False)
    else:
        piece = ",\n" + indent + head + render(value, indent, text)
    return text[: last.value.end] + piece + text[last.value.end :]


def replace_value(text: str, old: Value, value: Any, owner_start: int) -> str:
    """`text` with the value at `old` replaced by `value`, indented like the line of
    `owner_start` (the member's key, or the item itself)."""
    indent = line_indent(text, owner_start)
    rendered = (
        json.dumps(value, ensure_ascii=False) if indent is None else render(value, indent, text)
    )
    return text[: old.start] + rendered + text[old.end :]


def remove_member(text: str, obj: Value, key: str) -> str:
    """`text` without the (last) member `key` of the object `obj`, and its separator."""
    present = members(text, obj)
    return remove_item(text, obj, max(i for i, m in enumerate(present) if m.key == key))


def remove_item(text: str, container: Value, index: int) -> str:
    """`text` without element `index` of the array (or object) `container`, and its separator."""
    present = _elements(text, container)
    if len(present) == 1:
        empty = "{}" if container.kind == "object" else "[]"
        return text[: container.start] + empty + text[container.end :]
    if index > 0:
        return text[: present[index - 1].value.end] + text[present[index].value.end :]
    return text[: present[0].start] + text[present[1].start :]


def is_empty(text: str, value: Value) -> bool:
    """Whether `value` is an empty object or array."""
    return value.kind != "scalar" and _skip(text, value.start + 1) == value.end - 1


def render(value: Any, indent: str, text: str) -> str:
    """`value` as JSON laid out like the document: its indent unit, continuation lines under
    `indent`."""
    unit = indent_unit(text)
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", "\n" + indent)


def indent_unit(text: str) -> str:
    """The document's indentation step: the smallest indent before a key, else two spaces."""
    found = [match.group(1) for match in _INDENT.finditer(text)]
    return min(found, key=len) if found else DEFAULT_UNIT


def line_indent(text: str, position: int) -> str | None:
    """The whitespace before `position` on its line, or None when other text precedes it there
    (an inline, one-line layout)."""
    line_start = text.rfind("\n", 0, position) + 1
    before = text[line_start:position]
    if before.strip():
        return None
    return before


def _fill_empty(text: str, container: Value, body: Any) -> str:
    """An empty container rewritten to hold one element on its own line."""
    line_start = text.rfind("\n", 0, container.start) + 1
    outer = re.match(r"[ \t]*", text[line_start:]).group(0)  # type: ignore[union-attr]
    inner = outer + indent_unit(text)
    opening, closing = ("{", "}") if container.kind == "object" else ("[", "]")
    filled = f"{opening}\n{inner}{body(inner)}\n{outer}{closing}"
    return text[: container.start] + filled + text[container.end :]


def _skip(text: str, at: int) -> int:
    return _SPACE.match(text, at).end()  # type: ignore[union-attr]
