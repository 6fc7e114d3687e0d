"""Where pending lessons go: certain groups, the card each folds into, and the questions left.

The nodes are the pending lessons and the live cards they may join: each lesson's
SHORTLIST nearest cards (cosine of its title and lesson lines with the card's indexed text).
A card's tellings are its body and the entries it cites, so a lesson is compared with every way
the card's lesson was told before; its link to the card is its best score with any of them.

1. Certain groups: complete-linkage clustering at evidence.CERTAIN (every two members certainly
   the same lesson), at most one card per group. Never together: lessons that contradict each
   other or the card, a "never"/"don't" lesson with one that does not say so, lessons linked to
   different cards, members a person said are different. Always together: a lesson and the
   card its `→ card:` link names, and members a person said are the same lesson. A lesson
   whose cosine with a card reaches `distill.threshold` (the rule measured on hand-written
   cards, docs/benchmarks.md) joins it too, unless they contradict.
2. Questions: average-linkage clustering of the certain groups at evidence.REVIEW, at most
   MAX_ASK nodes to a question: each proposal that joins groups and holds a new lesson is one
   "same-lesson" question. Two nodes kept apart only because they contradict, and close enough
   to ask about, make a "contradiction" question.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardvault.maintain.asking import card_keys
from cardvault.maintain.contradict import Contradiction, contradict
from cardvault.maintain.evidence import CERTAIN, REVIEW, Evidence, Telling, Vocabulary
from cardvault.maintain.lessons import Lesson, entry_telling, whole_text
from cardvault.maintain.linkage import AVERAGE, COMPLETE, agglomerate
from cardvault.maintain.similarity import card_text
from cardvault.maintain.state import CardFile, VaultState
from cardvault.maintain.text import blocks
from cardvault.vault.config import VaultConfig
from cardvault.vault.decisions import ACCEPTED, apart_pairs

if TYPE_CHECKING:
    import numpy as np

SHORTLIST = 5
SHORTLIST_FLOOR = 0.25
LINK_FLOOR = 0.30
CARD_PARAGRAPHS = 8
#: A lesson and a card are asked about only when this close (cosine of lesson and card text).
CARD_ASK_FLOOR = 0.55
MAX_ASK = 6
ALWAYS = 1e6
NEVER = -math.inf


@dataclass(frozen=True)
class Node:
    """A lesson to place, or a card one may join; `rows` are its tellings in the evidence."""

    lesson: Lesson | None = None
    card: CardFile | None = None
    rows: tuple[int, ...] = ()
    keys: frozenset[str] = frozenset()  # what decisions name it by
    paragraphs: int = 0  # for a card: how many of its rows are its own paragraphs


@dataclass(frozen=True)
class Question:
    """A decision for the review queue: which groups it is about, and why it is asked."""

    kind: str  # "same-lesson" | "contradiction"
    groups: tuple[int, ...]
    evidence: dict[str, Any]


@dataclass
class Placement:
    """The nodes, the certain groups (node indices, at most one card each), the questions, and
    the lessons kept from a card they contradict."""

    nodes: list[Node]
    groups: list[list[int]]
    cards: list[CardFile] = field(default_factory=list)  # the shortlist, in closeness's columns
    closeness: Any = None  # lessons × shortlisted cards: cosine of lesson query and card text
    vocabulary: Vocabulary | None = None
    questions: list[Question] = field(default_factory=list)
    conflicts: list[tuple[int, CardFile, Contradiction]] = field(default_factory=list)

    def card_of(self, group: int) -> CardFile | None:
        """The existing card a group folds into (None: a new card)."""
        return next((self.nodes[n].card for n in self.groups[group] if self.nodes[n].card), None)

    def neighbours(self, group: int) -> list[tuple[CardFile, float]]:
        """The shortlisted cards nearest the group's lessons (mean cosine), nearest first."""
        rows = [n for n in self.groups[group] if self.nodes[n].lesson is not None]
        if not rows or not self.cards:
            return []
        mean = self.closeness[rows].mean(axis=0)
        order = sorted(range(len(self.cards)), key=lambda c: (-float(mean[c]), self.cards[c].slug))
        return [(self.cards[c], float(mean[c])) for c in order]

    def lessons_of(self, group: int) -> list[Lesson]:
        """The pending lessons of a group, oldest first."""
        found = [self.nodes[n].lesson for n in self.groups[group]]
        return [lesson for lesson in found if lesson is not None]


