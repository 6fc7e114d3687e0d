"""The derived search index in `.cardvault/`: one SQLite file plus one float32 `.npy` of vectors.

`search.sqlite` holds what was indexed from which file (`files`, by stat and content digest), the
searchable documents (`docs`: cards, archived cards, log entries), an FTS5 table over their
topic, tags and body (CJK segmented, see text.py) and `vectors`, mapping the digest of each
embedded text to its row in `vectors-<generation>.npy`. The vector file is written whole under a
new generation name before the database points at it, so a crash leaves the old pair intact;
`np.load(mmap_mode="r")` reads 10,000 × 384 floats in about a millisecond.

Everything here can be thrown away: a file that is not a database, or one written by another
schema version, is deleted and rebuilt, and the caller gets a notice to show.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

SCHEMA_VERSION = "1"
DB_NAME = "search.sqlite"
TOKENIZER = "porter unicode61 remove_diacritics 2"

_SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, digest TEXT);
CREATE TABLE docs (
    id INTEGER PRIMARY KEY, file TEXT NOT NULL, key TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
    slug TEXT NOT NULL, topic TEXT NOT NULL, category TEXT NOT NULL, tags TEXT NOT NULL,
    status TEXT NOT NULL, entry TEXT, line INTEGER, body TEXT NOT NULL, text_hash TEXT NOT NULL
);
CREATE INDEX docs_file ON docs(file);
CREATE INDEX docs_hash ON docs(text_hash);
CREATE VIRTUAL TABLE fts USING fts5(topic, tags, body, tokenize = '{TOKENIZER}');
CREATE TABLE vectors (text_hash TEXT PRIMARY KEY, row INTEGER NOT NULL);
"""


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

    def set_meta(self, key: str, value: str) -> None:
        """Store a meta value (inside the caller's transaction)."""
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()


def open_index(folder: Path, rebuild: bool = False) -> IndexHandle:
    """Open (creating, or rebuilding when broken, foreign or asked) the index in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / DB_NAME
    notices: list[str] = []
    if rebuild:
        remove_index(folder)
    conn: sqlite3.Connection | None = None
    if path.exists():
        conn, problem = _open_existing(path)
        if problem is not None:
            notices.append(f"search index {problem}; rebuilding it")
            remove_index(folder)
    if conn is None:
        conn = _connect(path)
        with conn:
            conn.executescript(_SCHEMA)
            conn.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
    return IndexHandle(conn, folder, tuple(notices))


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _open_existing(path: Path) -> tuple[sqlite3.Connection | None, str | None]:
    """A connection to a usable index, or (None, why it cannot be used)."""
    conn = None
    try:
        conn = _connect(path)
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        conn.execute("SELECT count(*) FROM fts WHERE fts MATCH 'x'").fetchone()
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        return None, f"is unreadable ({exc})"
    if row is None or row[0] != SCHEMA_VERSION:
        conn.close()
        found = "none" if row is None else row[0]
        return None, f"has schema version {found}, this cardvault writes {SCHEMA_VERSION}"
    return conn, None


def remove_index(folder: Path) -> None:
    """Delete the index database, its journal files and every vector file."""
    for name in (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", f"{DB_NAME}-journal"):
        (folder / name).unlink(missing_ok=True)
    for vectors in folder.glob("vectors-*.npy"):
        vectors.unlink(missing_ok=True)


def has_vector_file(index: IndexHandle) -> bool:
    """Whether the vector file the database points at is there, whole (checked without numpy)."""
    name, size = index.meta("vectors_file"), index.meta("vectors_bytes")
    try:
        return bool(name) and (index.folder / str(name)).stat().st_size == int(size or -1)
    except OSError:
        return False


def record_vector_size(index: IndexHandle) -> None:
    """Remember the current vector file's size (it was just loaded whole)."""
    name = index.meta("vectors_file")
    if name:
        index.set_meta("vectors_bytes", str((index.folder / name).stat().st_size))


def load_vectors(index: IndexHandle) -> np.ndarray | None:
    """The current vector matrix (memory-mapped, read-only), or None when there is none."""
    import numpy as np

    name = index.meta("vectors_file")
    if not name:
        return None
    try:
        matrix = np.load(index.folder / name, mmap_mode="r")
    except (OSError, ValueError):
        return None
    return matrix if matrix.ndim == 2 else None


def vector_rows(index: IndexHandle) -> dict[str, int]:
    """text digest -> row in the vector matrix."""
    return dict(index.conn.execute("SELECT text_hash, row FROM vectors").fetchall())


def write_vectors(index: IndexHandle, hashes: list[str], matrix: np.ndarray) -> None:
    """Make `matrix` (row i = text digest hashes[i]) the index's vectors; caller commits."""
    import numpy as np

    generation = int(index.meta("vectors_generation") or "0") + 1
    name = f"vectors-{generation}.npy"
    tmp = index.folder / f".{name}.tmp"
    with tmp.open("wb") as handle:
        np.save(handle, np.ascontiguousarray(matrix, dtype=np.float32))
    size = tmp.stat().st_size
    tmp.replace(index.folder / name)
    index.conn.execute("DELETE FROM vectors")
    index.conn.executemany(
        "INSERT INTO vectors VALUES (?, ?)", [(h, i) for i, h in enumerate(hashes)]
    )
    index.set_meta("vectors_generation", str(generation))
    index.set_meta("vectors_file", name)
    index.set_meta("vectors_bytes", str(size))


def prune_vector_files(index: IndexHandle) -> None:
    """Remove vector files the database no longer points at (after the commit)."""
    current = index.meta("vectors_file")
    for path in index.folder.glob("vectors-*.npy"):
        if path.name != current:
            with contextlib.suppress(OSError):
                path.unlink()
