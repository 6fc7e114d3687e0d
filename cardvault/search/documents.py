"""What the index stores for each vault file: cards and archived cards (one document each) and
daily logs (one document per `## HH:MM — Title` entry).

Files are listed by the vault's one walker and parsed by the one read path
(`vault.read.read_files`); this module only turns a parsed card or log into documents.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from cardvault.vault.card import as_date
from cardvault.vault.fields import CREATED, LAST_USED, STALE, UPDATED
from cardvault.vault.layout import FileStat

if TYPE_CHECKING:  # parsed by the read path, which imports them
    from cardvault.vault.card import Card
    from cardvault.vault.daily import LogEntry


class Dates(NamedTuple):
    """What a card's age is told from, as the index stores it: the ISO day it was edited
    (`updated`, else `created`) and last used, and what `verify`'s stale mark says
    (`2026-12-01: <reason>`, `?` for a mark without its day; None: unmarked)."""

    edited: str | None = None
    used: str | None = None
    stale: str | None = None

    @classmethod
    def of(cls, meta: Mapping[str, Any]) -> Dates:
        """The dates a card's frontmatter gives."""
        edited = as_date(meta.get(UPDATED)) or as_date(meta.get(CREATED))
        used = as_date(meta.get(LAST_USED))
        mark, stale = meta.get(STALE), None
        if isinstance(mark, dict):
            since = as_date(mark.get("date")) or "?"
            stale = f"{since}: {' '.join(str(mark.get('reason', '')).split())}"
        return cls(
            edited.isoformat() if edited else None, used.isoformat() if used else None, stale
        )

    def facts(self, today: dt.date) -> dict[str, object]:
        """What is said of the card's age on `today`: in words (`age`: `updated 40 days ago,
        last used 3 days ago`, then for a stale card `; STALE since 2026-12-01: <reason>`), in
        days since it was edited (`age_days`, when dated), and `stale: True` when marked."""
        edited = dt.date.fromisoformat(self.edited) if self.edited else None
        parts = [f"updated {days_ago(edited, today)}" if edited else "never dated"]
        if self.used:
            parts.append(f"last used {days_ago(dt.date.fromisoformat(self.used), today)}")
        if self.stale is not None:
            parts[-1] += f"; STALE since {self.stale}"
        facts: dict[str, object] = {"age": ", ".join(parts)}
        if edited is not None:
            facts["age_days"] = max((today - edited).days, 0)
        if self.stale is not None:
            facts[STALE] = True
        return facts


def days_ago(then: dt.date, today: dt.date) -> str:
    """`today`, `yesterday`, `12 days ago` (a future date reads as today)."""
    days = max((today - then).days, 0)
    return "today" if days == 0 else "yesterday" if days == 1 else f"{days} days ago"


@dataclass(frozen=True)
class Document:
    """One searchable unit and the text its vector is computed from."""

    key: str
    kind: str
    slug: str
    topic: str
    category: str
    tags: tuple[str, ...]
    status: str
    entry: str | None
    line: int | None
    body: str
    #: A log entry that maintenance has yet to distill (it carries a lesson signal or a card link).
    pending: bool = False
    #: The log entries a card cites in `sources` (once cited, an entry is no longer fresh).
    cites: tuple[str, ...] = ()
    dates: Dates | None = None  # a card's (a log entry has none)

    @property
    def embed_text(self) -> str:
        """Topic, body and tags: what the embedding model reads (long bodies in passages)."""
        return embed_text(self.topic, self.body, self.tags)

    @property
    def text_hash(self) -> str:
        """Content key of the document's text (its passages are split again when it changes)."""
        return text_key(self.embed_text)


def embed_text(topic: str, body: str, tags: tuple[str, ...]) -> str:
    """The text the model reads for a topic, a body (or a passage of it) and tags."""
    suffix = f"\n\nTags: {', '.join(tags)}" if tags else ""
    return f"{topic}\n\n{body.strip()}{suffix}"


def text_key(text: str) -> str:
    """Content key of a text: its vector is stored and found under this digest."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def card_documents(source: FileStat, card: Card) -> list[Document]:
    """The one document of a card (parsed by the read path)."""
    return [
        Document(
            key=source.rel, kind=source.kind, slug=card.slug, topic=card.topic,
            category=card.category, tags=card.tags, status=card.status, entry=None, line=None,
            body=card.body, cites=tuple(card.sources), dates=Dates.of(card.meta),
        )
    ]  # fmt: skip


def log_documents(source: FileStat, entries: Sequence[LogEntry]) -> list[Document]:
    """One document per entry of a daily log (parsed by the read path), keyed as a card's
    `sources` cites the entry (`LogEntry.ref`: `memory/2026-03-19.md#14:30`)."""
    stem = source.rel.rsplit("/", 1)[-1].removesuffix(".md")
    documents = []
    for entry in entries:
        ref = entry.ref
        documents.append(
            Document(
                key=ref, kind="log", slug=f"{stem}#{ref.partition('#')[2]}", topic=entry.title,
                category="", tags=(), status="active", entry=f"{entry.time} {entry.title}",
                line=entry.line, body=entry.body,
                pending=entry.has_signal or bool(entry.card_links),
            )
        )  # fmt: skip
    return documents
