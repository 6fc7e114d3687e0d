"""The rules one card keeps on its own: schema, keys given once, file name, line endings, size,
a body.

Pure functions of one card and the vault's settings, so `check` keeps their results in the
catalog under the card's digest and works them out again only for cards that changed.
"""

from __future__ import annotations

import re

from cardvault.vault.card import Card
from cardvault.vault.config import VaultConfig
from cardvault.vault.fields import IMPORTED
from cardvault.vault.layout import SLUG_RE
from cardvault.vault.read import CardFile
from cardvault.vault.schema import schema_problems

#: (line, severity, code, message): a finding without its path, as the catalog keeps it.
Found = tuple[int, str, str, str]
#: The catalog fact the results are kept under (bump when the rules change).
FACT = "check.card@2"
_LOG_CITATION = re.compile(r"^memory/\d{4}-\d{2}-\d{2}\.md#")


def card_findings(card: CardFile, config: VaultConfig) -> list[Found]:
    """Every breach of a single-card rule in `card`."""
    meta = card.card
    found: list[Found] = [
        (meta.key_line(key), "error", "schema", message)
        for key, message in schema_problems(meta.meta, config.categories)
    ]
    for line, key, first in meta.repeated_keys():
        message = f"'{key}' is given again (line {first} gave it first); YAML keeps this one"
        found.append((line, "warning", "repeated-key", message))
    if not SLUG_RE.match(card.path.stem):
        message = f"file name '{card.path.name}' is not a lowercase-hyphenated slug"
        found.append((1, "warning", "slug", message))
    if meta.newline == "\r\n":
        found.append((1, "warning", "crlf", "CRLF line endings (--fix converts to LF)"))
    budget = config.card_token_budget
    if card.tokens > budget:
        message = f"card is {card.tokens} tokens, over the budget of {budget}"
        found.append((meta.body_line, "warning", "card-budget", message))
    if not meta.body.strip():
        found.append((meta.body_line, "warning", "empty-body", "card has no body"))
    return found


def distilled(card: Card) -> bool:
    """Whether maintenance wrote the card from log entries (it cites only log entries in
    `sources` and was not imported), rather than a person or an import (a curated card)."""
    sources = card.sources
    imported = card.meta.get(IMPORTED) is not None
    return bool(sources) and not imported and all(_LOG_CITATION.match(s) for s in sources)


def secret_findings(text: str) -> list[Found]:
    """A finding for every secret the guard sees in a file's text (never the value)."""
    from cardvault import guard

    message = "possible secret: {} (value not shown); remove it from the file"
    return [
        (found.line, "error", "secret", message.format(found.kind))
        for found in guard.scan_text(text)
    ]
