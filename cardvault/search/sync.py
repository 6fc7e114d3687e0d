"""Bringing the index up to date with the vault: a pure diff of files on disk against index rows.

A file whose stat signature matches its `files` row is skipped unread (vault/changes.py
decides); only a file whose bytes changed is parsed again, and only a text without a vector
under the current model is embedded (embed_sync.py). All writes of one sync are one transaction.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from cardvault.search.checkpoint import discard as discard_checkpoint
from cardvault.search.documents import (
    Dates,
    Document,
    card_documents,
    log_documents,
)
from cardvault.search.embed_sync import (
    Embedding,
    Progress,
    Vectors,
    sync_vectors,
    vectors_current,
)
from cardvault.search.index import IndexHandle, record_file, recorded_files, skipped_files
from cardvault.search.text import index_texts
from cardvault.search.vector_store import prune_vector_files
from cardvault.vault.changes import Seen, changed_since
from cardvault.vault.fields import TAGS, TOPIC
from cardvault.vault.layout import FileStat, Vault, files_at, walk
from cardvault.vault.read import read_files

__all__ = ["WAITING", "Embedding", "Progress", "SyncReport", "sync_index"]

#: The progress stage of a sync waiting for another process's (an `index`, a `maintain`).
WAITING = "waiting for another cardvault to finish indexing"


@dataclass
class SyncReport:
    """What one sync did. `errors` names every file the index holds but could not use (read now
    or before)."""

    files: int = 0
    parsed: int = 0
    removed_files: int = 0
    documents: int = 0
    passages: int = 0
    embedded: int = 0
    embedded_docs: int = 0
    resumed: int = 0  # vectors an interrupted sync had embedded, taken from its checkpoint
    unembedded: int = 0
    errors: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    vectors: Vectors | None = field(default=None, repr=False)  # `VectorReport.current`

    @property
    def changed(self) -> bool:
        """Whether anything was written."""
        return bool(self.parsed or self.removed_files or self.embedded or self.resumed)


def sync_index(
    vault: Vault,
    index: IndexHandle,
    embedding: Embedding | None,
    progress: Progress | None = None,
    only: set[str] | None = None,
    wait: float | None = None,
) -> SyncReport:
    """Update `index` to match `vault`; embed what lacks a vector when `embedding` is given.

    `only` limits the comparison to those vault-relative paths (a watcher's report). While
    another process writes the index, the sync waits (a `WAITING` stage of `progress`), or
    raises `IndexBusy` after `wait` seconds having written nothing.
    """
    report = SyncReport()
    stale, gone, parsed = _compare(vault, index, only, progress, report)
    if not stale and not gone and vectors_current(index, embedding):
        _count(index, report)
        return report  # nothing to write: no transaction, no lock
    waited = index.begin_write(
        wait, None if progress is None else lambda _: progress(WAITING, 0, 0)
    )
    try:
        if waited:  # another process wrote the index meanwhile: compare again, inside the
            # transaction (rows read before would be written over that process's newer ones)
            stale, gone, parsed = _compare(vault, index, only, progress, report)
        _write_files(index, parsed, gone)
        report.parsed = sum(1 for _, _, docs, _ in parsed if docs is not None)
        report.removed_files = len(gone)
        vectors = sync_vectors(index, embedding, progress)
        index.conn.execute("COMMIT")
    except BaseException:
        index.conn.execute("ROLLBACK")
        raise
    prune_vector_files(index)
    if embedding is not None and (not vectors.unembedded or vectors.left_docs):
        discard_checkpoint(index.folder)  # every vector it held is in the index now
    report.embedded, report.embedded_docs = vectors.embedded, vectors.embedded_docs
    report.resumed = vectors.resumed
    report.unembedded = vectors.unembedded
    report.vectors = vectors.current
    report.notices.extend(vectors.notices)
    _count(index, report)
    return report


def _compare(
    vault: Vault,
    index: IndexHandle,
    only: set[str] | None,
    progress: Progress | None,
    report: SyncReport,
) -> tuple[dict[str, FileStat], list[str], list[Parsed]]:
    """The files changed (read and parsed) and gone among those compared (every file, or those
    in `only`), against what the index records now; sets the report's `files` (the files the
    index covers)."""
    if only is None:
        sources = walk(vault).files  # every card, archived card and log, stat-ed
        known = recorded_files(index.conn)
        report.files = len(sources)
    else:
        sources = files_at(vault, only)
        known = recorded_files(index.conn, only)
        report.files = int(index.conn.execute("SELECT count(*) FROM files").fetchone()[0])
    stale, gone = changed_since(sources, known)
    return stale, gone, _read_changed(stale, known, vault, progress)


def _count(index: IndexHandle, report: SyncReport) -> None:
    report.documents, report.passages = index.conn.execute(
        "SELECT (SELECT count(*) FROM docs), (SELECT count(*) FROM passages)"
    ).fetchone()
    report.errors = skipped_files(index.conn)


#: (source, digest, its documents or None when its bytes did not change, why it was skipped)
Parsed = tuple[FileStat, str, "list[Document] | None", "str | None"]


def _read_changed(
    stale: dict[str, FileStat],
    known: dict[str, Seen],
    vault: Vault,
    progress: Progress | None,
) -> list[Parsed]:
    if not stale:
        return []
    if progress is not None:
        progress("reading", 0, len(stale))
    found = read_files(vault, stale)
    parsed: list[Parsed] = []
    for source in stale.values():
        digest = found.digests.get(source.rel)
        if digest is None:
            continue  # removed since it was stat-ed: the next sync drops it
        problem = found.problems.get(source.rel)
        why = None if problem is None else str(problem)
        if source.rel in known and known[source.rel].digest == digest:
            parsed.append((source, digest, None, why))
        elif source.rel in found.logs:  # a log too big to read whole: its first entries
            entries = found.logs[source.rel].entries
            parsed.append((source, digest, log_documents(source, entries), why))
        elif problem is not None:
            parsed.append((source, digest, [], why))
        else:
            card = found.cards[source.rel].card
            parsed.append((source, digest, card_documents(source, card), why))
    if progress is not None:
        progress("reading", len(stale), len(stale))
    return parsed


def _write_files(index: IndexHandle, parsed: list[Parsed], gone: list[str]) -> None:
    conn = index.conn
    for rel in gone:
        _write_docs(conn, rel, [])
        conn.execute("DELETE FROM files WHERE path = ?", (rel,))
    for source, digest, docs, problem in parsed:
        record_file(conn, source, digest, problem)
        if docs is not None:
            _write_docs(conn, source.rel, docs)


#: A document's `docs` columns (`file` and `text_hash` aside), in the order `_values` gives.
_COLUMNS = "key kind slug topic category tags status entry line body pending edited used stale"
#: Where a document's topic, tags (as stored) and body are in its `_values`.
_TOPIC, _TAGS, _BODY = map(_COLUMNS.split().index, (TOPIC, TAGS, "body"))
#: A file's documents: id, keyword terms (topic, tags, body), then `_values` (`_COLUMNS` and
#: the cites as JSON).
_STORED = (
    f"SELECT d.id, f.topic, f.tags, f.body, d.{_COLUMNS.replace(' ', ', d.')}, "
    "(SELECT json_group_array(ref) FROM cites c WHERE c.doc_id = d.id) FROM docs d "
    "LEFT JOIN fts f ON f.rowid = d.id WHERE d.file = ?"
)
_INSERT = (
    f"INSERT OR REPLACE INTO docs ({_COLUMNS.replace(' ', ', ')}, file, text_hash) "
    f"VALUES ({'?, ' * (_COLUMNS.count(' ') + 2)}?)"
)
_as_sqlite_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
#: A document's (topic, tags as stored, body) -> its keyword terms (topic, tags, body).
Terms = dict[tuple[str, str, str], tuple[str, str, str]]


def _write_docs(conn: sqlite3.Connection, rel: str, docs: list[Document]) -> None:
    """Make `docs` the file's documents. One stored exactly as it is now is left as it is
    (every other entry of a log one entry was added to); the others are dropped, and their
    keyword terms serve a new document of the same text (a card whose dates alone changed)."""
    rows = [(row[0], row[1:4], row[4:]) for row in conn.execute(_STORED, (rel,))]
    wanted = {_values(doc): doc for doc in docs}
    # a row without its terms (a damaged index) is written again
    dropped = [
        (doc_id, stored, values)
        for doc_id, stored, values in rows
        if stored[0] is None or values not in wanted
    ]
    ids = [(doc_id,) for doc_id, _, _ in dropped]
    conn.executemany("DELETE FROM fts WHERE rowid = ?", ids)
    conn.executemany("DELETE FROM cites WHERE doc_id = ?", ids)
    conn.executemany("DELETE FROM docs WHERE id = ?", ids)
    terms = {
        (values[_TOPIC], values[_TAGS], values[_BODY]): stored
        for _, stored, values in dropped
        if stored[0] is not None
    }
    kept = {values for _, stored, values in rows if stored[0] is not None}
    for values, doc in wanted.items():
        if values not in kept:
            _insert_doc(conn, rel, doc, values, terms)


def _values(doc: Document) -> tuple[Any, ...]:
    """`doc` as `_COLUMNS` and its cites are stored (the cites as SQLite's JSON writes them)."""
    return (
        doc.key, doc.kind, doc.slug, doc.topic, doc.category, json.dumps(list(doc.tags)),
        doc.status, doc.entry, doc.line, doc.body, int(doc.pending), *(doc.dates or Dates()),
        _as_sqlite_json(doc.cites),
    )  # fmt: skip


def _insert_doc(
    conn: sqlite3.Connection, rel: str, doc: Document, values: tuple[Any, ...], known: Terms
) -> None:
    cursor = conn.execute(_INSERT, (*values[:-1], rel, doc.text_hash))
    conn.executemany(
        "INSERT INTO cites VALUES (?, ?)", [(cursor.lastrowid, ref) for ref in doc.cites]
    )
    terms = known.get((values[_TOPIC], values[_TAGS], values[_BODY])) or index_texts(
        doc.topic, " ".join(doc.tags), doc.body
    )
    conn.execute(
        "INSERT INTO fts (rowid, topic, tags, body) VALUES (?, ?, ?, ?)", (cursor.lastrowid, *terms)
    )
