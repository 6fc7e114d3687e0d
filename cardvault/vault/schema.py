"""The card schema: which frontmatter values break the vault format, as (key, message) pairs
that `check` turns into `path:line` findings (at the key's line) and import into problems.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from cardvault.vault.card import (
    DISTILLED_KEY,
    REQUIRED_KEYS,
    SEVERITIES,
    STATUSES,
    TAG_RE,
    as_date,
)


def schema_problems(meta: Mapping[str, Any], categories: Iterable[str]) -> list[tuple[str, str]]:
    """(key, message) for every schema breach in a card's frontmatter."""
    problems: list[tuple[str, str]] = []
    for key in REQUIRED_KEYS:
        if key not in meta or meta[key] in (None, ""):
            problems.append((key, f"missing required key '{key}'"))
    topic = meta.get("topic")
    if topic is not None and not isinstance(topic, str):
        problems.append(("topic", "'topic' must be text"))
    category = meta.get("category")
    allowed = list(categories)
    if category not in (None, "") and category not in allowed:
        problems.append(
            ("category", f"unknown category '{category}' (allowed: {', '.join(allowed)})")
        )
    tags = meta.get("tags")
    if tags is not None:
        if not isinstance(tags, list):
            problems.append(("tags", "'tags' must be a list, e.g. [cortex, csrf]"))
        else:
            for tag in tags:
                if not isinstance(tag, str) or not TAG_RE.match(tag):
                    problems.append(("tags", f"tag {tag!r} is not lowercase-hyphenated"))
    for key in ("created", "updated", "last_used", "promoted"):
        if key in meta and meta[key] not in (None, "") and as_date(meta[key]) is None:
            if key == "promoted" and isinstance(meta[key], bool):
                continue
            problems.append((key, f"'{key}' must be an ISO date (YYYY-MM-DD), got {meta[key]!r}"))
    problems.extend(_optional_problems(meta))
    return problems


def _optional_problems(meta: Mapping[str, Any]) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    if "status" in meta and meta["status"] not in STATUSES:
        problems.append(("status", f"'status' must be one of {', '.join(STATUSES)}"))
    if "severity" in meta and meta["severity"] not in SEVERITIES:
        problems.append(("severity", f"'severity' must be one of {', '.join(SEVERITIES)}"))
    seen = meta.get("seen")
    if "seen" in meta and (not isinstance(seen, int) or isinstance(seen, bool) or seen < 1):
        problems.append(("seen", "'seen' must be a whole number of at least 1"))
    impact = meta.get("impact")
    if "impact" in meta and not (
        isinstance(impact, int | float) and not isinstance(impact, bool) and 0 <= impact <= 1
    ):
        problems.append(("impact", "'impact' must be a number from 0 to 1"))
    for key in ("sources", "aliases", "merged_from"):
        if key in meta and not isinstance(meta[key], list):
            problems.append((key, f"'{key}' must be a list"))
    problems.extend(_control_problems(meta))
    if DISTILLED_KEY in meta and not isinstance(meta[DISTILLED_KEY], str):
        problems.append(
            (DISTILLED_KEY, f"'{DISTILLED_KEY}' must be text (the digest maintain wrote)")
        )
    rule = meta.get("rule")
    if "rule" in meta and rule is not None and not isinstance(rule, str):
        problems.append(("rule", "'rule' must be text (the one-line rule to promote)"))
    elif isinstance(rule, str) and "cardvault:" in rule and "<!--" in rule:
        problems.append(("rule", "'rule' holds a cardvault section marker; remove it"))
    return problems


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
