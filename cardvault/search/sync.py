"""Bringing the index up to date with the vault: a pure diff of files on disk against index rows.

A file whose size and mtime match its `files` row is skipped unread; a changed file is read and
its digest compared, and only a file whose bytes changed is parsed again. A vector is computed
only for a text digest that has none under the current model, so an edited card is re-embedded
alone, a touched-but-unchanged one not at all, and a model change re-embeds everything.
All writes of one sync happen in one transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cardvault.errors import CardvaultError
from cardvault.search.documents import Document, SourceFile, documents_of, list_sources
from cardvault.search.embedder import Embedder
from cardvault.search.index import (
    IndexHandle,
    has_vector_file,
    load_vectors,
    prune_vector_files,
    record_vector_size,
    vector_rows,
    write_vectors,
)
from cardvault.search.model import ModelUnavailableError
from cardvault.search.text import segment
from cardvault.vault.files import read_text
from cardvault.vault.layout import Vault

if TYPE_CHECKING:
    import numpy as np

#: progress(phase, done, total); phase is "reading" or "embedding".
SyncProgress = Callable[[str, int, int], None]


@dataclass
class SyncReport:
    """What one sync did. `embedded` counts the texts sent to the model."""

    files: int = 0
    parsed: int = 0
    removed_files: int = 0
    documents: int = 0
    embedded: int = 0
    unembedded: int = 0
    errors: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Whether anything was written."""
        return bool(self.parsed or self.removed_files or self.embedded)


@dataclass(frozen=True)
class Embedding:
    """How to embed during this sync: the current model id and a lazy embedder factory."""

    model_id: str
    make: Callable[[int], Embedder]  # called with the number of texts to embed


def sync_index(
    vault: Vault,
    index: IndexHandle,
    embedding: Embedding | None,
    progress: SyncProgress | None = None,
) -> SyncReport:
    """Update `index` to match `vault`; embed what lacks a vector when `embedding` is given."""
    report = SyncReport()
    sources = list_sources(vault)
    report.files = len(sources)
    known = {
        row[0]: (row[1], row[2], row[3])
        for row in index.conn.execute("SELECT path, mtime_ns, size, digest FROM files")
    }
    stale = [
        s for rel, s in sources.items() if known.get(rel, (None, None))[:2] != (s.mtime_ns, s.size)
    ]
    gone = [rel for rel in known if rel not in sources]
    parsed = _read_changed(stale, known, vault, report, progress)
    if not stale and not gone and _vectors_current(index, embedding, report):
        report.documents = index.conn.execute("SELECT count(*) FROM docs").fetchone()[0]
        return report  # nothing to write: no transaction, no lock
    index.conn.execute("BEGIN IMMEDIATE")
    try:
        _write_files(index, parsed, gone)
        report.parsed = sum(1 for _, _, docs in parsed if docs is not None)
        report.removed_files = len(gone)
        _sync_vectors(index, embedding, report, progress)
        index.conn.execute("COMMIT")
    except BaseException:
        index.conn.execute("ROLLBACK")
        raise
    prune_vector_files(index)
    report.documents = index.conn.execute("SELECT count(*) FROM docs").fetchone()[0]
    return report


Parsed = tuple[SourceFile, str, "list[Document] | None"]


def _read_changed(
    stale: list[SourceFile],
    known: dict[str, tuple[int, int, str]],
    vault: Vault,
    report: SyncReport,
    progress: SyncProgress | None,
) -> list[Parsed]:
    """(source, digest, documents or None when the bytes did not change) for stale files."""
    parsed: list[Parsed] = []
    for number, source in enumerate(stale, start=1):
        try:
            text = read_text(source.path)
        except CardvaultError as exc:
            report.errors.append(str(exc))
            parsed.append((source, "unreadable", []))
            continue
        if source.rel in known and known[source.rel][2] == text.digest:
            parsed.append((source, text.digest, None))
            continue
        try:
            docs = documents_of(source, text.text, vault)
        except CardvaultError as exc:
            report.errors.append(str(exc))
            docs = []
        parsed.append((source, text.digest, docs))
        if progress is not None and (number % 200 == 0 or number == len(stale)):
            progress("reading", number, len(stale))
    return parsed


def _write_files(index: IndexHandle, parsed: list[Parsed], gone: list[str]) -> None:
    conn = index.conn
    for rel in gone:
        _delete_file_docs(conn, rel)
        conn.execute("DELETE FROM files WHERE path = ?", (rel,))
    for source, digest, docs in parsed:
        conn.execute(
            "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?)",
            (source.rel, source.mtime_ns, source.size, digest),
        )
        if docs is None:
            continue
        _delete_file_docs(conn, source.rel)
        for doc in docs:
            _insert_doc(conn, source.rel, doc)


