"""The semantic half of a sync: split new documents into passages, embed passages lacking a
vector, drop what no document uses, and rewrite the vector matrix once.

Everything is keyed by content (passages by their document's text digest, a vector by its
passage's), so an unchanged passage is never embedded again, and a row failing its checksum
counts as missing. Passages depend on the model's tokenizer: a model change drops them too.
A query's sync embeds at most `QUERY_BUDGET` passages, card by card, and commits them; the next
sync goes on where it stopped.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cardvault.search.checkpoint import EVERY, Checkpoint, discard
from cardvault.search.documents import embed_text, text_key
from cardvault.search.embedder import Embedder, EmbedProgress
from cardvault.search.index import UNPROVEN, IndexHandle, rows_in
from cardvault.search.model import ModelRef, ModelUnavailableError
from cardvault.search.vector_store import (
    has_vector_file,
    load_matrix,
    verified_rows,
    write_vectors,
)
from cardvault.vault.progress import Progress

if TYPE_CHECKING:
    import numpy as np

#: A vector matrix and the row of each text digest whose row in it is verified.
Vectors = tuple["np.ndarray", dict[str, int]]
#: Passages a query's sync embeds at most (a few seconds on 2 cores): two huge cards' worth.
QUERY_BUDGET = 128


@dataclass(frozen=True)
class Embedding:
    """How a sync embeds: the model, a lazy embedder factory (given the number of texts), whether
    to verify every stored row even when nothing changed, and the most passages one sync embeds."""

    ref: ModelRef
    make: Callable[[int], Embedder]
    verify: bool = True
    budget: int | None = None

    @property
    def model_id(self) -> str:
        """The model's id (vectors of another id are never used)."""
        return self.ref.model_id


@dataclass
class VectorReport:
    """What the semantic half did: passages split and texts embedded, and any notices."""

    split: int = 0
    embedded: int = 0
    embedded_docs: int = 0
    resumed: int = 0  # vectors taken from an interrupted sync's checkpoint
    rejected: int = 0  # stored rows that failed their checksum
    unembedded: int = 0
    left_docs: int = 0  # documents with passages still to embed (a budget was reached)
    notices: list[str] = field(default_factory=list)
    #: The vector matrix the index holds now and each verified text digest's row in it, when
    #: the sync read or wrote them: the search that follows ranks with them as they are.
    current: Vectors | None = field(default=None, repr=False)


def vectors_current(index: IndexHandle, embedding: Embedding | None) -> bool:
    """Whether every passage has a vector of the current model and no vector is unused (with
    `verify`, every stored row's checksum is checked as well)."""
    if embedding is None:
        return True
    if index.meta("vectors_complete") != embedding.model_id or not has_vector_file(index):
        return False
    if not embedding.verify:
        return True
    records = index.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    return len(verified_rows(index, load_matrix(index))) == records


