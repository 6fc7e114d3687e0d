"""Search and index as services: bring the index up to date, rank, fuse, describe the hits.

`search` is the query path and imports neither torch nor sentence-transformers: the query and
any card a sync finds changed are embedded by onnxruntime (`onnx.OnnxEmbedder`). `build_index`
(the `cardvault index` command) embeds with sentence-transformers and leaves the ONNX copy of
the model in the cache for the searches that follow. Neither prints: problems the user should
know about (an index rebuilt after corruption, a missing model) come back as `notices`.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from cardvault.search.embedder import Embedder
from cardvault.search.index import IndexHandle, open_index
from cardvault.search.model import ModelRef, ModelUnavailableError, resolve_model
from cardvault.search.query_model import QueryModel
from cardvault.search.rank import CANDIDATES, KEYWORD_WEIGHT, RRF_K, SEMANTIC_WEIGHT, fuse
from cardvault.search.retrieve import Filters, Ranking, keyword_ranking, semantic_ranking
from cardvault.search.sync import Embedding, SyncProgress, SyncReport, sync_index
from cardvault.search.text import make_snippet
from cardvault.vault.layout import Vault

MODES = ("hybrid", "semantic", "keyword")
#: Up to this many changed texts, `index` embeds with the ONNX copy instead of loading torch.
SMALL_UPDATE = 256


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

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (what `cardvault search --json` prints)."""
        data: dict[str, object] = {
            "slug": self.slug,
            "path": self.path,
            "topic": self.topic,
            "category": self.category,
            "tags": list(self.tags),
            "status": self.status,
            "score": round(self.score, 4),
            "snippet": self.snippet,
            "kind": self.kind,
        }
        if self.kind == "log":
            data["entry"] = self.entry
            data["line"] = self.line
        return data


@dataclass(frozen=True)
class SearchOutcome:
    """Results, the mode actually used, the sync that ran first, and notices for the user."""

    results: list[SearchResult]
    mode: str
    sync: SyncReport
    notices: tuple[str, ...] = field(default=())