def place(state: VaultState, cfg: VaultConfig, lessons: list[Lesson]) -> Placement:
    """Decide where every lesson goes (see the module docstring)."""
    embeddings = state.require_embeddings()
    cards, closeness = shortlist(state, lessons)
    nodes, tellings = _nodes(state, lessons, cards)
    words = vocabulary(state)
    evidence = Evidence(tellings, embeddings, words)
    links, best = _links(nodes, evidence, closeness)
    review, auto, contradictions = _constraints(state, cfg, nodes, evidence, links, closeness)
    for m, n in _polarity_differs(nodes, evidence, best):
        auto[m, n] = auto[n, m] = NEVER
    groups = agglomerate(auto, CERTAIN, COMPLETE, allowed=lambda a, b: _one_card(nodes, a, b))
    placement = Placement(nodes, groups, cards, closeness, words)
    proposals = agglomerate(
        review, REVIEW, AVERAGE, start=groups, allowed=lambda a, b: len(a) + len(b) <= MAX_ASK
    )
    _ask_same(placement, proposals, review, best, evidence)
    _ask_contradictions(placement, contradictions, links)
    return placement


def vocabulary(state: VaultState) -> Vocabulary:
    """Term rarity over every card and log entry of the vault."""
    documents = [c.card.body for c in state.cards]
    documents += [f"{e.title}\n{e.body}" for e in state.entries]
    return Vocabulary(documents)


def shortlist(state: VaultState, lessons: list[Lesson]) -> tuple[list[CardFile], np.ndarray]:
    """The cards some lesson is near, and every lesson's closeness to each of them.

    Closeness is the larger of two cosines: the lesson's title and lines with the card's text,
    and the whole entry with the entries the card cites (vectors the search index already
    holds). A lesson's SHORTLIST closest live cards at ≥ SHORTLIST_FLOOR are taken, and any card
    a lesson links to (live or archived)."""
    import numpy as np

    live = state.live
    chosen: dict[Path, CardFile] = {}
    if live:
        closeness = _closeness(state, lessons, live)
        for row in closeness:
            for i in np.argsort(-row)[:SHORTLIST]:
                if row[i] >= SHORTLIST_FLOOR:
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
    entries = {entry.ref: entry for entry in state.entries}
    cited = [(n, entries[s]) for n, c in enumerate(cards) for s in c.card.sources if s in entries]
    if cited:
        wholes = embeddings.vectors([lesson.whole for lesson in lessons])
        theirs = embeddings.vectors([whole_text(entry) for _, entry in cited])
        scores = wholes @ theirs.T
        for column, (n, _) in enumerate(cited):
            found[:, n] = np.maximum(found[:, n], scores[:, column])
    return found


def _nodes(
    state: VaultState, lessons: list[Lesson], cards: list[CardFile]
) -> tuple[list[Node], list[Telling]]:
    tellings: list[Telling] = []
    nodes: list[Node] = []
    for lesson in lessons:
        nodes.append(Node(lesson=lesson, rows=(len(tellings),), keys=frozenset({lesson.ref})))
        tellings.append(lesson.telling)
    entries = {entry.ref: entry for entry in state.entries}
    for card in cards:
        own = card_tellings(state, card)
        paragraphs = len(own)
        own += [entry_telling(entries[s]) for s in card.card.sources if s in entries]
        rows = tuple(range(len(tellings), len(tellings) + len(own)))
        tellings.extend(own)
        nodes.append(Node(card=card, rows=rows, keys=card_keys(state, card), paragraphs=paragraphs))
    return nodes, tellings


def card_tellings(state: VaultState, card: CardFile) -> list[Telling]:
    """A card's body as tellings of its own: each paragraph (or list item) with the card's
    whole text, at most CARD_PARAGRAPHS of them, so a long card is not one long telling."""
    whole = card_text(card.card)
    rel = state.vault.rel(card.path)
    paragraphs = [b.text for b in blocks(card.card.body) if b.kind in ("paragraph", "item")]
    return [Telling(rel, text, whole) for text in paragraphs[:CARD_PARAGRAPHS]] or [
        Telling(rel, card.card.topic, whole)
    ]


def _links(
    nodes: list[Node], evidence: Evidence, closeness: np.ndarray
) -> tuple[np.ndarray, dict[tuple[int, int], tuple[int, int]]]:
    """Node × node: the best score between their tellings (cards never link to cards; a lesson
    links to the cards it is at least LINK_FLOOR close to), and which two tellings gave it."""
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
        near = [m for m in lessons if closeness[m, column] >= LINK_FLOOR]
        if not near:
            continue
        block = evidence.scores([nodes[m].rows[0] for m in near], list(nodes[n].rows))
        top = block.argmax(axis=1)
        for position, m in enumerate(near):
            links[m, n] = links[n, m] = block[position, top[position]]
            best[(m, n)] = (nodes[m].rows[0], nodes[n].rows[int(top[position])])
    np.fill_diagonal(links, NEVER)
    return links, best


