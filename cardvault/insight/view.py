"""What `cardvault view` shows, as plain values, from one read of the vault: every card (rendered
inert), the graph, the stats and the pending review queue.

Each part comes from the service that owns it (insight.graph, insight.stats, vault.decisions,
insight.card_html): nothing is computed a second way here. A card's HTML is kept in the catalog
under the card file's digest (`vault.read.remembered`), so only changed cards render again. The
page itself is insight/view_html.py's.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from cardvault.errors import CardvaultError
from cardvault.insight.card_html import card_html
from cardvault.insight.graph import Graph, build_graph
from cardvault.insight.listing import CardRow
from cardvault.insight.stats import VaultStats, vault_stats
from cardvault.vault.decisions import ReviewItem, pending_items, read_queue
from cardvault.vault.fields import STALE
from cardvault.vault.layout import Vault
from cardvault.vault.read import CardFile, read_vault, remembered

#: The version of card_html's output kept in the catalog (bump when it changes).
HTML_VERSION = 1
#: Longest member text shown for a review question (the rest is in the file it names).
MEMBER_TEXT_LIMIT = 300


@dataclass(frozen=True)
class ViewCard(CardRow):
    """One card as the page shows it: its `list` row (the category "(none)" when it has none),
    and its body rendered inert (`html`, insight/card_html.py)."""

    aliases: tuple[str, ...]
    archived: bool
    stale: str | None  # why the card is stale, None when it is not
    html: str

    @property
    def promoted(self) -> bool:
        return self.status == "promoted"


@dataclass(frozen=True)
class ViewMember:
    """What a review question is about: a log entry or a card, where it is, what it says."""

    where: str  # the log entry's source ref, or the card's path
    card: str | None  # the card holding it now, when that is another file
    text: str


@dataclass(frozen=True)
class ViewQuestion:
    """One pending review decision: what it asks, about what, on what evidence, how to answer."""

    id: str
    kind: str
    question: str
    asked: str
    members: tuple[ViewMember, ...]
    evidence: str  # why it was asked, in words
    answers: tuple[tuple[str, str], ...]  # (command, what it does): accept, then reject
    also: str  # another way to answer, in words ("" when none)


@dataclass(frozen=True)
class VaultView:
    """Everything the page shows."""

    name: str  # the vault folder's name
    generated: str  # ISO date the page was made
    cards: tuple[ViewCard, ...]  # live first, then archived; slug order in each
    #: Over the same cards. Links name cards by slug: where two cards share a slug (the same
    #: file name in two folders), links go to and from the first, as `[[slug]]` resolves.
    graph: Graph
    stats: VaultStats
    questions: tuple[ViewQuestion, ...]
    problems: tuple[str, ...]  # files that could not be read (as `stats` lists them)
    declared: tuple[str, ...] = ()  # the categories cardvault.toml names, in its order

    def summary(self) -> dict[str, Any]:
        """Counts for `view --json`."""
        return {
            "cards": sum(1 for c in self.cards if not c.archived),
            "archived": sum(1 for c in self.cards if c.archived),
            "stale": sum(1 for c in self.cards if c.stale),
            "links": len(self.graph.links),
            "review_pending": len(self.questions),
            "problems": list(self.problems),
        }


def vault_view(vault: Vault, today: dt.date) -> VaultView:
    """The view of `vault` as of `today` (see the module docstring)."""
    snapshot = read_vault(vault)
    stats = vault_stats(vault, snapshot)
    ordered = sorted(snapshot.cards, key=lambda c: (c.archived, c.slug, snapshot.rel(c.path)))
    cutoff = today - dt.timedelta(days=vault.config.archive_days)
    files = {snapshot.rel(c.path): c for c in ordered}
    bodies = remembered(
        snapshot, html_fact(), {r: c.card.body for r, c in files.items()}, card_html
    )
    return VaultView(
        name=vault.root.name,
        generated=today.isoformat(),
        cards=tuple(_view_card(rel, c, cutoff, bodies[rel]) for rel, c in files.items()),
        graph=build_graph(ordered, snapshot.names),
        stats=stats,
        questions=_questions(vault),
        problems=stats.problems,
        declared=tuple(vault.config.categories),
    )


def html_fact() -> str:
    """The catalog fact a card's rendered body is kept under (its digest is the key), named for
    the renderer: bump HTML_VERSION when insight/card_html.py renders differently."""
    from markdown_it import __version__ as markdown_it_version

    return f"view.html@{HTML_VERSION}:{markdown_it_version}"


def _view_card(rel: str, file: CardFile, cutoff: dt.date, html: str) -> ViewCard:
    card = file.card
    archived = file.archived or card.status == "archived"
    return ViewCard.of(
        rel, file, category=card.category or "(none)", aliases=card.aliases, archived=archived,
        stale=None if archived else staleness(file, cutoff), html=html,
    )  # fmt: skip


def staleness(file: CardFile, cutoff: dt.date) -> str | None:
    """Why a live card is stale (its own `stale:` field, else untouched since before `cutoff`
    and not promoted: the next maintain archives it), or None."""
    from cardvault.maintain.archive import last_activity

    marked = file.card.meta.get(STALE)
    if marked not in (None, False, "", "false", "no"):
        return "marked stale" if marked is True else f"marked stale: {marked}"
    if file.card.status == "promoted":
        return None
    last = last_activity(file.card)
    if last is not None and last < cutoff:
        return f"untouched since {last.isoformat()}: the next maintain archives it"
    return None


def _questions(vault: Vault) -> tuple[ViewQuestion, ...]:
    try:
        items = pending_items(read_queue(vault.root))
    except CardvaultError:  # vault_stats has listed it among the problems
        return ()
    return tuple(_question(item) for item in items)


def _question(item: ReviewItem) -> ViewQuestion:
    """A pending item as `cardvault review` words it (review/words.py)."""
    from cardvault.review import words

    members = tuple(
        ViewMember(
            where=m.source or m.path,
            card=m.card if m.card and m.card != m.path else None,
            text=_shortened(m.text),
        )
        for m in item.members
    )
    return ViewQuestion(
        id=item.id,
        kind=item.kind,
        question=words.kind_of(item).question,
        asked=item.asked,
        members=members,
        evidence=words.evidence(item),
        answers=words.answers(item),
        also=words.kind_of(item).also,
    )


def _shortened(text: str) -> str:
    return text if len(text) <= MEMBER_TEXT_LIMIT else text[: MEMBER_TEXT_LIMIT - 1] + "…"