def search(
    vault: Vault,
    query: str,
    k: int = 10,
    mode: str = "hybrid",
    filters: Filters | None = None,
    model: QueryModel | None = None,
) -> SearchOutcome:
    """Sync the index, then return the `k` best documents for `query` in `mode`.

    Pass the same `model` to repeated searches to load the ONNX session only once.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    filters = filters or Filters()
    model = model or QueryModel(vault)
    if mode != "keyword":
        model.prefetch()
    index, report, notices = _synced_index(vault, model.embedding(), None, rebuild=False)
    try:
        mode = _usable_mode(mode, model, notices)
        try:
            ranked = rank(index, model, query, mode, filters, k)
        except ModelUnavailableError as exc:
            if mode != "hybrid":
                raise
            notices.append(f"keyword results only: {exc}")
            mode = "keyword"
            ranked = rank(index, model, query, mode, filters, k)
        results = _describe(index, ranked, query)
    finally:
        index.close()
    return SearchOutcome(results, mode, report, tuple(notices))


def rank(
    index: IndexHandle, model: QueryModel, query: str, mode: str, filters: Filters, k: int
) -> Ranking:
    """The top `k` (document id, score) for `query` in `mode` over an up-to-date index."""
    depth = max(CANDIDATES, k)
    keyword = keyword_ranking(index, query, filters, depth) if mode != "semantic" else []
    if mode == "keyword":
        return keyword[:k]
    vector = model.embedder().embed([query])[0]
    semantic = semantic_ranking(index, vector, filters, depth)
    if mode == "semantic":
        return semantic[:k]
    fused = fuse(
        [[d for d, _ in keyword], [d for d, _ in semantic]],
        [KEYWORD_WEIGHT, SEMANTIC_WEIGHT],
        RRF_K,
    )
    return fused[:k]


def build_index(
    vault: Vault, rebuild: bool = False, progress: SyncProgress | None = None
) -> SyncReport:
    """Index the vault; bulk embedding by sentence-transformers, then export the ONNX copy.

    A handful of changed texts (up to SMALL_UPDATE) are embedded by the ONNX copy when it exists
    (same vectors, no 10-second torch import).
    """
    from cardvault.search.onnx import ensure_onnx

    ref: ModelRef | None = None
    notices: list[str] = []
    try:
        ref = resolve_model(vault.config.model, vault.root)
    except ModelUnavailableError as exc:
        notices.append(f"semantic search unavailable (keyword search still works): {exc}")
    loaded: list[Embedder] = []
    embedding = None
    if ref is not None:
        embedding = Embedding(ref.model_id, lambda count: _bulk_embedder(ref, count, loaded))
    index, report, opened = _synced_index(vault, embedding, progress, rebuild)
    index.close()
    if ref is not None and report.unembedded == 0:
        ensure_onnx(ref, getattr(loaded[0], "model", None) if loaded else None)
    report.notices[:0] = [*notices, *opened]
    return report


def _bulk_embedder(ref: ModelRef, count: int, loaded: list[Embedder]) -> Embedder:
    """sentence-transformers for many texts; the ONNX copy, if present, for a few."""
    from cardvault.search.embedder import SentenceTransformerEmbedder
    from cardvault.search.onnx import OnnxEmbedder, onnx_path

    if count <= SMALL_UPDATE and onnx_path(ref).is_file():
        loaded.append(OnnxEmbedder(ref, onnx_path(ref)))
    else:
        loaded.append(SentenceTransformerEmbedder(ref))
    return loaded[-1]


def _synced_index(
    vault: Vault, embedding: Embedding | None, progress: SyncProgress | None, rebuild: bool
) -> tuple[IndexHandle, SyncReport, list[str]]:
    """Open and sync the index; a database found broken mid-way is rebuilt once."""
    index = open_index(vault.cache_dir, rebuild=rebuild)
    notices = list(index.notices)
    try:
        report = sync_index(vault, index, embedding, progress)
    except sqlite3.OperationalError as exc:
        if "locked" not in str(exc):
            raise
        notices.append("the index is being updated by another cardvault; results may be stale")
        return index, SyncReport(), notices
    except sqlite3.DatabaseError as exc:
        index.close()
        notices.append(f"search index was damaged ({exc}); rebuilt it")
        index = open_index(vault.cache_dir, rebuild=True)
        report = sync_index(vault, index, embedding, progress)
    notices.extend(report.notices)
    return index, report, notices


def _usable_mode(mode: str, model: QueryModel, notices: list[str]) -> str:
    if mode == "keyword" or model.ref is not None:
        return mode
    if mode == "semantic":
        raise model.error or ModelUnavailableError("no embedding model")
    notices.append(f"keyword results only: {model.error}")
    return "keyword"


def _describe(index: IndexHandle, ranked: Ranking, query: str) -> list[SearchResult]:
    """SearchResults (with snippets) for ranked document ids."""
    if not ranked:
        return []
    ids = [doc_id for doc_id, _ in ranked]
    rows = index.conn.execute(
        "SELECT id, file, kind, slug, topic, category, tags, status, entry, line, body "
        f"FROM docs WHERE id IN ({', '.join('?' * len(ids))})",
        ids,
    ).fetchall()
    by_id = {row[0]: row for row in rows}
    results = []
    for doc_id, score in ranked:
        _, file, kind, slug, topic, category, tags, status, entry, line, body = by_id[doc_id]
        snippet = make_snippet(body, query)
        results.append(
            SearchResult(
                slug=slug, path=file, topic=topic, category=category,
                tags=tuple(json.loads(tags)), status=status, score=score, snippet=snippet.text,
                kind=kind, entry=entry, line=line, matches=snippet.matches,
            )
        )  # fmt: skip
    return results
