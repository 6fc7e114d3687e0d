"""Fusing the keyword and semantic rankings into one, weighted by what the query looks like.

Each side's scores are rescaled to 0..1 over its own top CANDIDATES (min-max: the best hit 1,
the last 0), so BM25 and cosine become comparable per query, and a document's fused score is
the weighted sum of its two rescaled scores (absent from a side's list: 0 there). Unlike
reciprocal-rank fusion, a side whose best hit stands far above the rest keeps that lead.

The weights come from the query itself: `coverage`, the share of the query's words that the
best keyword hit contains, each word weighted by its BM25 inverse document frequency (a rare
word found counts much, a word most cards contain little). A query copied from a note (an error
message, a command, a flag, an identifier) is covered completely by the card it came from, and
the fusion leans on keywords; a query in other words than the note's shares at most a few
common words with any card, and the fusion leans on meaning. Between the two the weights move
linearly, from 1:9 to 9:1 (keyword's share of the weight is 0.1 + 0.8 × coverage).
The form was chosen on development queries only, and its one constant (the 0.1 floor) by a
rule fixed in advance — the widest mix that is never worse than the better single mode on any
development workload; docs/benchmarks.md shows the evaluation and the held-out sets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from cardvault.search.text import CJK_RUN, coverage_terms

#: How deep each ranking goes before fusion.
CANDIDATES = 100
Ranking = list[tuple[int, float]]
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Weights:
    """How much the fusion trusted each side for one query (they sum to 2)."""

    keyword: float = 1.0
    semantic: float = 1.0


@dataclass(frozen=True)
class Fused:
    """A hybrid ranking (scores 0..1) and the weights the fusion gave each side."""

    hits: Ranking
    weights: Weights


def hybrid(
    query: str,
    keyword: Ranking,
    semantic: Ranking,
    best_keyword_text: str,
    idf: dict[str, float],
) -> Fused:
    """The hybrid ranking of one query from its two rankings, the best keyword hit's text and
    the inverse document frequency of the query's words (`retrieve.term_idf`)."""
    weights = weights_for(coverage(query, best_keyword_text, idf) if keyword else 0.0)
    return Fused(fuse_scores(keyword, semantic, weights), weights)


#: The least share of the weight either side keeps, whatever the coverage.
FLOOR = 0.1


def weights_for(covered: float) -> Weights:
    """Keyword weight from 0.2 (no query word in the best keyword hit) to 1.8 (every word);
    the two weights sum to 2."""
    share = FLOOR + (1 - 2 * FLOOR) * covered
    return Weights(keyword=2 * share, semantic=2 * (1 - share))


def fuse_scores(keyword: Ranking, semantic: Ranking, weights: Weights) -> Ranking:
    """(document id, fused score in 0..1), best first; ties keep the keyword side's order."""
    sides = ((rescaled(keyword), weights.keyword), (rescaled(semantic), weights.semantic))
    total = sum(weight for scores, weight in sides if scores) or 1.0
    fused: dict[int, float] = {}
    for scores, weight in sides:
        for doc_id, score in scores.items():
            fused[doc_id] = fused.get(doc_id, 0.0) + weight * score / total
    order = {doc_id: n for n, (doc_id, _) in enumerate([*keyword, *semantic])}
    return sorted(fused.items(), key=lambda item: (-item[1], order[item[0]]))


def rescaled(ranking: Sequence[tuple[int, float]]) -> dict[int, float]:
    """Scores mapped to 0..1 over the ranking (best 1, worst 0; a lone or flat list all 1)."""
    if not ranking:
        return {}
    scores = [score for _, score in ranking]
    low, high = min(scores), max(scores)
    if high <= low:
        return {doc_id: 1.0 for doc_id, _ in ranking}
    return {doc_id: (score - low) / (high - low) for doc_id, score in ranking}


def coverage(query: str, text: str, idf: dict[str, float] | None = None) -> float:
    """Share of the query's words (stop words aside, unless nothing else is left) that occur
    in `text`, each weighted by its `idf` (1 when not given), comparing crude stems ("indexes"
    ~ "index"); CJK runs as substrings."""
    terms = coverage_terms(query)
    if not terms:
        return 0.0
    lowered = text.lower()
    words = {_stem(w) for w in _WORD.findall(lowered)}
    weight = {t: (idf or {}).get(t, 1.0) for t in terms}
    total = sum(weight.values())
    if total <= 0:
        return 0.0
    found = sum(
        weight[t] for t in terms if (t in lowered if CJK_RUN.fullmatch(t) else _stem(t) in words)
    )
    return found / total


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "ed", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word