def sync_vectors(
    index: IndexHandle, embedding: Embedding | None, progress: Progress | None
) -> VectorReport:
    """Bring passages and vectors up to date inside the caller's transaction."""
    report = VectorReport()
    if embedding is None:
        index.set_meta({"vectors_complete": ""})
        report.unembedded = count_unembedded(index.conn)
        return report
    model_id = embedding.model_id
    before = index.meta("model_id")
    if before != model_id:
        if before:  # vectors of two models never meet: every text is embedded again
            report.notices.append(
                f"the index was built with another model ({before}); embedding every passage "
                f"again with {model_id}"
            )
        index.conn.execute("DELETE FROM passages")
        index.conn.execute("DELETE FROM vectors")
    index.set_meta({"vectors_complete": "", "model_id": model_id})
    report.split = _split_new_documents(index, embedding.ref, progress)
    index.conn.execute("DELETE FROM passages WHERE doc_hash NOT IN (SELECT text_hash FROM docs)")
    matrix = load_matrix(index)
    have = verified_rows(index, matrix)
    report.rejected = index.conn.execute("SELECT count(*) FROM vectors").fetchone()[0] - len(have)
    if report.rejected and index.meta(UNPROVEN):
        report.notices.append(
            f"{report.rejected} stored vector(s) were not made on this machine (the index was "
            "copied or checked out); embedding their texts again"
        )
    elif report.rejected:
        report.notices.append(
            f"{report.rejected} stored vector(s) did not match their text; computing them again"
        )
    needed = _passages_in_order(index)
    missing = [h for h in needed if h not in have]
    fresh = _embed(index, embedding, missing, report, progress) if missing else {}
    if fresh is None:
        return report  # no model: keep what there is, the next sync tries again
    done = [h for h in missing if h in fresh]
    if done or report.rejected or len(have) != len(needed):
        kept = [h for h in needed if h in have]
        report.current = _store(
            index, kept, [have[h] for h in kept], matrix, done, [fresh[h] for h in done]
        )
    elif matrix is not None:
        report.current = matrix, have
    left = [h for h in missing if h not in fresh]
    # every stored row is one this machine made; complete unless the budget was reached
    index.set_meta({UNPROVEN: "", "vectors_complete": "" if left else model_id})
    if left:  # the next sync goes on
        report.unembedded = len(left)
        report.left_docs = _documents_of(index, left)
        report.notices.append(
            f"{report.left_docs:,} document{'s' if report.left_docs != 1 else ''} still to embed: "
            "these results come from the keyword index and the vectors ready so far; later "
            "searches embed more (or run `cardvault index` to finish now)"
        )
    return report


def _passages_in_order(index: IndexHandle) -> list[str]:
    """Every passage digest, once, document by document (a budget finishes whole cards first,
    cards before log entries)."""
    rows = index.conn.execute(
        "SELECT p.text_hash FROM passages p WHERE p.doc_hash IN (SELECT text_hash FROM docs) "
        "ORDER BY (SELECT min(CASE d.kind WHEN 'log' THEN 1 ELSE 0 END) FROM docs d "
        "WHERE d.text_hash = p.doc_hash), p.doc_hash, p.seq"
    )
    return list(dict.fromkeys(row[0] for row in rows))


def _split_new_documents(
    index: IndexHandle, ref: ModelRef, progress: Progress | None = None
) -> int:
    """Passages for every document text that has none yet; returns how many texts were split."""
    from cardvault.search.passages import Splitter

    rows = index.conn.execute(
        "SELECT DISTINCT d.text_hash, d.topic, d.body, d.tags FROM docs d WHERE NOT EXISTS "
        "(SELECT 1 FROM passages p WHERE p.doc_hash = d.text_hash)"
    ).fetchall()
    if not rows:
        return 0
    if progress is not None:
        progress("splitting", 0, len(rows))
    docs = [(topic, body, tuple(json.loads(tags))) for _, topic, body, tags in rows]
    spans = Splitter(ref).spans(docs)
    for (doc_hash, _, _, _), (topic, body, tags), doc_spans in zip(rows, docs, spans, strict=True):
        index.conn.executemany(
            "INSERT OR REPLACE INTO passages VALUES (?, ?, ?, ?, ?)",
            [
                (doc_hash, seq, start, stop, text_key(embed_text(topic, body[start:stop], tags)))
                for seq, (start, stop) in enumerate(doc_spans)
            ],
        )
    if progress is not None:
        progress("splitting", len(rows), len(rows))
    return len(rows)


def passage_texts(index: IndexHandle, hashes: list[str]) -> tuple[dict[str, str], int]:
    """passage digest -> the text the model reads, of `hashes`; and how many documents hold them."""
    texts: dict[str, str] = {}
    documents: set[str] = set()
    sql = (
        "SELECT p.text_hash, p.doc_hash, p.start, p.stop, d.topic, d.body, d.tags FROM passages p "
        "JOIN docs d ON d.text_hash = p.doc_hash WHERE p.text_hash IN ({})"
    )
    for text_hash, doc_hash, start, stop, topic, body, tags in rows_in(index.conn, sql, hashes):
        documents.add(doc_hash)
        if text_hash not in texts:
            texts[text_hash] = embed_text(topic, body[start:stop], tuple(json.loads(tags)))
    return texts, len(documents)


