"""Where pending lessons go: certain groups, the card each folds into, and the questions left.

Certain groups: each card with the lessons certainly telling its lesson (the model's
`certain`), then the other lessons by complete linkage at `certain`. Questions: average linkage
of those groups at `review`, at most MAX_ASK nodes around a new lesson, whose members are each
other's nearest neighbours on content from `neighbour_floor` (words two unrelated lessons share
make no question). Two nodes kept apart because they contradict make a "contradiction" question.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cardvault.maintain.asking import MAX_ASK
from cardvault.maintain.candidates import (
    NEVER,
    Node,
    build_nodes,
    node_links,
    shortlist,
    vocabulary,
)
from cardvault.maintain.constraints import constraints
from cardvault.maintain.contradict import Contradiction
from cardvault.maintain.evidence import Evidence, Vocabulary
from cardvault.maintain.lessons import Lesson
from cardvault.maintain.linkage import AVERAGE, COMPLETE, agglomerate
from cardvault.maintain.state import CardFile, VaultState
from cardvault.vault.config import VaultConfig

if TYPE_CHECKING:
    import numpy as np


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
    cards: list[CardFile]  # the shortlist, in closeness's columns
    closeness: Any  # lessons × shortlisted cards: cosine of lesson query and card text
    vocabulary: Vocabulary
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
    """Decide where every lesson goes."""
    embeddings = state.require_embeddings()
    cards, closeness = shortlist(state, lessons)
    nodes, tellings = build_nodes(state, lessons, cards)
    words = vocabulary(state)
    evidence = Evidence(tellings, embeddings, words, state.constants)
    limits = evidence.constants
    links, best = node_links(nodes, evidence, closeness)
    review, auto, contradictions = constraints(state, nodes, evidence, links, closeness, best)
    groups = certain_groups(nodes, auto, limits.certain)
    placement = Placement(nodes, groups, cards, closeness, words)
    between = group_links(nodes, groups, review)
    near = nearest(content(nodes, groups, evidence, review), MAX_ASK - 1)
    proposals = agglomerate(
        between,
        limits.review,
        AVERAGE,
        allowed=lambda a, b: _askable(
            nodes, [n for g in a for n in groups[g]], [n for g in b for n in groups[g]], near
        ),
    )
    _ask_same(placement, proposals, review, best, evidence)
    _ask_contradictions(placement, contradictions, links, limits.review)
    return placement


def certain_groups(nodes: list[Node], auto: np.ndarray, certain: float) -> list[list[int]]:
    """Certain groups of node indices (a lesson certain of several cards joins its best)."""
    import numpy as np

    cards = [n for n, node in enumerate(nodes) if node.card is not None]
    lessons = [n for n, node in enumerate(nodes) if node.lesson is not None]
    joined: dict[int, list[int]] = {n: [n] for n in cards}
    rest = []
    for m in lessons:
        row = auto[m, cards] if cards else np.zeros(0)
        card = cards[int(row.argmax())] if len(row) and row.max() >= certain else None
        if card is not None and not np.isneginf(auto[m, joined[card]]).any():
            joined[card].append(m)
        else:
            rest.append(m)
    found = [sorted(group) for group in joined.values()]
    if rest:
        sub = auto[np.ix_(rest, rest)]
        found += [[rest[i] for i in group] for group in agglomerate(sub, certain, COMPLETE)]
    return sorted(found, key=lambda g: g[0])


def group_links(nodes: list[Node], groups: list[list[int]], review: np.ndarray) -> np.ndarray:
    """Group × group links for questions: to a group holding a card (one lesson already) by
    the best link with any member, between groups of new lessons by the mean; any
    never-together pair keeps two groups apart."""
    import numpy as np

    def fold(block: np.ndarray, axis: int, with_card: bool) -> np.ndarray:
        never = np.isneginf(block).any(axis=axis)
        value = block.max(axis=axis) if with_card else block.mean(axis=axis)
        return np.where(never, NEVER, value)

    carded = [any(nodes[n].card is not None for n in group) for group in groups]
    rows = np.stack([fold(review[g], 0, c) for g, c in zip(groups, carded, strict=True)])
    links = np.stack([fold(rows[:, g], 1, c) for g, c in zip(groups, carded, strict=True)], axis=1)
    links = np.where(np.isneginf(links) | np.isneginf(links.T), NEVER, np.maximum(links, links.T))
    np.fill_diagonal(links, NEVER)
    return links


def content(
    nodes: list[Node], groups: list[list[int]], evidence: Evidence, review: np.ndarray
) -> np.ndarray:
    """Node × node: the best cosine of their tellings' lesson texts; NEVER below
    `neighbour_floor`, within one certain group, or for a never-together pair."""
    import numpy as np

    every = list(range(len(evidence.tellings)))  # each a telling of one node (build_nodes)
    cosine = evidence.features(every, every)[0]
    found = np.full((len(nodes), len(nodes)), NEVER)
    for a, left in enumerate(nodes):
        for b, right in enumerate(nodes):
            if a != b and left.rows and right.rows:
                found[a, b] = cosine[np.ix_(left.rows, right.rows)].max()
    for group in groups:
        found[np.ix_(group, group)] = NEVER
    floor = evidence.constants.neighbour_floor
    return np.where((found < floor) | np.isneginf(review), NEVER, found)


def nearest(closeness: np.ndarray, count: int) -> list[set[int]]:
    """Each node's `count` nearest nodes by `closeness` (NEVER pairs left out)."""
    import numpy as np

    found = []
    for row in closeness:
        order = [int(n) for n in np.argsort(-row, kind="stable")[:count]]
        found.append({n for n in order if np.isfinite(row[n])})
    return found