def _delete_file_docs(conn: sqlite3.Connection, rel: str) -> None:
    ids = [row[0] for row in conn.execute("SELECT id FROM docs WHERE file = ?", (rel,))]
    conn.executemany("DELETE FROM fts WHERE rowid = ?", [(i,) for i in ids])
    conn.execute("DELETE FROM docs WHERE file = ?", (rel,))


def _insert_doc(conn: sqlite3.Connection, rel: str, doc: Document) -> None:
    cursor = conn.execute(
        "INSERT OR REPLACE INTO docs (file, key, kind, slug, topic, category, tags, status, "
        "entry, line, body, text_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (rel, doc.key, doc.kind, doc.slug, doc.topic, doc.category, json.dumps(list(doc.tags)),
         doc.status, doc.entry, doc.line, doc.body, doc.text_hash),
    )  # fmt: skip
    conn.execute(
        "INSERT INTO fts (rowid, topic, tags, body) VALUES (?, ?, ?, ?)",
        (cursor.lastrowid, segment(doc.topic), segment(" ".join(doc.tags)), segment(doc.body)),
    )


def _sync_vectors(
    index: IndexHandle,
    embedding: Embedding | None,
    report: SyncReport,
    progress: SyncProgress | None,
) -> None:
    """Embed texts without a vector, drop vectors no document uses; rewrite the matrix once."""
    index.set_meta("vectors_complete", "")
    if embedding is None:
        report.unembedded = _count_missing(index)
        return
    matrix = load_vectors(index)
    current = index.meta("model_id") == embedding.model_id and matrix is not None
    if current and not _count_missing(index) and not _count_unused(index):
        record_vector_size(index)  # an index written before sizes were recorded
        index.set_meta("vectors_complete", embedding.model_id)
        return
    have = vector_rows(index) if current else {}
    needed = _needed_texts(index)
    missing = [h for h in needed if h not in have]
    new_vectors = None
    if missing:
        if progress is not None:
            progress("loading model", 0, 0)
        try:
            embedder = embedding.make(len(missing))
        except ModelUnavailableError as exc:
            report.notices.append(f"semantic search unavailable: {exc}")
            report.unembedded = len(missing)
            return
        step = None if progress is None else (lambda d, t: progress("embedding", d, t))
        new_vectors = embedder.embed([needed[h] for h in missing], step)
        report.embedded = len(missing)
    kept = [h for h in needed if h in have]
    _store_matrix(index, kept, [have[h] for h in kept], matrix, missing, new_vectors)
    index.set_meta("model_id", embedding.model_id)
    index.set_meta("vectors_complete", embedding.model_id)


def _store_matrix(
    index: IndexHandle,
    kept: list[str],
    kept_rows: list[int],
    matrix: np.ndarray | None,
    missing: list[str],
    new_vectors: np.ndarray | None,
) -> None:
    import numpy as np

    parts = []
    if kept and matrix is not None:
        parts.append(np.asarray(matrix[kept_rows], dtype=np.float32))
    if new_vectors is not None:
        parts.append(new_vectors)
    combined = np.concatenate(parts) if parts else np.zeros((0, 0), np.float32)
    write_vectors(index, kept + missing, combined)


def _needed_texts(index: IndexHandle) -> dict[str, str]:
    """text digest -> the text to embed, for every document in the index."""
    needed: dict[str, str] = {}
    rows = index.conn.execute("SELECT text_hash, topic, body, tags FROM docs ORDER BY id")
    for text_hash, topic, body, tags in rows:
        if text_hash not in needed:
            doc = Document("", "", "", topic, "", tuple(json.loads(tags)), "", None, None, body)
            needed[text_hash] = doc.embed_text
    return needed


def _vectors_current(index: IndexHandle, embedding: Embedding | None, report: SyncReport) -> bool:
    """Whether every document has a vector of the current model and no vector is unused."""
    if embedding is None:
        return True
    # Set by the last sync that left every text with a vector (cleared by any other outcome).
    return index.meta("vectors_complete") == embedding.model_id and has_vector_file(index)


def _count_missing(index: IndexHandle) -> int:
    """Distinct document texts that have no vector."""
    row = index.conn.execute(
        "SELECT count(DISTINCT d.text_hash) FROM docs d "
        "LEFT JOIN vectors v ON v.text_hash = d.text_hash WHERE v.text_hash IS NULL"
    ).fetchone()
    return int(row[0])


def _count_unused(index: IndexHandle) -> int:
    """Vectors whose text no document has any more."""
    row = index.conn.execute(
        "SELECT count(*) FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM docs)"
    ).fetchone()
    return int(row[0])
