"""Private-key blocks, from the BEGIN marker to the END marker or the last line of key material.

detect-secrets flags only the BEGIN line, so redacting its finding would leave the key behind;
it also misses PKCS#8 `BEGIN ENCRYPTED PRIVATE KEY`. A block is one finding spanning lines.
"""

from __future__ import annotations

import re
from itertools import takewhile

from cardvault.guard.finding import SecretFinding
from cardvault.guard.plugins import Kit

_Block = SecretFinding | None
_ENCRYPTED_KEY = re.compile(r"BEGIN ENCRYPTED PRIVATE KEY")  # PKCS#8; not in detect-secrets
_KEY_END = re.compile(r"-{4,5} ?END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}|Private-MAC: *\w+")
_BODY_LINE = re.compile(r"[>\s]*(?:[A-Za-z0-9+/=]*|[A-Za-z][\w-]*: .*)\s*")


def key_blocks(lines: list[str], kit: Kit) -> list[SecretFinding]:
    """Private keys from their BEGIN marker to their END (or their last line of key material)."""
    blocks: list[SecretFinding] = []
    for index, line in enumerate(lines):
        if blocks and index < (blocks[-1].end_line or 0):
            continue
        phrase = next(iter(kit.private_key.analyze_string(line)), None)
        match = re.search(re.escape(phrase), line) if phrase else _ENCRYPTED_KEY.search(line)
        if match is not None:
            start = len(line[: match.start()].rstrip("- "))
            body_from = len(line) - len(line[match.end() :].lstrip("- "))
            block = _key_block(lines, index, start, body_from)
            blocks += [block] if block is not None else []
    return blocks


def _key_block(lines: list[str], index: int, start: int, body_from: int) -> _Block:
    """The key whose header is `lines[index][start:body_from]`; None when no key material."""
    rest = [lines[index][body_from:], *lines[index + 1 :]]
    for offset, text in enumerate(rest):
        end = _KEY_END.search(text)
        chunk = text if end is None else text[: end.start()]
        if not _is_key_body(chunk):
            break
        if end is not None:
            column = end.end() + (body_from if offset == 0 else 0)
            return _key_finding([*rest[:offset], chunk], index, start, index + offset, column)
    if not _is_key_body(rest[0]):
        return None  # a BEGIN line quoted in prose
    body = [rest[0], *takewhile(lambda text: text.strip() and _is_key_body(text), rest[1:])]
    last = index + len(body) - 1  # no END marker: the key runs to its last line of material
    return _key_finding(body, index, start, last, len(lines[last]))


def _is_key_body(text: str) -> bool:
    """Base64 and `Header: value` lines, also as one JSON string with `\\n` escapes."""
    return all(_BODY_LINE.fullmatch(part) for part in text.split("\\n"))


def _key_finding(body: list[str], first: int, start: int, last: int, end: int) -> _Block:
    if sum(len(re.findall(r"[A-Za-z0-9+/]", part)) for part in body) < 40:
        return None
    return SecretFinding("private key", first + 1, start, end, last + 1 if last > first else None)
