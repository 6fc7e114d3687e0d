"""The nodes lesson grouping works on: pending lessons, the cards they may join, and the best
score between every two of them.

A lesson may join one of its SHORTLIST closest live cards, or the card it links to. A card that
cites entries is compared through them alone (the pairs the scores are calibrated on), others
through their paragraphs. Cards are not compared with each other here: merge does that.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cardvault.maintain.asking import card_keys
from cardvault.maintain.evidence import Evidence, Telling, Vocabulary
from cardvault.maintain.lessons import Lesson, entry_telling, whole_text
from cardvault.maintain.similarity import card_text
from cardvault.maintain.state import CardFile, VaultState
from cardvault.maintain.text import blocks

if TYPE_CHECKING:
    import numpy as np

SHORTLIST = 5
CARD_PARAGRAPHS = 8
NEVER = -math.inf


@dataclass(frozen=True)
class Node:
    """A lesson to place, or a card one may join; `rows` are its tellings in the evidence."""

    lesson: Lesson | None = None
    card: CardFile | None = None
    rows: tuple[int, ...] = ()
    keys: frozenset[str] = frozenset()  # what decisions name it by
    paragraphs: int = 0  # for a card: how many of its rows are its own paragraphs

    @property
    def name(self) -> str:
        """The lesson's source ref, or the card's slug."""
        if self.lesson is not None:
            return self.lesson.ref
        assert self.card is not None
        return self.card.slug

    @property
    def text(self) -> str:
        """The lesson's text, or the card's body."""
        if self.lesson is not None:
            return self.lesson.text
        assert self.card is not None
        return self.card.card.body


def vocabulary(state: VaultState) -> Vocabulary:
    """Term rarity over every card and log entry of the vault."""
    documents = [c.card.body for c in state.cards]
    documents += [f"{e.title}\n{e.body}" for e in state.entries]
    return Vocabulary(documents)


def shortlist(state: VaultState, lessons: list[Lesson]) -> tuple[list[CardFile], np.ndarray]:
    """The cards some lesson is near or links to, and every lesson's closeness to each: the
    larger cosine with the card's text, and of the whole entry with those the card cites."""
    import numpy as np

    live = state.live
    chosen: dict[Path, CardFile] = {}
    if live:
        closeness = _closeness(state, lessons, live)
        floor = state.constants.shortlist_floor
        for row in closeness:
            for i in np.argsort(-row)[:SHORTLIST]:
                if row[i] >= floor:
                    chosen[live[int(i)].path] = live[int(i)]
    for lesson in lessons:
        linked = state.by_slug(lesson.target, archived=True) if lesson.target else None
        if linked is not None:
            chosen[linked.path] = linked
    cards = sorted(chosen.values(), key=lambda c: (c.archived, str(c.path)))
    if not cards:
        return [], np.zeros((len(lessons), 0))
    return cards, _closeness(state, lessons, cards)


def _closeness(state: VaultState, lessons: list[Lesson], cards: list[CardFile]) -> np.ndarray:
    import numpy as np

    embeddings = state.require_embeddings()
    queries = embeddings.vectors([lesson.query for lesson in lessons])
    found = queries @ embeddings.vectors([card_text(c.card) for c in cards]).T
    entries = state.entries_by_ref
    cited = [(n, entries[s]) for n, c in enumerate(cards) for s in c.card.sources if s in entries]
    if cited:
        wholes = embeddings.vectors([lesson.whole for lesson in lessons])
        theirs = embeddings.vectors([whole_text(entry) for _, entry in cited])
        scores = wholes @ theirs.T
        for column, (n, _) in enumerate(cited):
            found[:, n] = np.maximum(found[:, n], scores[:, column])
    return found


def build_nodes(
    state: VaultState, lessons: list[Lesson], cards: list[CardFile]
) -> tuple[list[Node], list[Telling]]:
    tellings: list[Telling] = []
    nodes: list[Node] = []
    for lesson in lessons:
        nodes.append(Node(lesson=lesson, rows=(len(tellings),), keys=frozenset({lesson.ref})))
        tellings.append(lesson.telling)
    entries = state.entries_by_ref
    for card in cards:
        # a card that cites entries is compared with them, the pairs the scores are calibrated
        # on (its paragraphs score look-alikes too high); a card that cites none, with those
        own = [entry_telling(entries[s]) for s in card.card.sources if s in entries]
        paragraphs = 0
        if not own:
            own = card_tellings(state, card)
            paragraphs = len(own)
        rows = tuple(range(len(tellings), len(tellings) + len(own)))
        tellings.extend(own)
        nodes.append(Node(card=card, rows=rows, keys=card_keys(state, card), paragraphs=paragraphs))
    return nodes, tellings


def card_tellings(state: VaultState, card: CardFile) -> list[Telling]:
    """A card's first CARD_PARAGRAPHS paragraphs as tellings: a long card counts like a few
    entries, not one text sharing every word."""
    rel = state.vault.rel(card.path)
    topic = card.card.topic
    paragraphs = [b.text for b in blocks(card.card.body) if b.kind in ("paragraph", "item")]
    found = [Telling(rel, text, f"{topic}\n\n{text}") for text in paragraphs[:CARD_PARAGRAPHS]]
    return found or [Telling(rel, topic, card_text(card.card))]


def node_links(
    nodes: list[Node], evidence: Evidence, closeness: np.ndarray
) -> tuple[np.ndarray, dict[tuple[int, int], tuple[int, int]]]:
    """Node × node: the best score between their tellings (never card to card), and which two
    tellings gave it."""
    import numpy as np

    count = len(nodes)
    links = np.full((count, count), NEVER)
    best: dict[tuple[int, int], tuple[int, int]] = {}
    lessons = [n for n, node in enumerate(nodes) if node.lesson is not None]
    rows = [nodes[n].rows[0] for n in lessons]
    if rows:
        links[np.ix_(lessons, lessons)] = evidence.scores(rows, rows)
    cards = [n for n, node in enumerate(nodes) if node.card is not None]
    for column, n in enumerate(cards):
        near = [m for m in lessons if closeness[m, column] >= evidence.constants.link_floor]
        if not near:
            continue
        block = evidence.scores([nodes[m].rows[0] for m in near], list(nodes[n].rows))
        top = block.argmax(axis=1)
        for position, m in enumerate(near):
            links[m, n] = links[n, m] = block[position, top[position]]
            best[(m, n)] = (nodes[m].rows[0], nodes[n].rows[int(top[position])])
    np.fill_diagonal(links, NEVER)
    return links, best
