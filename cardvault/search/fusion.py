"""Fusing the keyword and semantic rankings into one (weighted reciprocal-rank fusion).

Each ranking gives a document `weight / (k + rank)` (rank from 1); the sums are divided by the
best possible sum, so 1.0 means "first in every ranking". RRF needs no score calibration
between BM25 and cosine, which live on unrelated scales.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

RRF_K = 10
#: How deep each ranking goes before fusion.
CANDIDATES = 100


@dataclass(frozen=True)
class Weights:
    """How much the fusion trusted each side for one query (they sum to 2)."""

    keyword: float = 1.0
    semantic: float = 1.0


def fuse(
    rankings: Sequence[Sequence[int]],
    weights: Sequence[float],
    k: int = RRF_K,
) -> list[tuple[int, float]]:
    """(document id, fused score in 0..1), best first; ties keep the first ranking's order."""
    scores: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, doc_id in enumerate(ranking, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + weight / (k + rank)
    best = sum(weight / (k + 1) for weight in weights) or 1.0
    ordered = sorted(scores.items(), key=lambda item: -item[1])
    return [(doc_id, score / best) for doc_id, score in ordered]


Ranking = list[tuple[int, float]]


@dataclass(frozen=True)
class Fused:
    """A hybrid ranking and the weights the fusion gave each side for its query."""

    hits: Ranking
    weights: Weights


def hybrid(query: str, keyword: Ranking, semantic: Ranking) -> Fused:
    """The hybrid ranking of one query from its keyword and semantic rankings."""
    weights = adaptive_weights(query, keyword, semantic)
    ranking = fuse(
        [[d for d, _ in keyword], [d for d, _ in semantic]], [weights.keyword, weights.semantic]
    )
    return Fused(ranking, weights)


def adaptive_weights(query: str, keyword: Ranking, semantic: Ranking) -> Weights:
    """How much to trust each side for this query (equal until measured otherwise)."""
    return Weights()
