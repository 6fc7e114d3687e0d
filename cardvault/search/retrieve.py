"""The two rankings search fuses: BM25 over the FTS5 table, and cosine over passage vectors.

Both apply the same filters (kind, category, tag, status) in SQL before ranking, so a filter
never empties a page that a deeper ranking would have filled. Each returns document ids best
first with their raw scores (BM25 made positive; cosine in -1..1). A document's semantic score
is that of its best passage (a long card is as close to a query as its closest part).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

from cardvault.search.filters import Filters
from cardvault.search.index import IndexHandle
from cardvault.search.text import KeywordQuery
from cardvault.search.vector_store import load_matrix, verified_rows

if TYPE_CHECKING:
    import numpy as np

    from cardvault.search.embed_sync import Vectors

#: BM25 column weights for (topic, tags, body): a word in the topic or tags says more about
#: what a card is about than the same word in its body. Measured on SciFact (titles = topics).
BM25_WEIGHTS = (3.0, 2.0, 1.0)
#: With the eligible ids known, keyword ranking reads `WIDEN` times the hits asked for (at
#: least `MIN_WIDE`) from the FTS table alone before it filters them.
WIDEN = 4
MIN_WIDE = 200


Ranking = list[tuple[int, float]]


def keyword_ranking(
    index: IndexHandle,
    query: str | KeywordQuery,
    filters: Filters,
    limit: int,
    eligible: frozenset[int] | None = None,
) -> Ranking:
    """Documents matching any query term, by BM25 with column weights, best first.

    With `eligible` (the ids `filters` admits, kept by a warm searcher) the ranking is read from
    the FTS table alone and filtered here, cheaper than the join with `docs`; the join is used
    only when too few widened top hits pass. BM25 does not depend on the filter either way."""
    match = KeywordQuery.of(query).match_any
    if match is None:
        return []
    weights = ", ".join(str(w) for w in BM25_WEIGHTS)
    if eligible is not None:
        wide = max(limit * WIDEN, MIN_WIDE)
        rows = index.conn.execute(
            f"SELECT rowid, bm25(fts, {weights}) AS s FROM fts WHERE fts MATCH ? "
            "ORDER BY s LIMIT ?",
            [match, wide],
        ).fetchall()
        kept = [(int(doc_id), -float(score)) for doc_id, score in rows if doc_id in eligible]
        if len(kept) >= limit or len(rows) < wide:
            return kept[:limit]
    where, params = filters.sql()
    rows = index.conn.execute(
        f"SELECT d.id, bm25(fts, {weights}) AS s FROM fts JOIN docs d ON d.id = fts.rowid "
        f"WHERE fts MATCH ? AND {where} ORDER BY s LIMIT ?",
        [match, *params, limit],
    ).fetchall()
    return [(int(doc_id), -float(score)) for doc_id, score in rows]


def holding_every_term(index: IndexHandle, query: KeywordQuery, ids: list[int]) -> frozenset[int]:
    """Which of `ids` hold every word of `query` (an exact match is never a weak one, even
    where BM25's IDF says little); none for a query of stop words alone."""
    match = query.match_all
    if match is None or not ids or not query.says_something:
        return frozenset()
    rows = index.conn.execute(
        f"SELECT rowid FROM fts WHERE fts MATCH ? AND rowid IN ({', '.join('?' * len(ids))})",
        [match, *ids],
    )
    return frozenset(int(row[0]) for row in rows)


def eligible_ids(index: IndexHandle, filters: Filters) -> frozenset[int]:
    """The ids of the documents `filters` admits."""
    where, params = filters.sql()
    return frozenset(
        row[0] for row in index.conn.execute(f"SELECT d.id FROM docs d WHERE {where}", params)
    )


def term_idf(index: IndexHandle, query: str | KeywordQuery) -> dict[str, float]:
    """BM25's inverse document frequency of each query word in the index."""
    read = KeywordQuery.of(query)
    total = index.conn.execute("SELECT count(*) FROM docs").fetchone()[0]
    idf = {}
    for term, expression in zip(read.terms, read.expressions, strict=True):
        found = index.conn.execute(
            "SELECT count(*) FROM fts WHERE fts MATCH ?", (expression,)
        ).fetchone()[0]
        idf[term] = math.log(1 + (total - found + 0.5) / (found + 0.5))
    return idf


class PassageVectors(NamedTuple):
    """The verified passage vectors of the documents a filter admits, ready to score:
    `doc_ids`, `rows` (of `matrix`) and `seqs` list each eligible (document, passage) pair by
    document id, and `starts` is where each document's pairs begin."""

    matrix: np.ndarray
    doc_ids: np.ndarray
    rows: np.ndarray
    seqs: np.ndarray
    starts: np.ndarray


def passage_vectors(
    index: IndexHandle, filters: Filters, current: Vectors | None = None
) -> PassageVectors | None:
    """The eligible passages' vectors, or None when there are none (no model, no vectors);
    `current`: the index's matrix and verified rows, when a sync has just read or written them."""
    import numpy as np

    if current is None:
        loaded = load_matrix(index)
        if loaded is None:
            return None
        current = loaded, verified_rows(index, loaded)
    matrix, rows_of = current
    if not rows_of:
        return None
    where, params = filters.sql()
    pairs = [
        (doc_id, rows_of[text_hash], seq)
        for doc_id, seq, text_hash in index.conn.execute(
            "SELECT d.id, p.seq, p.text_hash FROM docs d JOIN passages p "
            f"ON p.doc_hash = d.text_hash WHERE {where} ORDER BY d.id, p.seq",
            params,
        )
        if text_hash in rows_of
    ]
    if not pairs:
        return None
    table = np.array(pairs, dtype=np.int64)
    doc_ids = table[:, 0]
    starts = np.flatnonzero(np.r_[True, doc_ids[1:] != doc_ids[:-1]])
    dense = np.ascontiguousarray(matrix, dtype=np.float32)
    return PassageVectors(dense, doc_ids, table[:, 1], table[:, 2], starts)


def semantic_ranking(
    vectors: PassageVectors | None, query_vector: np.ndarray, limit: int
) -> tuple[Ranking, dict[int, int]]:
    """Documents by the cosine of their best passage to `query_vector` (unit length), best
    first, and for each ranked document the number of that passage."""
    import numpy as np

    if vectors is None:
        return [], {}
    scores = (vectors.matrix @ query_vector.astype(np.float32))[vectors.rows]
    best = np.maximum.reduceat(scores, vectors.starts)
    top = min(limit, len(best))
    chosen = np.argpartition(-best, top - 1)[:top]
    chosen = chosen[np.argsort(-best[chosen], kind="stable")]
    ranking: Ranking = []
    passages: dict[int, int] = {}
    ends = np.r_[vectors.starts[1:], len(scores)]
    for group in chosen:
        first, last = int(vectors.starts[group]), int(ends[group])
        pair = first + int(np.argmax(scores[first:last]))
        doc_id = int(vectors.doc_ids[pair])
        ranking.append((doc_id, float(best[group])))
        passages[doc_id] = int(vectors.seqs[pair])
    return ranking, passages