def _embed(
    index: IndexHandle,
    embedding: Embedding,
    missing: list[str],
    report: VectorReport,
    progress: Progress | None,
) -> dict[str, np.ndarray] | None:
    """Vectors for the `missing` passage digests: those an interrupted sync saved
    (checkpoint.py), and the first `embedding.budget` of the rest embedded now; None when the
    model cannot be loaded."""
    saved = Checkpoint(index.folder, embedding.model_id)
    try:
        kept = saved.take(missing)
        todo = [h for h in missing if h not in kept][: embedding.budget]
        fresh = _embed_new(index, embedding, todo, saved, report, progress) if todo else {}
    finally:
        saved.close()
    if fresh is None:
        report.unembedded = len(missing)
        return None
    widths = {len(v) for v in kept.values()} | {len(v) for v in fresh.values()}
    if len(widths) > 1:  # a checkpoint of another width: embed those texts again
        discard(index.folder)
        return _embed(index, embedding, missing, report, progress)
    if kept:
        report.resumed = len(kept)
        report.notices.append(
            f"kept {len(kept):,} passage vector(s) an interrupted index had embedded; "
            f"embedded the other {len(todo):,}"
        )
    report.embedded = len(todo)
    return kept | fresh


def _embed_new(
    index: IndexHandle,
    embedding: Embedding,
    todo: list[str],
    saved: Checkpoint,
    report: VectorReport,
    progress: Progress | None,
) -> dict[str, np.ndarray] | None:
    """Vectors for the `todo` digests, saved to `saved` as they come when there are many."""
    texts, documents = passage_texts(index, todo)
    if progress is not None:
        progress("loading model", 0, 1)
    try:
        embedder = embedding.make(len(todo))
    except ModelUnavailableError as exc:
        report.notices.append(f"semantic search unavailable: {exc}")
        return None
    if progress is not None:
        progress("loading model", 1, 1)
        progress("embedding", 0, len(todo))
    each = len(todo) if len(todo) <= EVERY else EVERY
    vectors: dict[str, np.ndarray] = {}
    for first in range(0, len(todo), each):
        part = todo[first : first + each]
        step: EmbedProgress | None = None
        if progress is not None:
            step = lambda done, _, base=first: progress("embedding", base + done, len(todo))  # noqa: E731
        rows = embedder.embed([texts[h] for h in part], step)
        if len(todo) > EVERY:
            saved.add(part, rows)
        vectors.update(zip(part, rows, strict=True))
    report.embedded_docs = documents
    return vectors


def _documents_of(index: IndexHandle, hashes: list[str]) -> int:
    sql = "SELECT DISTINCT doc_hash FROM passages WHERE text_hash IN ({})"
    return len({row[0] for row in rows_in(index.conn, sql, hashes)})


def _store(
    index: IndexHandle,
    kept: list[str],
    kept_rows: list[int],
    matrix: np.ndarray | None,
    missing: list[str],
    new_vectors: list[np.ndarray],
) -> Vectors:
    import numpy as np

    parts = []
    if kept and matrix is not None:
        parts.append(np.asarray(matrix[kept_rows], dtype=np.float32))
    if missing:
        parts.append(np.stack(new_vectors).astype(np.float32))
    combined = np.concatenate(parts) if parts else np.zeros((0, 0), np.float32)
    write_vectors(index, kept + missing, combined, frozenset(missing))
    return combined, {text_hash: row for row, text_hash in enumerate(kept + missing)}


def count_unembedded(conn: sqlite3.Connection) -> int:
    """Document texts not yet split plus passage texts without a vector."""
    row = conn.execute(
        "SELECT (SELECT count(DISTINCT d.text_hash) FROM docs d WHERE NOT EXISTS "
        "(SELECT 1 FROM passages p WHERE p.doc_hash = d.text_hash)) + "
        "(SELECT count(DISTINCT p.text_hash) FROM passages p "
        "LEFT JOIN vectors v ON v.text_hash = p.text_hash WHERE v.text_hash IS NULL)"
    ).fetchone()
    return int(row[0])
