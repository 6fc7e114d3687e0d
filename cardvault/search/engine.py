"""Search and index as services: bring the index up to date, rank, fuse, describe the hits.

`Searcher` is the search service for one vault: it holds the query model, the open index and
the vectors already loaded, so a long-lived caller's warm query pays only for what changed.
`search()` is the one-shot form. Neither prints: what the user should know comes back as
`notices`. The query path imports neither torch nor sentence-transformers (onnx.py).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from cardvault.errors import CardvaultError
from cardvault.search.checkpoint import checkpoint_path
from cardvault.search.documents import Dates
from cardvault.search.embed_sync import QUERY_BUDGET, Embedding, Vectors
from cardvault.search.filters import Filters
from cardvault.search.fusion import (
    CANDIDATES,
    Evidence,
    Weights,
    calibration_for,
    hybrid,
    keyword_scored,
    semantic_scored,
)
from cardvault.search.index import (
    BUSY_SECONDS,
    DB_NAME,
    IndexBusy,
    IndexHandle,
    is_locked,
    open_index,
    skipped_files,
)
from cardvault.search.model import ModelUnavailableError, reads
from cardvault.search.query_model import QueryModel
from cardvault.search.results import Ranked, SearchOutcome, SearchResult, describe
from cardvault.search.retrieve import (
    PassageVectors,
    Ranking,
    eligible_ids,
    holding_every_term,
    keyword_ranking,
    passage_vectors,
    semantic_ranking,
    term_idf,
)
from cardvault.search.sync import Progress, SyncReport, sync_index
from cardvault.search.text import KeywordQuery
from cardvault.vault import derived_store
from cardvault.vault.layout import Vault
from cardvault.words import language

if TYPE_CHECKING:
    from cardvault.search.freshness import ChangeWatcher
    from cardvault.search.rerank import CrossEncoder

__all__ = [
    "MODES",
    "Dates",
    "Filters",
    "KeywordQuery",
    "Progress",
    "QueryModel",
    "SearchOutcome",
    "SearchResult",
    "Searcher",
    "SyncReport",
    "Weights",
    "build_index",
    "search",
]

MODES = ("hybrid", "semantic", "keyword")
#: How long a query waits for another process writing the index before it answers from the
#: index as last committed: longer than a sync of a few changed cards, far shorter than an index.
SEARCH_WAIT = 5.0
#: How long it waits while the index holds nothing yet: an answer from it helps no one.
FIRST_WAIT = BUSY_SECONDS


class Searcher:
    """The search service for one vault, reusable across queries (and threads); `model` may be
    shared between searchers, and `watch` lets a query on an unchanged vault skip the sync."""

    def __init__(self, vault: Vault, model: QueryModel | None = None, watch: bool = False):
        self.vault = vault
        self._folder = vault.index_dir  # where it lies is settled once, as the vault's config
        self._model = model
        self._index: IndexHandle | None = None
        self._lock = threading.RLock()
        self._vectors: dict[Filters, PassageVectors | None] = {}
        self._eligible_ids: dict[Filters, frozenset[int]] = {}
        self._asked: set[Filters] = set()  # filters a query has used (see `_eligible`)
        self._state: tuple[int, ...] | None = None
        self._synced: tuple[tuple[int, ...], Vectors] | None = None  # the vectors a sync left
        self._fresh: _Freshness | None = None
        self._opened_id: tuple[int, int] | None = None
        self._unsaid: list[str] = []  # what the opening repaired, not yet told
        self._watcher: ChangeWatcher | None = None
        self._embedder_thread: ThreadPoolExecutor | None = None
        self._reranker: CrossEncoder | None = None
        if watch:
            from cardvault.search.freshness import ChangeWatcher

            self._watcher = ChangeWatcher(vault)

    def __enter__(self) -> Searcher:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def model(self) -> QueryModel:
        """The query model (resolved on first use: a keyword-only caller never needs it)."""
        if self._model is None:
            self._model = QueryModel(self.vault, resident=self._watcher is not None)
        return self._model

    def close(self) -> None:
        """Stop the watcher, close the index, and wait for a model still loading."""
        with self._lock:
            if self._watcher is not None:
                self._watcher.stop()
                self._watcher = None
            self._close_index()
            if self._embedder_thread is not None:
                self._embedder_thread.shutdown()
                self._embedder_thread = None
            if self._reranker is not None:
                self._reranker.close()
                self._reranker = None
            if self._model is not None:
                self._model.settle()

    def search(
        self,
        query: str | KeywordQuery,
        k: int = 10,
        mode: str = "hybrid",
        filters: Filters | None = None,
        rerank: bool | None = None,
    ) -> SearchOutcome:
        """Sync the index as needed, then return the `k` best documents for `query` in `mode`;
        `rerank` (None: the vault's `[search] rerank`) rereads a hybrid's first hits (rerank.py)."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        filters = filters or Filters()
        query = KeywordQuery.of(query)
        with self._lock:
            if mode != "keyword":
                self.model.prefetch()
            notices: list[str] = []
            if rerank and mode != "hybrid":  # asked for (the setting applies where it can)
                notices.append(
                    f"not reranked: the reranker rereads a hybrid search's hits, not a {mode} one's"
                )
            if rerank is None:
                rerank = self.vault.config.search_rerank
            try:
                return self._search(query, k, mode, filters, notices, rerank)
            except (sqlite3.DatabaseError, OSError) as exc:  # damaged while in use: rebuild once
                notices.append(f"search index {self._trouble(exc)}; rebuilt it")
                try:
                    self._open(True, notices)
                    return self._search(query, k, mode, filters, notices, rerank)
                except (sqlite3.DatabaseError, OSError) as again:
                    trouble = self._trouble(again)
                    raise CardvaultError(f"search index {trouble}; cannot search") from again

    def index(self, rebuild: bool = False, progress: Progress | None = None) -> SyncReport:
        """Bring the index up to date, embedding in bulk (`cardvault index`); a write that fails
        is one CardvaultError naming the index."""
        with self._lock:
            try:
                return build_index(self.vault, rebuild, progress, searcher=self)
            except (sqlite3.Error, OSError) as exc:
                where = getattr(exc, "filename", None) or self._folder / DB_NAME
                why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                raise CardvaultError(
                    f"the search index could not be written ({why}: is the disk full, or the "
                    "folder read-only?); the vault is untouched: free space or fix the "
                    "permissions, then run `cardvault index` again",
                    where,
                ) from exc

    @property
    def indexed(self) -> bool:
        """Whether the vault has a whole search index (`model_id` is set with a whole sync's
        vectors), and no index run was interrupted since (its checkpoint waits)."""
        with self._lock:  # the search that follows uses this opening, and says its repairs
            try:
                built = self._open().meta("model_id")
            except (sqlite3.DatabaseError, OSError):
                return True  # the search that follows rebuilds it and says why
        return bool(built) and not checkpoint_path(self._folder).exists()

    def first_index(self, progress: Progress, wait: float = SEARCH_WAIT) -> bool:
        """Build the index now, reporting to `progress`, if the vault has none yet (else a
        first search builds it with nothing to show meanwhile), a query's budget of passages at
        a time. False when it is still not built: another process kept the index for more than
        `wait` seconds, or the index or the disk is broken."""
        with self._lock:
            if self.indexed:
                return True
            unsaid, self._unsaid = self._unsaid, []  # the search that follows tells them
            # a broken index or disk: the search that follows meets it again and says what
            with contextlib.suppress(sqlite3.DatabaseError, OSError):
                self.synced(self._query_embedding(), [], progress, wait=wait)
            self._unsaid[:0] = unsaid
            return self.indexed

    def _query_embedding(self) -> Embedding | None:
        """How a query's sync embeds: at most QUERY_BUDGET passages, the rest left for later."""
        embedding = self.model.embedding()
        return None if embedding is None else replace(embedding, budget=QUERY_BUDGET)

    def _trouble(self, exc: BaseException) -> str:
        """What went wrong with the index, following "search index"."""
        return derived_store.trouble(self._folder / DB_NAME, f"was damaged ({exc})")

    def _search(
        self,
        query: KeywordQuery,
        k: int,
        mode: str,
        filters: Filters,
        notices: list[str],
        rerank: bool = False,
    ) -> SearchOutcome:
        # a keyword search brings the keyword half up to date only: it never waits for the
        # model to embed what changed (minutes for a huge note); the next ranked search does
        embedding = None if mode == "keyword" else self._query_embedding()
        if mode != "keyword":  # the vault's own model, set aside until approved (trust/)
            notices.extend(self.vault.ignored_notes("search.model"))
        index, report = self.synced(embedding, notices, wait=self.query_wait(notices))
        mode = _usable_mode(mode, self.model, notices)
        if mode == "hybrid" and not reads(self.vault.config.model, language(query.text)):
            mode = "keyword"  # the model's cosines say nothing about a question it cannot read
        reader = self._cross_encoder(notices) if rerank and mode == "hybrid" else None
        try:
            ranked = self._rank(index, query, mode, filters, k, reader)
        except ModelUnavailableError as exc:
            if mode != "hybrid":
                raise
            notices.append(f"keyword results only: {exc}")
            mode = "keyword"
            ranked = self._rank(index, query, mode, filters, k)
        results = describe(index, ranked, query)
        weights = ranked.weights if mode == "hybrid" else None
        floor = calibration_for(self.vault.config.model).weak_below
        return SearchOutcome(results, mode, report, tuple(notices), weights, floor)

    def query_wait(self, notices: list[str]) -> float:
        """How long a query's sync waits for another process writing the index: `SEARCH_WAIT`
        when the index has documents to answer from, `FIRST_WAIT` while it has none."""
        return FIRST_WAIT if _holds_nothing(self._open(notices=notices)) else SEARCH_WAIT

    def synced(
        self,
        embedding: Embedding | None,
        notices: list[str],
        progress: Progress | None = None,
        rebuild: bool = False,
        wait: float | None = None,
    ) -> tuple[IndexHandle, SyncReport]:
        """The open index, brought up to date (a database found broken mid-way is rebuilt).

        With a watcher, only the files it reports changed are compared, and nothing when none
        did and the index is as this searcher left it. While another process writes the index,
        this waits at most `wait` seconds, then answers from its last commit with a notice.
        """
        index = self._open(rebuild, notices)
        only = None if rebuild else self._changed_paths()
        if only == set() and self._still_fresh(index, embedding):
            return index, SyncReport(errors=skipped_files(index.conn))
        self._fresh = None  # until this sync has succeeded
        try:
            report = sync_index(self.vault, index, embedding, progress, only, wait)
        except (IndexBusy, sqlite3.DatabaseError, OSError) as exc:
            if isinstance(exc, IndexBusy) or is_locked(exc):  # in use, not damaged
                notices.append(_busy_notice(index))
                return index, SyncReport(errors=skipped_files(index.conn))
            notices.append(f"search index {self._trouble(exc)}; rebuilt it")
            index = self._open(True, notices)
            report = sync_index(self.vault, index, embedding, progress)
        notices.extend(report.notices)
        vectors, report.vectors = report.vectors, None  # the ranking's, not the outcome's
        self._synced = None if vectors is None else (index_state(index), vectors)
        if self._watcher is not None and not (embedding is not None and report.unembedded):
            self._fresh = _Freshness(index_state(index), embedding)  # else the next sync goes on
        return index, report

    def _changed_paths(self) -> set[str] | None:
        if self._watcher is None:
            return None
        changed = self._watcher.changes()
        return None if self._fresh is None else changed

    def _still_fresh(self, index: IndexHandle, embedding: Embedding | None) -> bool:
        """Whether the last sync still holds: no file changed (the caller knows), no other
        process wrote the index, and it covered what `embedding` needs."""
        fresh = self._fresh
        if fresh is None or fresh.state != index_state(index):
            return False
        if embedding is None:
            return True
        last = fresh.embedding
        return (
            last is not None
            and last.model_id == embedding.model_id
            and (last.verify or not embedding.verify)
        )

    def _open(self, rebuild: bool = False, notices: list[str] | None = None) -> IndexHandle:
        """The open index (opened or rebuilt now if needed; repairs noted in `notices`); a file
        replaced since it was opened (another process rebuilt it) is reopened."""
        if rebuild or (self._index is not None and self._file_id() != self._opened_id):
            self._close_index()
        if self._index is None:
            self._index = open_index(self._folder, rebuild=rebuild)
            self._opened_id = self._file_id()
            self._unsaid.extend(self._index.notices)
        if notices is not None:  # the repairs of an opening, told to the first caller that tells
            notices.extend(self._unsaid)
            self._unsaid.clear()
        return self._index

    def _file_id(self) -> tuple[int, int] | None:
        try:
            stat = (self._folder / DB_NAME).stat()
        except OSError:
            return None
        return (stat.st_dev, stat.st_ino)

    def _close_index(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None
        self._vectors.clear()
        self._state = self._synced = None
        self._fresh = None

    def _cross_encoder(self, notices: list[str]) -> CrossEncoder | None:
        """The reranker's cross-encoder (loaded once per searcher), or None with a notice when
        it is not installed."""
        if self._reranker is None:
            from cardvault.search.rerank import CrossEncoder

            try:
                self._reranker = CrossEncoder()
            except ModelUnavailableError as exc:
                notices.append(f"not reranked: {exc}")
                return None
        return self._reranker

    def _rank(
        self,
        index: IndexHandle,
        query: KeywordQuery,
        mode: str,
        filters: Filters,
        k: int,
        reader: CrossEncoder | None = None,
    ) -> Ranked:
        """The top `k` for `query` in `mode` over an up-to-date index, with each side's evidence
        and calibrated scores (fusion.py); a `reader` rereads a hybrid's first hits."""
        depth = max(CANDIDATES, k)
        calibration = calibration_for(self.vault.config.model)
        self._check_state(index)
        if mode == "keyword":
            keyword = keyword_ranking(index, query, filters, depth, self._eligible(index, filters))
            if not _shares_words(query, keyword):
                return Ranked([])  # no evidence at all: "no match"
            evidence = Evidence.of(query.text, term_idf(index, query) if keyword else {})
            scored = keyword_scored(keyword, evidence, calibration)[:k]
            exact = holding_every_term(index, query, [doc_id for doc_id, _ in scored])
            levels = {d: bm25 / evidence.idf_total for d, bm25 in keyword[:k]}
            weak = frozenset(levels.keys() - calibration.alone(levels, False) - exact)
            return Ranked(scored, keyword=_evidence(keyword), weak=weak)
        # The query is embedded on a second thread while the keyword side ranks: onnxruntime
        # and SQLite both let go of the GIL, so a hybrid query costs the longer side, not both.
        model = self.model
        eligible = self._eligible(index, filters) if mode != "semantic" else None
        embedding = self._embedding_thread().submit(
            lambda: model.embedder().embed_queries([query.text])
        )
        keyword = (
            keyword_ranking(index, query, filters, depth, eligible) if mode != "semantic" else []
        )
        vector = embedding.result()[0]
        semantic, passages = semantic_ranking(self._passage_vectors(index, filters), vector, depth)
        near = calibration.alone(dict(semantic))  # each cosine clearing the noise floor alone
        if not (semantic and semantic[0][0] in near) and not _shares_words(
            query, keyword_ranking(index, query, filters, 1) if mode == "semantic" else keyword
        ):
            return Ranked([])  # no evidence at all: "no match" (weak hits are shown, marked)
        if mode == "semantic":
            scored = semantic_scored(semantic, calibration)[:k]
            weak = frozenset(dict(semantic[:k]).keys() - near)
            return Ranked(scored, semantic=_evidence(semantic), passages=passages, weak=weak)
        evidence = Evidence.of(query.text, term_idf(index, query) if keyword else {})
        fused = hybrid(keyword, semantic, evidence, calibration, near)
        if reader is not None:
            fused = replace(fused, hits=_reread(index, reader, query.text, fused.hits))
        top = [doc_id for doc_id, _ in fused.hits[:k]]
        exact = holding_every_term(index, query, [d for d in top if d in fused.weak])
        return Ranked(
            fused.hits[:k],
            _evidence(keyword),
            _evidence(semantic),
            passages,
            fused.weights,
            fused.weak - exact,
        )

    def _embedding_thread(self) -> ThreadPoolExecutor:
        if self._embedder_thread is None:
            self._embedder_thread = ThreadPoolExecutor(1, thread_name_prefix="cardvault-embed")
        return self._embedder_thread

    def _passage_vectors(self, index: IndexHandle, filters: Filters) -> PassageVectors | None:
        if filters not in self._vectors:
            left = self._synced  # as the last sync left them, unless the index changed since
            current = left[1] if left is not None and left[0] == self._state else None
            self._vectors[filters] = passage_vectors(index, filters, current)
        return self._vectors[filters]

    def _eligible(self, index: IndexHandle, filters: Filters) -> frozenset[int] | None:
        """The ids of the documents `filters` admits, kept while the index is unchanged; None
        on a searcher's first query with them (the SQL join is cheaper for one query)."""
        if filters in self._eligible_ids:
            return self._eligible_ids[filters]
        if filters not in self._asked:
            self._asked.add(filters)
            return None
        self._eligible_ids[filters] = eligible_ids(index, filters)
        return self._eligible_ids[filters]

    def _check_state(self, index: IndexHandle) -> None:
        state = index_state(index)
        if state != self._state:
            self._vectors.clear()
            self._eligible_ids.clear()
            self._state = state


@dataclass(frozen=True)
class _Freshness:
    """The index state a searcher's last sync left, and what that sync covered."""

    state: tuple[int, ...]
    embedding: Embedding | None


def index_state(index: IndexHandle) -> tuple[int, ...]:
    """Changes whenever the index changes: commits by any connection, this one's included."""
    version = index.conn.execute("PRAGMA data_version").fetchone()[0]
    return (int(version), index.conn.total_changes)


def _reread(index: IndexHandle, reader: CrossEncoder, query: str, hits: Ranking) -> Ranking:
    """`hits` after the cross-encoder read the query with each of the first DEPTH documents."""
    from cardvault.search.rerank import DEPTH, rerank

    ids = [doc_id for doc_id, _ in hits[:DEPTH]]
    if not ids:
        return hits
    rows = index.conn.execute(
        f"SELECT id, topic, body FROM docs WHERE id IN ({', '.join('?' * len(ids))})", ids
    ).fetchall()
    texts = {doc_id: f"{topic}\n\n{body}" for doc_id, topic, body in rows}
    read = [doc_id for doc_id in ids if doc_id in texts]
    logits = dict(zip(read, reader.logits(query, [texts[d] for d in read]), strict=True))
    return rerank(hits, logits)


def _holds_nothing(index: IndexHandle) -> bool:
    return index.conn.execute("SELECT 1 FROM docs LIMIT 1").fetchone() is None


def _busy_notice(index: IndexHandle) -> str:
    """What a query says when another process kept the index longer than it would wait."""
    if _holds_nothing(index):
        return (
            "another cardvault is building the search index and nothing is in it yet: search "
            "again when it is done (`cardvault index` waits for it)"
        )
    return (
        "another cardvault is writing the search index (an index or maintain run); these "
        "results come from the index as it stood before, and may miss its latest changes"
    )


def _shares_words(query: KeywordQuery, keyword: Ranking) -> bool:
    """Whether some document holds a word of the query other than a stop word (a query of stop
    words alone, "the", is held by nearly every text: no evidence)."""
    return bool(keyword) and query.says_something


def _evidence(ranking: Ranking) -> dict[int, tuple[int, float]]:
    return {doc_id: (rank, score) for rank, (doc_id, score) in enumerate(ranking, start=1)}


def search(
    vault: Vault,
    query: str,
    k: int = 10,
    mode: str = "hybrid",
    filters: Filters | None = None,
    model: QueryModel | None = None,
) -> SearchOutcome:
    """One search: sync the index, then the `k` best documents for `query` in `mode`."""
    with Searcher(vault, model) as searcher:
        return searcher.search(query, k, mode, filters)


def build_index(
    vault: Vault,
    rebuild: bool = False,
    progress: Progress | None = None,
    searcher: Searcher | None = None,
) -> SyncReport:
    """Index the vault, embedding in bulk; export the ONNX copy of the model for searches."""
    from cardvault.search.bulk import bulk_embedding

    embedding, notices = bulk_embedding(vault)
    notices[:0] = vault.ignored_notes("search.model")
    with contextlib.nullcontext(searcher) if searcher else Searcher(vault) as worker:
        _, report = worker.synced(embedding, notices, progress, rebuild)
    report.notices = notices
    return report


def _usable_mode(mode: str, model: QueryModel, notices: list[str]) -> str:
    if mode == "keyword" or model.ref is not None:
        return mode
    if mode == "semantic":
        raise model.error or ModelUnavailableError("no embedding model")
    notices.append(f"keyword results only: {model.error}")
    return "keyword"
