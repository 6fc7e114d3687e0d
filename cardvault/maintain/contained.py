"""How much of one card the other already says: the evidence merge judges sameness on.

A card's passages are its sentences and code blocks; headings and template text (found in
BOILERPLATE or more cards) do not count. `contained_shares` gives, for each pair, the share of
each card's passages (weighted by meaning words, so a stray "See also:" weighs little) the other
says (novelty.py), facts and all, and the share it states perhaps with other figures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardvault.maintain.novelty import already_said, new_words, warm
from cardvault.maintain.text import (
    body_sentences,
    is_code,
    meaning_words,
    normalise,
)

if TYPE_CHECKING:
    from cardvault.maintain.similarity import Embeddings

#: Cards a passage must be found in to be a template's, not one card's.
BOILERPLATE = 3
#: The share of a card's passages the other must already say for it to be contained there.
CONTAINED = 0.75


def passages(body: str) -> list[str]:
    """The body's sentences and code blocks."""
    return body_sentences(body, skip=("heading",))


def common_passages(bodies: Sequence[str]) -> frozenset[str]:
    """Normalised passages found in BOILERPLATE or more distinct `bodies`: template text."""
    distinct = {" ".join(body.split()): body for body in bodies}.values()
    counts = Counter(n for body in distinct for n in {normalise(p) for p in passages(body)})
    return frozenset(n for n, count in counts.items() if n and count >= BOILERPLATE)


def _weight(passage: str) -> int:
    return max(1, len(meaning_words(passage)))


@dataclass(frozen=True)
class Share:
    """How much of one card another says: `said` (facts and all), `stated` (figures perhaps
    other)."""

    said: float
    stated: float


class _Judged:
    def __init__(self, inner: list[str], outer: str) -> None:
        norms = {normalise(s) for s in body_sentences(outer)}
        self.outer = outer
        self.total = sum(_weight(p) for p in inner)
        self.said = 0
        self.maybe: list[str] = []
        for passage in inner:
            if normalise(passage) in norms:
                self.said += _weight(passage)
            elif meaning_words(passage) and not is_code(passage) and not new_words(passage, outer):
                self.maybe.append(passage)

    def could_be_contained(self) -> bool:
        possible = self.said + sum(_weight(p) for p in self.maybe)
        return self.total > 0 and possible >= CONTAINED * self.total

    def share(self, embeddings: Embeddings | None, threshold: float) -> Share:
        if self.total == 0:
            return Share(0.0, 0.0)
        said = stated = self.said
        if self.maybe and embeddings is not None and self.could_be_contained():
            loose = already_said(self.outer, self.maybe, embeddings, threshold, facts=False)
            strict = already_said(self.outer, self.maybe, embeddings, threshold)
            for passage, same, exact in zip(self.maybe, loose, strict, strict=True):
                stated += _weight(passage) if same else 0
                said += _weight(passage) if exact and same else 0
        return Share(said / self.total, stated / self.total)


def contained_shares(
    bodies: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    embeddings: Embeddings | None,
    threshold: float,
) -> dict[tuple[int, int], tuple[Share, Share]]:
    """For each pair (i, j) of `bodies`: (how much of i j says, how much of j i says)."""
    common = common_passages(bodies)
    involved = sorted({n for pair in pairs for n in pair})
    counted = {
        n: [p for p in passages(bodies[n]) if normalise(p) and normalise(p) not in common]
        for n in involved
    }
    judged = {
        (inner, outer): _Judged(counted[inner], bodies[outer])
        for i, j in pairs
        for inner, outer in ((i, j), (j, i))
    }
    texts = []  # everything the model reads, in one batch
    for (_, outer), judgement in judged.items():
        if judgement.maybe and judgement.could_be_contained():
            texts += [*judgement.maybe, bodies[outer]]
    warm(embeddings, texts)
    return {
        (i, j): (
            judged[(i, j)].share(embeddings, threshold),
            judged[(j, i)].share(embeddings, threshold),
        )
        for i, j in pairs
    }
