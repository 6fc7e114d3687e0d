"""Slugs: the file names of cards, made from topics and entry titles."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

MAX_SLUG = 60


def slugify(text: str) -> str:
    """Lowercase-hyphenated ASCII slug ("Cortex CSRF" -> "cortex-csrf"; "card" when no ASCII
    letter or digit is left). A slug is a file name, in git history for good: a secret becomes
    `redacted-<kind>` first, and a bare random token (a key out of context) is left out."""
    from cardvault.guard import looks_random, redact_text

    ascii_text = unicodedata.normalize("NFKD", redact_text(text)).encode("ascii", "ignore").decode()
    kept = [word for word in re.findall(r"[A-Za-z0-9]+", ascii_text) if not looks_random(word)]
    words = [word.lower() for word in kept]
    slug = ""
    for word in words:
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > MAX_SLUG:
            break
        slug = candidate
    return slug or "card"


def unique_slug(base: str, taken: Collection[str]) -> str:
    """`base`, or `base-2`, `base-3`, ... whichever is not in `taken`."""
    if base not in taken:
        return base
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


def tagify(tag: str) -> str:
    """A tag in the vault's form: lowercase words joined by hyphens."""
    return slugify(tag) if tag.strip() else ""
