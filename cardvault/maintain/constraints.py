"""What may and may not be grouped: the rules on top of the evidence scores.

Never together: lessons that contradict each other or a card near them (lexically), or that
would be joined but say the same with other figures or names (disagree.py), lessons
linked to different cards (or a lesson and a card other than the one it links to), members a
person said are different. Never certain (asked instead): a lesson that advises against
("never", "don't") with one, or a card telling, that does not; two that advise the same
action on different things ("use Jest" / "use Vitest"), whatever words they share. Always
together: a lesson and the card its `→ card:` link names, members a person said are one
lesson. A curated card (hand-written, imported: not `distilled`, vault/card.py) is never
certain with a lesson, however close: maintenance writes into it only on the log's own link or
a person's answer, and otherwise asks. A card that cites no entries is asked about only from
the model's `card_ask_floor` closeness; two cards
count as NEUTRAL_GAP below `review`, so a lesson near two cards is asked about both while two
cards never make a question on their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardvault.maintain.candidates import NEVER, Node
from cardvault.maintain.contradict import Claim, Contradiction, contradict, substitution
from cardvault.maintain.disagree import disagreement
from cardvault.maintain.evidence import Evidence
from cardvault.maintain.state import VaultState
from cardvault.vault.decisions import ACCEPTED, apart_pairs

if TYPE_CHECKING:
    import numpy as np

ALWAYS = 1e6
NEUTRAL_GAP = 0.01


def constraints(
    state: VaultState,
    nodes: list[Node],
    evidence: Evidence,
    links: np.ndarray,
    closeness: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, dict[tuple[int, int], Contradiction]]:
    """The review matrix (never-together pairs removed), the certain matrix (only what may be
    joined without asking, always-together pairs added), and the contradicting node pairs."""
    import numpy as np

    limits = evidence.constants
    review = links.copy()
    contradictions = _contradictions(nodes, evidence, closeness)
    never = _never(state, nodes) | set(contradictions)
    for i, j in never:
        review[i, j] = review[j, i] = NEVER
    auto = np.where(review >= limits.certain, review, NEVER)
    lesson_nodes = [n for n, node in enumerate(nodes) if node.lesson is not None]
    cards = [n for n, node in enumerate(nodes) if node.card is not None]
    for i, j in _always(state, nodes) - never:
        auto[i, j] = auto[j, i] = ALWAYS
    if lesson_nodes and cards:  # of the cards a lesson must join, the closest
        block = auto[np.ix_(lesson_nodes, cards)]
        nearest = np.where(block >= ALWAYS, ALWAYS + closeness[lesson_nodes], block)
        auto[np.ix_(lesson_nodes, cards)] = nearest
        auto[np.ix_(cards, lesson_nodes)] = nearest.T
    for (i, j), claim in _disagreeing(state, nodes, auto, limits.certain).items():
        auto[i, j] = auto[j, i] = review[i, j] = review[j, i] = NEVER
        contradictions[(i, j)] = claim
    curated = [n for n in cards if not _distilled(nodes[n])]
    if lesson_nodes and curated:  # asked about, never written into on the scores alone
        block = auto[np.ix_(lesson_nodes, curated)]
        kept = np.where(block >= ALWAYS, block, NEVER)  # the log's own link, a person's answer
        auto[np.ix_(lesson_nodes, curated)] = kept
        auto[np.ix_(curated, lesson_nodes)] = kept.T
    plain = np.array([len(nodes[n].rows) == nodes[n].paragraphs for n in cards], dtype=bool)
    far = (closeness < limits.card_ask_floor) & plain[None, :]
    sub = review[np.ix_(lesson_nodes, cards)]
    far |= sub < limits.review_card
    review[np.ix_(lesson_nodes, cards)] = np.where(far, NEVER, sub)
    review[np.ix_(cards, lesson_nodes)] = review[np.ix_(lesson_nodes, cards)].T
    # two cards, even ones a person kept apart, may be candidates in one question: it asks
    # which of them a new lesson tells, never to join them (merge decides that)
    review[np.ix_(cards, cards)] = limits.review - NEUTRAL_GAP
    np.fill_diagonal(review, NEVER)
    return review, auto, contradictions


def polarity_differs(
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


def substitutions(
    nodes: list[Node],
    evidence: Evidence,
    best: dict[tuple[int, int], tuple[int, int]],
    auto: np.ndarray,
) -> list[tuple[int, int]]:
    """Pairs that would be certain but advise the same action on different things ("use Jest"
    / "use Vitest"): words in common prove nothing there."""
    import numpy as np

    certain = evidence.constants.certain
    rows, columns = np.nonzero(np.triu((auto >= certain) & (auto < ALWAYS), k=1))
    found = []
    for m, n in zip(rows.tolist(), columns.tolist(), strict=True):
        a, b = best.get((m, n)) or best.get((n, m)) or (nodes[m].rows[0], nodes[n].rows[0])
        if substitution(evidence.tellings[a].signal, evidence.tellings[b].signal) is not None:
            found.append((m, n))
    return found


def _disagreeing(
    state: VaultState, nodes: list[Node], auto: np.ndarray, certain: float
) -> dict[tuple[int, int], Contradiction]:
    """Pairs that would be joined without asking (a lesson and a card, two lessons) but tell
    the same thing with other figures or names ("p95 is 0.70 s" / "p95 is 11.91 s"): kept
    apart, and asked which holds (disagree.py). Only these pairs are read, so the cost follows
    what would be joined, not the vault."""
    import numpy as np

    found: dict[tuple[int, int], Contradiction] = {}
    rows, columns = np.nonzero(np.triu(auto >= certain, k=1))
    for i, j in zip(rows.tolist(), columns.tolist(), strict=True):
        if nodes[i].lesson is None and nodes[j].lesson is None:
            continue
        texts = [_text_of(nodes[n]) for n in (i, j)]
        where = disagreement(state, texts[0], texts[1])
        if where is not None:
            kind = "figures" if "figures" in where else "names"
            sides = where[kind]
            first, second = where["sentences"]
            found[(i, j)] = Contradiction(
                Claim("says", tuple(sides[0]), 1, first), Claim("says", tuple(sides[1]), -1, second)
            )
    return found


def _text_of(node: Node) -> str:
    if node.lesson is not None:
        return node.lesson.text
    assert node.card is not None
    return node.card.card.body


def _contradictions(
    nodes: list[Node], evidence: Evidence, closeness: np.ndarray
) -> dict[tuple[int, int], Contradiction]:
    """Contradicting lessons (among themselves, and with the shortlisted cards near them)."""
    found: dict[tuple[int, int], Contradiction] = {}
    lesson_nodes = {nodes[n].rows[0]: n for n, node in enumerate(nodes) if node.lesson}
    for (a, b), claim in evidence.contradicting(list(lesson_nodes)).items():
        found[(lesson_nodes[a], lesson_nodes[b])] = claim
    cards = [n for n, node in enumerate(nodes) if node.card is not None]
    for m, n in _close_pairs(closeness, evidence.constants.shortlist_floor, cards):
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
    for pair in apart_pairs(state.review_items).among(holders):
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


def _distilled(node: Node) -> bool:
    return node.card is not None and node.card.card.distilled


def _always(state: VaultState, nodes: list[Node]) -> set[tuple[int, int]]:
    """A lesson and the card its `→ card:` link names; members a person said are one lesson."""
    cards = [n for n, node in enumerate(nodes) if node.card is not None]
    found: set[tuple[int, int]] = set()
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
        for group in together.get(lesson.ref, ()):
            others = (key for key in group if key != lesson.ref and key in holders)
            held = [n for key in others for n in holders[key]]
            found.update((min(m, n), max(m, n)) for n in held if n != m)
    return found


def _accepted_together(state: VaultState) -> dict[str, list[frozenset[str]]]:
    """For each member key of an accepted same-lesson or duplicate item, the groups it joins:
    each answer's chosen keys, one set its members share (a copy per member would be 900
    million entries for one answer of 30,000 members, a line a shared vault can carry)."""
    found: dict[str, list[frozenset[str]]] = {}
    for item in state.review_items:
        if item.status == ACCEPTED and item.kind in ("same-lesson", "duplicate"):
            chosen = frozenset(item.chosen or item.keys)
            for key in chosen:
                found.setdefault(key, []).append(chosen)
    return found
