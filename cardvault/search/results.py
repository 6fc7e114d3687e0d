"""What a search returns: hits with their snippet and the evidence for their place.

Every hit says where each side ranked it and which passage matched, and the outcome carries
the fusion's weights, so `search --explain` and `--json` can show why a card ranked where it
did. A long card's snippet comes from the passage that matched the query's meaning, unless the
query's words themselves were what counted.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from cardvault.search.documents import Dates
from cardvault.search.fusion import WEAK_BELOW, Weights
from cardvault.search.index import IndexHandle
from cardvault.search.text import KeywordQuery, make_snippets
from cardvault.vault.fields import CATEGORY, STATUS, TAGS, TOPIC

if TYPE_CHECKING:
    from cardvault.search.sync import SyncReport


@dataclass(frozen=True)
class SearchResult:
    """One hit. `path` is relative to the vault; `entry` names the log entry for log hits;
    `dates` what a card hit's age is told from (None for a log hit)."""

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
    dates: Dates | None = None

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
        for side, rank, score in (
            ("keyword", self.keyword_rank, self.keyword_score),
            ("semantic", self.semantic_rank, self.semantic_score),
        ):
            data[side] = None
            if rank is not None and score is not None:
                data[side] = {"rank": rank, "score": round(score, 4)}
        if self.semantic_rank is not None:
            data["passage"] = {"number": self.passage, "of": self.passages}
        return data


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
        return {side: round(weight, 4) for side, weight in asdict(self.weights).items()}


@dataclass(frozen=True)
class Ranked:
    """A ranking before description: fused (document id, score) and each side's evidence."""

    hits: list[tuple[int, float]]
    keyword: dict[int, tuple[int, float]] = field(default_factory=dict)  # id -> (rank, score)
    semantic: dict[int, tuple[int, float]] = field(default_factory=dict)
    passages: dict[int, int] = field(default_factory=dict)  # id -> best passage number
    weights: Weights | None = None
    weak: frozenset[int] = frozenset()  # hits no side's own evidence stands alone for


def describe(index: IndexHandle, ranked: Ranked, query: KeywordQuery) -> list[SearchResult]:
    """SearchResults (with snippets and evidence) for a ranking."""
    ids = [doc_id for doc_id, _ in ranked.hits]
    if not ids:
        return []
    rows = index.conn.execute(
        "SELECT id, file, kind, slug, topic, category, tags, status, entry, line, body, key, "
        "(SELECT count(*) FROM passages p WHERE p.doc_hash = docs.text_hash), "
        "edited, used, stale "
        f"FROM docs WHERE id IN ({', '.join('?' * len(ids))})",
        ids,
    ).fetchall()
    by_id = {row[0]: row for row in rows}
    # a hit missing here was removed by a concurrent sync between ranking and now
    shown = [(doc_id, score) for doc_id, score in ranked.hits if doc_id in by_id]
    sources = _snippet_sources(index, ranked, {doc_id: by_id[doc_id][10] for doc_id, _ in shown})
    snippets = make_snippets([sources[doc_id] for doc_id, _ in shown], query)
    results = []
    for (doc_id, score), snippet in zip(shown, snippets, strict=True):
        _, file, kind, slug, topic, category, tags, status, entry, line, _, key, count, *dates = (
            by_id[doc_id]
        )
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
                passage=ranked.passages.get(doc_id), passages=max(int(count), 1),
                weak=doc_id in ranked.weak, source=key if kind == "log" else None,
                dates=None if kind == "log" else Dates(*dates),
            )
        )  # fmt: skip
    return results


def _snippet_sources(index: IndexHandle, ranked: Ranked, bodies: dict[int, str]) -> dict[int, str]:
    """The text each hit's snippet is cut from (by document id): its best passage when
    meaning ranked it higher than its words did, else its whole body."""
    wanted = {}
    for doc_id, passage in ranked.passages.items():
        keyword, semantic = ranked.keyword.get(doc_id), ranked.semantic.get(doc_id)
        if doc_id in bodies and (
            keyword is None or (semantic is not None and keyword[0] > semantic[0])
        ):
            wanted[doc_id] = passage
    spans = {}
    if wanted:
        rows = index.conn.execute(
            "SELECT d.id, p.seq, p.start, p.stop FROM passages p JOIN docs d "
            f"ON p.doc_hash = d.text_hash WHERE d.id IN ({', '.join('?' * len(wanted))})",
            list(wanted),
        ).fetchall()
        spans = {d: (start, stop) for d, seq, start, stop in rows if wanted[d] == seq}
    return {
        doc_id: body[spans[doc_id][0] : spans[doc_id][1]] if doc_id in spans else body
        for doc_id, body in bodies.items()
    }