def _constraints(
    state: VaultState,
    cfg: VaultConfig,
    nodes: list[Node],
    evidence: Evidence,
    links: np.ndarray,
    closeness: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, dict[tuple[int, int], Contradiction]]:
    """The review matrix (never-together pairs removed), the certain matrix (only what may be
    joined without asking, always-together pairs added), and the contradicting node pairs."""
    import numpy as np

    review = links.copy()
    contradictions = _contradictions(nodes, evidence, closeness)
    never = _never(state, nodes) | set(contradictions)
    for i, j in never:
        review[i, j] = review[j, i] = NEVER
    auto = np.where(review >= CERTAIN, review, NEVER)
    lesson_nodes = [n for n, node in enumerate(nodes) if node.lesson is not None]
    for i, j in _always(state, cfg, nodes, closeness) - never:
        auto[i, j] = auto[j, i] = ALWAYS
    cards = [n for n, node in enumerate(nodes) if node.card is not None]
    plain = np.array([len(nodes[n].rows) == nodes[n].paragraphs for n in cards], dtype=bool)
    far = (closeness < CARD_ASK_FLOOR) & plain[None, :]
    sub = review[np.ix_(lesson_nodes, cards)]
    review[np.ix_(lesson_nodes, cards)] = np.where(far, NEVER, sub)
    review[np.ix_(cards, lesson_nodes)] = review[np.ix_(lesson_nodes, cards)].T
    return review, auto, contradictions


def _polarity_differs(
    nodes: list[Node], evidence: Evidence, best: dict[tuple[int, int], tuple[int, int]]
) -> list[tuple[int, int]]:
    """Node pairs where one side advises against ("never", "don't") and the other does not:
    lessons, and a lesson with the card telling it scored best against."""
    import numpy as np

    lessons = [n for n, node in enumerate(nodes) if node.lesson is not None]
    polar = evidence.negated[[nodes[n].rows[0] for n in lessons]]
    rows, columns = np.nonzero(polar[:, None] != polar[None, :])
    found = [(lessons[int(i)], lessons[int(j)]) for i, j in zip(rows, columns, strict=True)]
    found += [pair for pair, (a, b) in best.items() if evidence.negated[a] != evidence.negated[b]]
    return found


def _contradictions(
    nodes: list[Node], evidence: Evidence, closeness: np.ndarray
) -> dict[tuple[int, int], Contradiction]:
    """Contradicting lessons (among themselves, and with the shortlisted cards near them)."""
    found: dict[tuple[int, int], Contradiction] = {}
    lesson_nodes = {nodes[n].rows[0]: n for n, node in enumerate(nodes) if node.lesson}
    for (a, b), claim in evidence.contradicting(list(lesson_nodes)).items():
        found[(lesson_nodes[a], lesson_nodes[b])] = claim
    cards = [n for n, node in enumerate(nodes) if node.card is not None]
    for m, n in _close_pairs(closeness, SHORTLIST_FLOOR, cards):
        lesson, card = nodes[m].lesson, nodes[n].card
        assert lesson is not None and card is not None
        against = contradict(card.card.body, lesson.text)
        if against is not None:
            found[(min(m, n), max(m, n))] = against
    return found


def _close_pairs(closeness: np.ndarray, floor: float, cards: list[int]) -> list[tuple[int, int]]:
    """(lesson node, card node) for every lesson-card cosine at or above `floor`."""
    import numpy as np

    rows, columns = np.nonzero(closeness >= floor)
    return [(int(m), cards[int(c)]) for m, c in zip(rows, columns, strict=True)]


def _never(state: VaultState, nodes: list[Node]) -> set[tuple[int, int]]:
    """Pairs a person kept apart, and lessons linked to different cards (or to another card)."""
    found: set[tuple[int, int]] = set()
    holders: dict[str, list[int]] = {}
    for n, node in enumerate(nodes):
        for key in node.keys:
            holders.setdefault(key, []).append(n)
    for pair in apart_pairs(state.review_items):
        left, right = sorted(pair)
        for i in holders.get(left, ()):
            found.update((min(i, j), max(i, j)) for j in holders.get(right, ()) if i != j)
    for m, node in enumerate(nodes):
        if node.lesson is None or not node.lesson.target:
            continue
        linked = state.by_slug(node.lesson.target, archived=True)
        for n, other in enumerate(nodes):
            if other.lesson is not None:
                elsewhere = bool(other.lesson.target) and other.lesson.target != node.lesson.target
            else:
                elsewhere = other.card is not None and (
                    linked is None or linked.path != other.card.path
                )
            if elsewhere:
                found.add((min(m, n), max(m, n)))
    return found


