"""The card listing behind `cardvault list`: filter and summarise cards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Self

from cardvault.vault.card import Card
from cardvault.vault.fields import CATEGORY, STATUS, TAGS, TOPIC, UPDATED
from cardvault.vault.layout import Vault
from cardvault.vault.read import CardFile, read_vault


@dataclass(frozen=True)
class CardRow:
    """One card as `list` shows it."""

    #: The columns of `list`'s table, each an attribute (`cells`).
    COLUMNS: ClassVar[tuple[str, ...]] = ("slug", CATEGORY, TAGS, UPDATED, "tokens", STATUS)

    slug: str
    path: str
    topic: str
    category: str
    tags: tuple[str, ...]
    status: str
    updated: str
    tokens: int

    @classmethod
    def of(cls, rel: str, file: CardFile, **more: Any) -> Self:
        """The row of the card in `file`; `more` sets a subclass's fields or overrides."""
        card = file.card
        updated = card.date(UPDATED)
        row: dict[str, Any] = {
            "slug": card.slug, "path": rel, TOPIC: card.topic, CATEGORY: card.category,
            TAGS: card.tags, STATUS: card.status, "tokens": file.tokens,
            UPDATED: updated.isoformat() if updated else "",
        }  # fmt: skip
        return cls(**(row | more))

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (explicit: `dataclasses.asdict` costs 50 µs a row)."""
        return {
            "slug": self.slug, "path": self.path, TOPIC: self.topic,
            CATEGORY: self.category, TAGS: list(self.tags), STATUS: self.status,
            UPDATED: self.updated, "tokens": self.tokens,
        }  # fmt: skip

    def cells(self) -> tuple[object, ...]:
        """The row under COLUMNS, the tags joined by commas."""
        return tuple(", ".join(self.tags) if c == TAGS else getattr(self, c) for c in self.COLUMNS)


def matches(card: Card, category: str | None, tag: str | None, status: str | None) -> bool:
    """Whether a card passes the category/tag/status filters (None means any)."""
    return (
        (category is None or card.category == category)
        and (tag is None or tag in card.tags)
        and (status is None or card.status == status)
    )


def list_cards(
    vault: Vault,
    category: str | None = None,
    tag: str | None = None,
    status: str | None = None,
    archived: bool = False,
) -> tuple[list[CardRow], list[str]]:
    """Cards passing the filters by category then slug, and the files not read."""
    snapshot = read_vault(vault)
    rows = [
        CardRow.of(snapshot.rel(file.path), file)
        for file in (snapshot.cards if archived else snapshot.live)
        if matches(file.card, category, tag, status)
    ]
    rows.sort(key=lambda r: (r.category, r.slug))
    folders = ("memory/cards/", "memory/archive/") if archived else ("memory/cards/",)
    errors = [str(p) for p in snapshot.problems if p.path.startswith(folders)]
    return rows, errors
