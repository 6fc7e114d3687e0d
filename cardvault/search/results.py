"""What a search returns: hits with their snippet and the evidence for their place.

Every hit says where each side ranked it (`keyword_rank`/`keyword_score`: BM25;
`semantic_rank`/`semantic_score`: cosine of its best passage) and which passage matched, and
the outcome carries the weights the fusion gave each side for this query, so `search --explain`
and `--json` can show why a card ranked where it did. The snippet of a long card comes from the
passage that matched the query's meaning, unless the query's words themselves were what counted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cardvault.search.fusion import WEAK_BELOW, Weights
from cardvault.search.index import IndexHandle
from cardvault.search.text import KeywordQuery, make_snippet
from cardvault.vault.fields import CATEGORY, STATUS, TAGS, TOPIC

if TYPE_CHECKING:
    from cardvault.search.sync import SyncReport


@dataclass(frozen=True)
class SearchResult:
    """One hit. `path` is relative to the vault; `entry` names the log entry for log hits."""

    slug: str
    path: str
    topic: str
    category: str
    tags: tuple[str, ...]
    status: str
    score: float
    snippet: str
    kind: str  # "card", "archived" or "log"
    entry: str | None = None
    line: int | None = None
    matches: tuple[str, ...] = ()
    keyword_rank: int | None = None  # 1-based place in the BM25 ranking; None: not in its top
    keyword_score: float | None = None
    semantic_rank: int | None = None
    semantic_score: float | None = None
    passage: int | None = None  # 0-based number of the passage that matched by meaning
    passages: int = 1
    weak: bool = False  # below the relevance floor (its model's fusion.Calibration.weak_below)
    source: str | None = None  # a log hit's entry, as a card's `sources` would cite it

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (what `cardvault search --json` prints)."""
        data: dict[str, object] = {
            "slug": self.slug,
            "path": self.path,
            TOPIC: self.topic,
            CATEGORY: self.category,
            TAGS: list(self.tags),
            STATUS: self.status,
            "score": round(self.score, 4),
            "weak": self.weak,
            "snippet": self.snippet,
            "kind": self.kind,
        }
        if self.kind == "log":
            data["entry"] = self.entry
            data["line"] = self.line
            data["source"] = self.source
        data["keyword"] = _side(self.keyword_rank, self.keyword_score)
        data["semantic"] = _side(self.semantic_rank, self.semantic_score)
        if self.semantic_rank is not None:
            data["passage"] = {"number": self.passage, "of": self.passages}
        return data


def _side(rank: int | None, score: float | None) -> dict[str, object] | None:
    if rank is None or score is None:
        return None
    return {"rank": rank, "score": round(score, 4)}


@dataclass(frozen=True)
class SearchOutcome:
    """Results, the mode actually used, the fusion weights, the sync that ran first, notices."""

    results: list[SearchResult]
    mode: str
    sync: SyncReport
    notices: tuple[str, ...] = field(default=())
    weights: Weights | None = None  # hybrid only
    #: the relevance floor of the vault's model (`fusion.Calibration.weak_below`): a hit whose
    #: score is below it is unlikely to be what the query looks for, even where not weak
    floor: float = WEAK_BELOW

    def weights_json(self) -> dict[str, float] | None:
        """The fusion's weights for this query as JSON (None outside hybrid mode)."""
        if self.weights is None:
            return None
        return {
            "keyword": round(self.weights.keyword, 4),
            "semantic": round(self.weights.semantic, 4),
        }


@dataclass(frozen=True)
class Ranked:
    """A ranking before description: fused (document id, score) and each side's evidence."""

    hits: list[tuple[int, float]]
    keyword: dict[int, tuple[int, float]] = field(default_factory=dict)  # id -> (rank, score)
    semantic: dict[int, tuple[int, float]] = field(default_factory=dict)
    passages: dict[int, int] = field(default_factory=dict)  # id -> best passage number
    weights: Weights | None = None
    weak: frozenset[int] = frozenset()  # hits no side's own evidence stands alone for


def describe(index: IndexHandle, ranked: Ranked, query: str | KeywordQuery) -> list[SearchResult]:
    """SearchResults (with snippets and evidence) for a ranking."""
    ids = [doc_id for doc_id, _ in ranked.hits]
    if not ids:
        return []
    query = KeywordQuery.of(query)
    rows = index.conn.execute(
        "SELECT id, file, kind, slug, topic, category, tags, status, entry, line, body, key, "
        "(SELECT count(*) FROM passages p WHERE p.doc_hash = docs.text_hash) "
        f"FROM docs WHERE id IN ({', '.join('?' * len(ids))})",
        ids,
    ).fetchall()
    by_id = {row[0]: row for row in rows}
    results = []
    for doc_id, score in ranked.hits:
        if doc_id not in by_id:
            continue  # removed by a concurrent sync between ranking and now
        _, file, kind, slug, topic, category, tags, status, entry, line, body, key, count = by_id[
            doc_id
        ]
        passage = ranked.passages.get(doc_id)
        snippet = make_snippet(_snippet_source(index, ranked, doc_id, body), query)
        keyword, semantic = ranked.keyword.get(doc_id), ranked.semantic.get(doc_id)
        results.append(
            SearchResult(
                slug=slug, path=file, topic=topic, category=category,
                tags=tuple(json.loads(tags)), status=status, score=score, snippet=snippet.text,
                kind=kind, entry=entry, line=line, matches=snippet.matches,
                keyword_rank=keyword[0] if keyword else None,
                keyword_score=keyword[1] if keyword else None,
                semantic_rank=semantic[0] if semantic else None,
                semantic_score=semantic[1] if semantic else None,
                passage=passage, passages=max(int(count), 1), weak=doc_id in ranked.weak,
                source=key if kind == "log" else None,
            )
        )  # fmt: skip
    return results


def _snippet_source(index: IndexHandle, ranked: Ranked, doc_id: int, body: str) -> str:
    """The text a hit's snippet is cut from: its best passage, when meaning found it."""
    passage = ranked.passages.get(doc_id)
    if passage is None:
        return body
    keyword, semantic = ranked.keyword.get(doc_id), ranked.semantic.get(doc_id)
    if keyword is not None and (semantic is None or keyword[0] <= semantic[0]):
        return body  # the query's own words ranked it at least as high: show where they are
    row = index.conn.execute(
        "SELECT p.start, p.stop FROM passages p JOIN docs d ON p.doc_hash = d.text_hash "
        "WHERE d.id = ? AND p.seq = ?",
        (doc_id, passage),
    ).fetchone()
    return body if row is None else body[row[0] : row[1]]