def _askable(nodes: list[Node], left: list[int], right: list[int], near: list[set[int]]) -> bool:
    """A question holds a new lesson, at most MAX_ASK members, each other's nearest neighbours
    (two cards need not be: the question is which one the lesson tells)."""
    members = left + right
    if len(members) > MAX_ASK or not any(nodes[n].lesson is not None for n in members):
        return False
    return all(
        (nodes[a].card is not None and nodes[b].card is not None) or (b in near[a] and a in near[b])
        for a in left
        for b in right
    )


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
    for chosen in proposals:
        groups = sorted(chosen)
        proposal = [n for g in groups for n in placement.groups[g]]
        if len(groups) < 2 or not any(nodes[n].lesson for n in proposal):
            continue
        pairs = []
        for a in proposal:
            for b in proposal:
                either = nodes[a].lesson is not None or nodes[b].lesson is not None
                if a < b and either and group_of[a] != group_of[b] and math.isfinite(review[a, b]):
                    pairs.append((float(review[a, b]), a, b))
        pairs.sort(reverse=True)
        shown = [_pair_detail(nodes, a, b, best, evidence) for _, a, b in pairs[:MAX_ASK]]
        evidence_json = {
            "score": round(pairs[0][0], 2) if pairs else None,
            "certain_at": evidence.constants.certain,
            "asked_from": evidence.constants.review,
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
    detail["between"] = [nodes[a].name, nodes[b].name]
    return detail


def _ask_contradictions(
    placement: Placement,
    contradictions: dict[tuple[int, int], Contradiction],
    links: np.ndarray,
    review: float,
) -> None:
    """A contradiction question for each contradicting pair close enough to matter; a lesson
    kept from a card it contradicts is noted for the run's report."""
    group_of = {n: g for g, members in enumerate(placement.groups) for n in members}
    asked: set[tuple[int, int]] = set()
    for (a, b), claim in sorted(contradictions.items()):
        pair = (min(group_of[a], group_of[b]), max(group_of[a], group_of[b]))
        related = placement.nodes[a].card or placement.nodes[b].card or links[a, b] >= review
        if pair[0] == pair[1] or pair in asked or not related or not one_rule(claim):
            continue
        asked.add(pair)
        sentences = {"sentences": [claim.first.sentence, claim.second.sentence]}
        placement.questions.append(Question("contradiction", pair, sentences))
        for node in (a, b):
            card = placement.nodes[node].card
            if card is not None:
                placement.conflicts.append((group_of[a + b - node], card, claim))


def one_rule(claim: Contradiction) -> bool:
    """Whether a contradiction is two statements of one rule, worth asking which holds: a polar
    pair is; two sentences naming other things only when their names stand in one slot ("deploy
    to us-east-1" / "deploy to eu-west-1"), else the second is a fact beside the first."""
    values = claim.first.obj + claim.second.obj
    if claim.first.verb != "says" or all(any(c.isdigit() for c in v) for v in values):
        return True  # a polar pair, or figures (disagree.py holds those to one slot already)
    mine = _slots(claim.first.sentence, claim.first.obj)
    theirs = _slots(claim.second.sentence, claim.second.obj)
    return bool(mine & theirs)


def _slots(sentence: str, values: tuple[str, ...]) -> set[str]:
    words = re.findall(r"[\w.+/-]+", sentence.lower())
    wanted = {v.lower() for v in values}
    found: set[str] = set()
    for at, word in enumerate(words):
        if word.strip(".") in wanted:
            found.update(words[i].strip(".") for i in (at - 1, at + 1) if 0 <= i < len(words))
    return found - wanted
