"""Entropy in credential context: random-looking tokens on a line whose other words name a
credential (`session key 9fQ2x...`), found with detect-secrets' Shannon entropy.

Context is required, so the limits are lower than detect-secrets' defaults, which miss short
keys (a random 32-character key scores ~4.3, under its 4.5). Tokens with another explanation
are skipped: ids, digests and checksums, data URIs, URL and file paths, public keys.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Any

from cardvault.guard.finding import Span
from cardvault.guard.gate import has_digit
from cardvault.guard.plugins import Kit
from cardvault.guard.words import (
    ASSIGNMENT,
    CREDENTIAL,
    in_vocabulary,
    looks_like_identifier,
    word_spans,
    words,
)

_DIGEST = re.compile(
    r"commit|sha\d*|md5|(?:md5|sha\d+)sum|digest|checksum|hash|fingerprint|rev|revision|oid"
    r"|etag|integrity|gpg|pgp"
)
_CANDIDATE = re.compile(r"[A-Za-z0-9+/_-]{20,}={0,2}")
_BASE64_LIMIT = 3.3  # detect-secrets defaults, 4.5 and 3.0, miss short keys; context is
_HEX_LIMIT = 3.0  # required here, so the limit can be lower
_EXPLAINED_BEFORE = re.compile(  # data URI, digest prefix, SSH public key
    r"(?:data:[\w/+.-]*;base64,|(?:sha\d*|md5|blake2[bs]?)[:=-]"
    r"|(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+) +)$",
    re.I,
)
_CREDENTIAL_QUERY = re.compile(r"[?&;][\w-]*(?:key|token|secret|pass\w*|auth|sig|session)=$", re.I)


def entropy_spans(line: str, kit: Kit) -> list[Span]:
    """Random-looking tokens on a line whose other words name a credential."""
    tokens = [match.span() for match in _CANDIDATE.finditer(line)]
    line_words = word_spans(line)
    credentials = [(s, e) for s, e, word in line_words if CREDENTIAL.fullmatch(word)]
    if not tokens or not credentials:
        return []
    digests = [(s, e) for s, e, word in line_words if _DIGEST.fullmatch(word)]
    in_token = bytearray(len(line))
    for start, end in tokens:
        in_token[start:end] = b"\1" * (end - start)
    labels = [(e, word) for s, e, word in line_words if not in_token[s]]  # words, not other tokens
    label_ends = [e for e, _ in labels]
    spans = []
    for start, end in tokens:
        value = line[start:end]
        if not _outside(credentials, start, end) or _explained(line, start, end):
            continue
        if re.fullmatch(r"[0-9a-fA-F]+", value):
            prior = [word for _, word in labels[: bisect_right(label_ends, start)][-2:]]
            unlabelled = len(value) in (32, 40, 64, 128) and not in_vocabulary(prior, CREDENTIAL)
            if unlabelled or _outside(digests, start, end):
                continue  # a commit id or checksum (MD5, SHA-1, SHA-256, SHA-512 sized)
            if _is_random(value, kit.hex, _HEX_LIMIT):
                spans.append((start, end, "high-entropy secret"))
        elif _is_random(value, kit.base64, _BASE64_LIMIT):
            spans.append((start, end, "high-entropy secret"))
    return spans


def _outside(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """True when one of `spans` lies outside the columns `start:end`."""
    return any(e <= start or s >= end for s, e in spans)


def _is_random(value: str, plugin: Any, limit: float) -> bool:
    """True for a token mixing letters and digits whose Shannon entropy exceeds `limit`."""
    from detect_secrets.filters.heuristic import is_potential_uuid, is_sequential_string

    if not (has_digit(value) and any(c.isalpha() for c in value)):
        return False
    if looks_like_identifier(value) or is_potential_uuid(value) or is_sequential_string(value):
        return False
    return bool(plugin.calculate_shannon_entropy(value) > limit)


_FILE_SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}\b")
_AGE_RECIPIENT = re.compile(r"age1[02-9ac-hj-np-z]{58}")  # an age public key (bech32)
_SLUG_PATH = re.compile(r"[a-z0-9]+(?:[-/_.][a-z0-9]+){3,}")


def _explained(line: str, start: int, end: int) -> bool:
    """True for a digest, data URI, SSH public key, URL or file path, slug, example or id-like
    setting."""
    before = line[max(0, start - 120) : start]
    value = line[start:end]
    if "/" in value and _FILE_SUFFIX.match(line, end):
        return True  # a file path: `memory/cards/s3-listing-stopped-at-1-000.md`
    bare = value.strip("/")  # an absolute path's slug-like parts: `/tmp/pytest-3/popen-gw0/...`
    if _SLUG_PATH.fullmatch(bare) and all(len(p) <= 12 for p in re.split(r"[-/_.]", bare)):
        return True  # lowercase words joined by hyphens or slashes: a slug, not a key
    if line.startswith(("...", "…"), end) or _EXPLAINED_BEFORE.search(before):
        return True
    if re.match(r"sha\d+-", value, re.I) or _AGE_RECIPIENT.fullmatch(value):
        return True
    url = before[max(before.rfind(" "), before.rfind("("), before.rfind('"')) + 1 :]
    if "://" in url and not _CREDENTIAL_QUERY.search(before):
        return True
    assignment = ASSIGNMENT.search(before)
    label = words(assignment.group(1) if assignment else before[-20:])
    if label[-2:] in (["public", "key"], ["pub", "key"], ["public", "keys"]):
        return True  # `public key: age1...`: published on purpose
    return label[-1:] in (["id"], ["ids"], ["name"], ["uuid"])  # `client_id: X`, `--job-id X`
