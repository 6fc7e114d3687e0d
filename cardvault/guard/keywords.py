"""Keyword assignments: values given to secret-sounding names (`password=x`, `api_key: x`).

The regexes are detect-secrets' `KeywordDetector` config-file ones (see `plugins`); each value
they capture is then vetted here, because notes hold code and prose as well as config
(`password_min_length: 12`, `Password: see the vault` are no credentials).
"""

from __future__ import annotations

import re

from cardvault.guard.finding import Span
from cardvault.guard.plugins import Kit
from cardvault.guard.vetting import is_reference
from cardvault.guard.words import ASSIGNMENT, words


def keyword_spans(line: str, kit: Kit) -> list[Span]:
    """Values assigned to secret-sounding names, each vetted by `_is_assigned`."""
    spans: list[Span] = []
    for regex, group in kit.keyword_regexes.items():
        pos = 0
        while (match := regex.search(line, pos)) is not None:
            span = _value_span(line, match, group)
            if span is not None and _is_assigned(line, *span):
                spans.append((*span, _keyword_kind(line[: span[0]])))
            pos = max(pos + 1, span[1] if span else match.end())  # go on after the value
    return spans


def _value_span(line: str, match: re.Match[str], group: int) -> tuple[int, int] | None:
    """The value's columns: whole when quoted, else its first word less end punctuation."""
    start, end = match.span(group)
    if start and line[start - 1] in "'\"`" and line[end : end + 1] == line[start - 1]:
        return start, end
    parts = line[start:end].split()
    word = parts[0].rstrip(".,;:)]}>`'\"") if parts else ""
    return (start, start + len(word)) if word else None


_SETTING = re.compile(  # `password_min_length: 12`, `secretName: app-tls`: about a secret
    r"ids?|names?|ur[il]|path|file|dir|arn|ref|env|var|type|length|len|min|max|policy|hint|field"
    r"|label|version|count|ttl|expiry|expires|required|enabled|manager|store|provider"
    r"|rotation|reset|prompt"
)


def _is_assigned(line: str, start: int, end: int) -> bool:
    """False for values that are references, settings, code or prose, not a credential."""
    value = line[start:end]
    assignment = ASSIGNMENT.search(line[max(0, start - 120) : start])
    key, op = assignment.groups() if assignment else ("", "")
    if _SETTING.fullmatch((words(key) or [""])[-1]):
        return False
    if len(value) < 4 or not any(c.isalpha() for c in value):
        return False
    if start > 0 and line[start - 1] in "'\"`":
        return True
    return not (is_reference(value) or _is_code_word(value, key, op, line[:start], line[end:]))


def _is_code_word(value: str, key: str, op: str, before: str, after: str) -> bool:
    """A variable, type, comparison or prose word (`password: SecretStr`, `if pwd == other`);
    `DB_PASSWORD=hunter` in an env file stays a secret."""
    if op in ("==", "===", "!=", "!=="):
        return True
    if re.fullmatch(r"[A-Za-z_]+", value) is None:
        return False
    if re.fullmatch(r"[a-z]+(?:_[a-z]+)+", value) or value.lower() == key.lower().split(".")[-1]:
        return True
    if op == ":":
        return after.strip() != "" or re.fullmatch(r"(?:[A-Z][a-z]+){2,}", value) is not None
    spaced = before.rstrip("\"'`@").endswith(" ") and value.islower()
    return op == "=" and (spaced or after.lstrip().startswith((",", ")")))


def _keyword_kind(before: str) -> str:
    """The kind named by the key before a value: password, API key, AWS secret or secret."""
    assignment = ASSIGNMENT.search(before[-120:])
    key = (assignment.group(1) if assignment else before[-60:]).lower()
    if re.search(r"pass|pwd|contrase", key):
        return "password"
    if re.search(r"api_?key", key):
        return "API key"
    return "AWS secret access key" if "aws" in key else "secret"
