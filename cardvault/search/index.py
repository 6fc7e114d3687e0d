"""The derived search index in `.cardvault/`: one SQLite file plus one float32 `.npy` of vectors.

`search.sqlite` holds what was indexed from which file (`files`), the searchable documents
(`docs`, with each card's `documents.Dates`: a hit's age is told from its row), an FTS5 table
of their terms (text.py), the log entries each card cites (`cites`: an uncited entry with a
lesson signal is fresh memory, searched by default), each document's `passages` (passages.py)
and `vectors` (each passage text's row and checksum: vector_store.py).

Everything here can be thrown away and rebuilt from the vault's files by vault/derived_store.py;
only the vectors are kept, keyed by the digest of the text they embed, and those of another file
are used only when this machine sealed them (`UNPROVEN`).
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from cardvault.vault import derived_store
from cardvault.vault.changes import Seen, racy
from cardvault.vault.derived_store import (
    BUSY_SECONDS,
    Store,
    is_locked,
    open_store,
    rows_in,
)
from cardvault.vault.layout import FileStat

#: Bumped whenever the tables or the terms of a text (cardvault/words.py) change: an index of
#: another version is rebuilt.
SCHEMA_VERSION = "9"
DB_NAME = "search.sqlite"
#: The terms are stemmed already (text.index_texts): FTS5 only splits them at the spaces.
TOKENIZER = "unicode61 remove_diacritics 2"
#: The vectors of an interrupted sync, beside the database (checkpoint.py).
CHECKPOINT = "embedding-checkpoint.sqlite"

_SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (
    path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, ctime_ns INTEGER, inode INTEGER,
    racy INTEGER, digest TEXT, problem TEXT
);
CREATE INDEX files_problem ON files(path) WHERE problem IS NOT NULL;
CREATE TABLE docs (
    id INTEGER PRIMARY KEY, file TEXT NOT NULL, key TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
    slug TEXT NOT NULL, topic TEXT NOT NULL, category TEXT NOT NULL, tags TEXT NOT NULL,
    status TEXT NOT NULL, entry TEXT, line INTEGER, body TEXT NOT NULL, text_hash TEXT NOT NULL,
    pending INTEGER NOT NULL DEFAULT 0,
    edited TEXT, used TEXT, stale TEXT
);
CREATE INDEX docs_file ON docs(file);
CREATE TABLE cites (doc_id INTEGER NOT NULL, ref TEXT NOT NULL);
CREATE INDEX cites_ref ON cites(ref);
CREATE INDEX cites_doc ON cites(doc_id);
CREATE INDEX docs_hash ON docs(text_hash);
CREATE VIRTUAL TABLE fts USING fts5(topic, tags, body, tokenize = '{TOKENIZER}');
CREATE TABLE passages (
    doc_hash TEXT NOT NULL, seq INTEGER NOT NULL, start INTEGER NOT NULL, stop INTEGER NOT NULL,
    text_hash TEXT NOT NULL, PRIMARY KEY (doc_hash, seq)
);
CREATE INDEX passages_hash ON passages(text_hash);
CREATE TABLE vectors (
    text_hash TEXT PRIMARY KEY, row INTEGER NOT NULL, checksum INTEGER NOT NULL, seal BLOB
);
"""
#: Meta key set while the vectors may not be this machine's (the database is another file
#: than it was made as): only sealed ones are used until the next write of the vectors.
UNPROVEN = "vectors_unproven"
STORE = Store(
    "search index", DB_NAME, SCHEMA_VERSION, _SCHEMA,
    keep=("meta", "vectors"),
    kept_note=", its vectors kept (nothing is embedded again)",
    on_copy={"vectors_complete": "", UNPROVEN: "1"},
    probe="SELECT count(*) FROM fts WHERE fts MATCH 'x'",
)  # fmt: skip


class IndexBusy(Exception):
    """Another process held the index's write lock for longer than the caller would wait."""


@dataclass(frozen=True)
class IndexHandle:
    """An open index: the connection, its folder, and what had to be repaired on opening."""

    conn: sqlite3.Connection
    folder: Path
    notices: tuple[str, ...] = ()

    def meta(self, key: str) -> str | None:
        """A value from the meta table."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Store meta values (inside the caller's transaction)."""
        self.conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items())

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def begin_write(
        self, wait: float | None = None, on_wait: Callable[[float], None] | None = None
    ) -> bool:
        """Open the write transaction of a sync (`BEGIN IMMEDIATE`); True when another process
        held it first and this waited, calling `on_wait(seconds waited)` about once a second.
        After `wait` seconds (None: no limit) `IndexBusy` is raised, with nothing begun."""
        began = time.monotonic()
        conn = self.conn
        try:
            conn.execute("PRAGMA busy_timeout = 0")
            waited = False
            while True:
                try:
                    conn.execute("BEGIN IMMEDIATE")
                    return waited
                except sqlite3.OperationalError as exc:
                    if not is_locked(exc):
                        raise
                waited, so_far = True, time.monotonic() - began
                if wait is not None and so_far >= wait:
                    raise IndexBusy(f"another process is writing {self.folder / DB_NAME}")
                if on_wait is not None:
                    on_wait(so_far)
                step = 1.0 if wait is None else min(1.0, wait - so_far)
                conn.execute(f"PRAGMA busy_timeout = {max(1, round(step * 1000))}")
        finally:
            conn.execute(f"PRAGMA busy_timeout = {round(BUSY_SECONDS * 1000)}")


def recorded_files(conn: sqlite3.Connection, rels: Iterable[str] | None = None) -> dict[str, Seen]:
    """What the index recorded of each file it covers (or of those among `rels`), by path."""
    query = "SELECT path, size, mtime_ns, ctime_ns, inode, racy, digest FROM files"
    if rels is None:
        rows = conn.execute(query).fetchall()
    else:
        rows = rows_in(conn, query + " WHERE path IN ({})", list(rels))
    return {str(r[0]): Seen(r[1], r[2], r[3], r[4], bool(r[5]), str(r[6])) for r in rows}


def record_file(
    conn: sqlite3.Connection, source: FileStat, digest: str, problem: str | None = None
) -> None:
    """Record that `source`, stat-ed just now, held the bytes of `digest`, and why it could not
    be indexed, if so (inside the caller's transaction)."""
    conn.execute(
        "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (source.rel, source.size, source.mtime_ns, source.ctime_ns, source.inode,
         int(racy(source)), digest, problem),
    )  # fmt: skip


def skipped_files(conn: sqlite3.Connection) -> list[str]:
    """The problem (`path:line: why`) of every file the index covers but could not use, by path:
    what a search reports each time, since an unchanged broken file is not read again."""
    rows = conn.execute("SELECT problem FROM files WHERE problem IS NOT NULL ORDER BY path")
    return [str(row[0]) for row in rows]


def open_index(folder: Path, rebuild: bool = False) -> IndexHandle:
    """Open (creating, or rebuilding when broken, foreign or asked) the index in `folder`."""
    if rebuild:
        remove_index(folder)
    conn, notices = open_store(STORE, folder)
    return IndexHandle(conn, folder, notices)


def remove_index(folder: Path) -> None:
    """Delete the index database, every vector file (or folder so named) and the checkpoint of
    an interrupted sync (checkpoint.py)."""
    for name in (DB_NAME, CHECKPOINT):
        derived_store.remove(folder, name)
    for path in folder.glob("vectors-*.npy"):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
