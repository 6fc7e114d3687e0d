"""What may and may not be grouped: the rules on top of the evidence scores.

Never together: lessons that contradict each other or a card near them, or say the same with
other figures or names (disagree.py); lessons linked to different cards; members a person said
are different. Never certain (asked): one side advising against and the other not; the same
action on different things; a curated card (written into only on the log's own link or a
person's answer). Always together: a lesson and the card its `→ card:` link names; members a
person said are one lesson. Two cards sit NEUTRAL_GAP below `review`: no question on their own.
Each rule is a node × node mask; in each matrix's table the first rule that holds gives the value.
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

Pairs = set[tuple[int, int]]


def constraints(
    state: VaultState,
    nodes: list[Node],
    evidence: Evidence,
    links: np.ndarray,
    closeness: np.ndarray,
    best: dict[tuple[int, int], tuple[int, int]],
) -> tuple[np.ndarray, np.ndarray, dict[tuple[int, int], Contradiction]]:
    """The review matrix, the certain matrix (what may be joined without asking), and the
    contradicting node pairs."""
    import numpy as np

    limits = evidence.constants
    count = len(nodes)
    lesson = np.array([node.lesson is not None for node in nodes], dtype=bool)
    curated = np.array([node.card is not None and not node.card.card.distilled for node in nodes])
    plain = np.array(
        [node.card is not None and len(node.rows) == node.paragraphs for node in nodes]
    )
    lesson_card = lesson[:, None] != lesson[None, :]
    # lessons come first among the nodes, so closeness's rows are lesson node indices
    near = np.zeros((count, count), dtype=closeness.dtype)
    near[np.ix_(np.flatnonzero(lesson), np.flatnonzero(~lesson))] = closeness
    near = np.maximum(near, near.T)

    contradictions = _contradictions(nodes, evidence, closeness)
    kept_apart, kept_together = _kept(state, nodes)
    never = _mask(count, kept_apart | set(contradictions))
    always = _mask(count, kept_together) & ~never
    certain = ~never & (always | (links >= limits.certain))
    disagreeing = _disagreeing(state, nodes, certain)
    contradictions.update(disagreeing)
    never |= _mask(count, set(disagreeing))
    to_curated = lesson_card & (curated[:, None] | curated[None, :]) & ~always
    # one side advises against ("never", "don't") and the other does not: two lessons, or a
    # lesson and the card telling it scored best against
    negated = evidence.negated[[node.rows[0] for node in nodes]]
    unsure = lesson[:, None] & lesson[None, :] & (negated[:, None] != negated[None, :])
    against = evidence.negated
    unsure |= _mask(count, {pair for pair, (a, b) in best.items() if against[a] != against[b]})
    maybe = certain & ~never & ~always & ~to_curated & ~unsure
    unsure |= _mask(count, set(_substitutions(nodes, evidence, best, maybe)))
    far = (near < limits.card_ask_floor) & (plain[:, None] | plain[None, :])
    far = lesson_card & (far | (links < limits.review_card))

    review = np.select(
        [np.eye(count, dtype=bool), ~lesson[:, None] & ~lesson[None, :], never, far],
        [NEVER, limits.review - NEUTRAL_GAP, NEVER, NEVER],
        links,
    )
    auto = np.select(
        [never | unsure, always, to_curated, certain],
        [NEVER, ALWAYS + near, NEVER, links],  # of the cards a lesson must join, the closest
        NEVER,
    )
    return review, auto, contradictions


def _mask(count: int, pairs: Pairs) -> np.ndarray:
    import numpy as np

    found = np.zeros((count, count), dtype=bool)
    for i, j in pairs:
        found[i, j] = found[j, i] = True
    return found


def _substitutions(
    nodes: list[Node],
    evidence: Evidence,
    best: dict[tuple[int, int], tuple[int, int]],
    maybe: np.ndarray,
) -> list[tuple[int, int]]:
    """The `maybe` pairs that advise the same action on different things ("use Jest" / "use
    Vitest"): words in common prove nothing there."""
    import numpy as np

    rows, columns = np.nonzero(np.triu(maybe, k=1))
    found = []
    for m, n in zip(rows.tolist(), columns.tolist(), strict=True):
        a, b = best.get((m, n)) or best.get((n, m)) or (nodes[m].rows[0], nodes[n].rows[0])
        if substitution(evidence.tellings[a].signal, evidence.tellings[b].signal) is not None:
            found.append((m, n))
    return found


def _disagreeing(
    state: VaultState, nodes: list[Node], certain: np.ndarray
) -> dict[tuple[int, int], Contradiction]:
    """Pairs that would be joined without asking but tell the same thing with other figures or
    names (disagree.py). Only these pairs are read: the cost follows what would be joined."""
    import numpy as np

    found: dict[tuple[int, int], Contradiction] = {}
    rows, columns = np.nonzero(np.triu(certain, k=1))
    for i, j in zip(rows.tolist(), columns.tolist(), strict=True):
        if nodes[i].lesson is None and nodes[j].lesson is None:
            continue
        where = disagreement(state, nodes[i].text, nodes[j].text)
        if where is not None:
            kind = "figures" if "figures" in where else "names"
            sides = where[kind]
            first, second = where["sentences"]
            found[(i, j)] = Contradiction(
                Claim("says", tuple(sides[0]), 1, first), Claim("says", tuple(sides[1]), -1, second)
            )
    return found


def _contradictions(
    nodes: list[Node], evidence: Evidence, closeness: np.ndarray
) -> dict[tuple[int, int], Contradiction]:
    """Contradicting lessons, among themselves and with cards from `shortlist_floor`."""
    import numpy as np

    found: dict[tuple[int, int], Contradiction] = {}
    lesson_nodes = {nodes[n].rows[0]: n for n, node in enumerate(nodes) if node.lesson}
    for (a, b), claim in evidence.contradicting(list(lesson_nodes)).items():
        found[(lesson_nodes[a], lesson_nodes[b])] = claim
    cards = [n for n, node in enumerate(nodes) if node.card is not None]
    rows, columns = np.nonzero(closeness >= evidence.constants.shortlist_floor)
    for m, n in zip(rows.tolist(), [cards[c] for c in columns.tolist()], strict=True):
        lesson, card = nodes[m].lesson, nodes[n].card
        assert lesson is not None and card is not None
        against = contradict(card.card.body, lesson.text)
        if against is not None:
            found[(min(m, n), max(m, n))] = against
    return found


def _kept(state: VaultState, nodes: list[Node]) -> tuple[Pairs, Pairs]:
    """The never-together and the always-together node pairs (see the module docstring)."""
    never: Pairs = set()
    always: Pairs = set()
    holders: dict[str, list[int]] = {}
    for n, node in enumerate(nodes):
        for key in node.keys:
            holders.setdefault(key, []).append(n)
    for pair in apart_pairs(state.review_items).among(holders):
        left, right = sorted(pair)
        for i in holders.get(left, ()):
            never.update((min(i, j), max(i, j)) for j in holders.get(right, ()) if i != j)
    together = _accepted_together(state)
    for m, node in enumerate(nodes):
        lesson = node.lesson
        if lesson is None:
            continue
        linked = state.by_slug(lesson.target, archived=True) if lesson.target else None
        for n, other in enumerate(nodes):
            if linked is not None and other.card is not None and linked == other.card:
                always.add((m, n))
            if not lesson.target:
                continue
            if other.lesson is not None:
                elsewhere = bool(other.lesson.target) and other.lesson.target != lesson.target
            else:
                elsewhere = other.card is not None and (
                    linked is None or linked.path != other.card.path
                )
            if elsewhere:
                never.add((min(m, n), max(m, n)))
        for group in together.get(lesson.ref, ()):
            others = (key for key in group if key != lesson.ref and key in holders)
            held = [n for key in others for n in holders[key]]
            always.update((min(m, n), max(m, n)) for n in held if n != m)
    return never, always


def _accepted_together(state: VaultState) -> dict[str, list[frozenset[str]]]:
    """Member key of an accepted grouping item -> the chosen key sets it joins (one set shared
    by its members: a copy per member is quadratic)."""
    found: dict[str, list[frozenset[str]]] = {}
    for item in state.review_items:
        if item.status == ACCEPTED and item.kind in ("same-lesson", "duplicate"):
            chosen = frozenset(item.chosen or item.keys)
            for key in chosen:
                found.setdefault(key, []).append(chosen)
    return found