def _always(
    state: VaultState, cfg: VaultConfig, nodes: list[Node], closeness: np.ndarray
) -> set[tuple[int, int]]:
    """A lesson and the card it links to, or is close enough to by the card rule; members a
    person said are one lesson."""
    cards = [n for n, node in enumerate(nodes) if node.card is not None]
    plain = {n for n in cards if len(nodes[n].rows) == nodes[n].paragraphs}
    close = _close_pairs(closeness, cfg.distill_threshold, cards)
    found = {(m, n) for m, n in close if n in plain}
    holders: dict[str, list[int]] = {}
    for n, node in enumerate(nodes):
        for key in node.keys:
            holders.setdefault(key, []).append(n)
    together = _accepted_together(state)
    for m, node in enumerate(nodes):
        lesson = node.lesson
        if lesson is None:
            continue
        linked = state.by_slug(lesson.target, archived=True) if lesson.target else None
        for n in cards:
            if linked is not None and linked == nodes[n].card:
                found.add((m, n))
        for key in together.get(lesson.ref, ()):
            found.update((min(m, n), max(m, n)) for n in holders.get(key, ()) if n != m)
    return found


def _accepted_together(state: VaultState) -> dict[str, set[str]]:
    """For each member key of an accepted same-lesson or duplicate item, the keys it joins."""
    found: dict[str, set[str]] = {}
    for item in state.review_items:
        if item.status == ACCEPTED and item.kind in ("same-lesson", "duplicate"):
            chosen = set(item.chosen or item.keys)
            for key in chosen:
                found.setdefault(key, set()).update(chosen - {key})
    return found


def _one_card(nodes: list[Node], left: list[int], right: list[int]) -> bool:
    return sum(1 for n in left + right if nodes[n].card is not None) <= 1


def _ask_same(
    placement: Placement,
    proposals: list[list[int]],
    review: np.ndarray,
    best: dict[tuple[int, int], tuple[int, int]],
    evidence: Evidence,
) -> None:
    """A same-lesson question for each proposal that joins certain groups around a new lesson."""
    group_of = {n: g for g, members in enumerate(placement.groups) for n in members}
    nodes = placement.nodes
    for proposal in proposals:
        groups = sorted({group_of[n] for n in proposal})
        if len(groups) < 2 or not any(nodes[n].lesson for n in proposal):
            continue
        pairs = []
        for a in proposal:
            for b in proposal:
                if a < b and group_of[a] != group_of[b] and math.isfinite(review[a, b]):
                    pairs.append((float(review[a, b]), a, b))
        pairs.sort(reverse=True)
        shown = [_pair_detail(nodes, a, b, best, evidence) for _, a, b in pairs[:MAX_ASK]]
        evidence_json = {
            "score": round(pairs[0][0], 2) if pairs else None,
            "certain_at": CERTAIN,
            "asked_from": REVIEW,
            "pairs": shown,
        }
        placement.questions.append(Question("same-lesson", tuple(groups), evidence_json))


def _pair_detail(
    nodes: list[Node],
    a: int,
    b: int,
    best: dict[tuple[int, int], tuple[int, int]],
    evidence: Evidence,
) -> dict[str, Any]:
    rows = best.get((a, b)) or best.get((b, a)) or (nodes[a].rows[0], nodes[b].rows[0])
    detail = evidence.detail(*rows)
    detail["between"] = [_name(nodes[a]), _name(nodes[b])]
    return detail


def _name(node: Node) -> str:
    if node.lesson is not None:
        return node.lesson.ref
    assert node.card is not None
    return node.card.slug


def _ask_contradictions(
    placement: Placement, contradictions: dict[tuple[int, int], Contradiction], links: np.ndarray
) -> None:
    """A contradiction question for each contradicting pair close enough to matter (a lesson and
    a card near it, or two lessons scoring at least REVIEW); a lesson kept from a card it
    contradicts is noted for the run's report."""
    group_of = {n: g for g, members in enumerate(placement.groups) for n in members}
    asked: set[tuple[int, int]] = set()
    for (a, b), claim in sorted(contradictions.items()):
        pair = (min(group_of[a], group_of[b]), max(group_of[a], group_of[b]))
        related = placement.nodes[a].card or placement.nodes[b].card or links[a, b] >= REVIEW
        if pair[0] == pair[1] or pair in asked or not related:
            continue
        asked.add(pair)
        sentences = {"sentences": [claim.first.sentence, claim.second.sentence]}
        placement.questions.append(Question("contradiction", pair, sentences))
        for node in (a, b):
            card = placement.nodes[node].card
            if card is not None:
                placement.conflicts.append((group_of[a + b - node], card, claim))
