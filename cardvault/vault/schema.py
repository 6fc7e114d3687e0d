"""The card schema: which frontmatter values break the vault format, as (key, message) pairs
that `check` turns into `path:line` findings (at the key's line) and import into problems.
Which keys a card must have and what each may hold is the field table's (vault/fields.py);
here is what each type accepts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from cardvault.vault import fields as f
from cardvault.vault.card import TAG_RE, as_date


def schema_problems(meta: Mapping[str, Any], categories: Iterable[str]) -> list[tuple[str, str]]:
    """(key, message) for every schema breach in a card's frontmatter."""
    allowed = list(categories)
    problems = [
        (row.name, f"missing required key '{row.name}'")
        for row in f.FIELDS
        if row.required and meta.get(row.name) in (None, "")
    ]
    for row in f.FIELDS:
        if row.name in meta:
            problems.extend((row.name, m) for m in _type_problems(row, meta[row.name], allowed))
    return problems + _control_problems(meta)


def _type_problems(row: f.Field, value: Any, categories: list[str]) -> list[str]:
    """What is wrong with `value` as a value of `row` (nothing for an unchecked type)."""
    name, must = row.name, f"'{row.name}' must be"
    if row.type in (f.TEXT, f.LINE) and value is not None and not isinstance(value, str):
        return [f"{must} {row.expect or 'text'}"]
    if row.type == f.LINE and isinstance(value, str) and "cardvault:" in value and "<!--" in value:
        return [f"'{name}' holds a cardvault section marker; remove it"]
    if row.type == f.A_CATEGORY and value not in (None, "") and value not in categories:
        return [f"unknown category '{value}' (allowed: {', '.join(categories)})"]
    if row.type == f.TAG_LIST and value is not None:
        if not isinstance(value, list):
            return [f"{must} a list, e.g. [cortex, csrf]"]
        return [f"tag {t!r} is not lowercase-hyphenated" for t in value if not _tag(t)]
    if row.type in (f.DATE, f.DATE_OR_FLAG) and value not in (None, "") and as_date(value) is None:
        if row.type == f.DATE_OR_FLAG and isinstance(value, bool):
            return []
        return [f"{must} an ISO date (YYYY-MM-DD), got {value!r}"]
    if row.type == f.CHOICE and value not in row.choices:
        return [f"{must} one of {', '.join(row.choices)}"]
    if row.type == f.COUNT and not (_whole(value) and value >= 1):
        return [f"{must} a whole number of at least 1"]
    if row.type == f.FRACTION and not (_number(value) and 0 <= value <= 1):
        return [f"{must} a number from 0 to 1"]
    if row.type == f.LIST and not isinstance(value, list):
        return [f"{must} a list"]
    return []


def _tag(tag: Any) -> bool:
    return isinstance(tag, str) and TAG_RE.match(tag) is not None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _control_problems(meta: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Control characters (NUL, escape...) in a text value: YAML's `"\\0"` or `"\\e"` escapes put
    them there, and they corrupt a terminal, a file name or the search index."""
    problems = []
    for key, value in meta.items():
        texts = value if isinstance(value, list) else [value]
        for text in texts:
            found = _CONTROL.search(text) if isinstance(text, str) else None
            if found is not None:
                code = f"U+{ord(found.group()):04X}"
                problems.append((key, f"'{key}' holds a control character ({code})"))
                break
    return problems
