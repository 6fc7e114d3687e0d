"""The derived search index in `.cardvault/`: one SQLite file plus one float32 `.npy` of vectors.

`search.sqlite` holds what was indexed from which file (`files`, by stat and content digest), the
searchable documents (`docs`: cards, archived cards, log entries), an FTS5 table over the terms
of their topic, tags and body (each word's stem, CJK runs as bigrams: text.py), the log entries
each card cites (`cites`: an entry a card cites is distilled; one with a lesson signal that none
cites is fresh memory, searched by default), each document's `passages` (body offsets, by the
digest of the document's text; see passages.py) and `vectors`, mapping the digest of each
embedded passage text to its row in `vectors-<generation>.npy` and that row's checksum
(vector_store.py).

Everything here can be thrown away: a file that is not a database, a folder where the file
should be, or one written by another schema version, is deleted and rebuilt, and the caller gets
a notice to show. A database that is not the file it was created as (a copy, or one git checked
out: vault/cache.py) keeps none of what it says of the vault's files (`_reread`): every file is
read again, and only vectors, keyed by the digest of the text they embed, are kept.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardvault.errors import CardvaultError
from cardvault.vault.cache import file_identity
from cardvault.vault.changes import Seen, racy
from cardvault.vault.layout import FileStat

#: 2: passages, and a checksum per vector row. 3: log entries still to distill (`pending`)
#: and the entries cards cite (`cites`), so fresh memory is searched by default. 4: each file's
#: full stat signature (ctime, inode, racy: vault/changes.py). 5: the FTS table holds the stems
#: of cardvault.words (which the queries ask for), not FTS5's own Porter stems. 6: each file's
#: `problem` (why it was skipped), so every search can name the files it could not read. 7: each
#: vector's `seal` (provenance.py), so a copied or checked-out index keeps only this machine's.
#: 8: more of the CJK scripts split into bigrams (Hangul Jamo, 々, half-width kana, the
#: supplementary ideographs: cardvault/words.py), so every text's terms are made again.
SCHEMA_VERSION = "8"
DB_NAME = "search.sqlite"
#: The terms are stemmed already (text.index_text): FTS5 only splits them at the spaces.
TOKENIZER = "unicode61 remove_diacritics 2"
#: The meta key holding which file the database was created as (vault/cache.py).
IDENTITY = "file"
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
    pending INTEGER NOT NULL DEFAULT 0
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
#: How long a statement waits for another process's write transaction (sqlite's busy timeout).
BUSY_SECONDS = 30.0


class IndexBusy(Exception):
    """Another process held the index's write lock for longer than the caller would wait (its
    sync of many texts, a first index of thousands of notes, runs for minutes)."""


def is_locked(exc: BaseException) -> bool:
    """Whether `exc` is sqlite's "database is locked" (another connection's write held on past
    a busy timeout): no damage, the index is only in use."""
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)


@dataclass(frozen=True)
class IndexHandle:
    """An open index: the connection, its folder, and what had to be repaired on opening."""

    conn: sqlite3.Connection
    folder: Path
    notices: tuple[str, ...] = ()

    def meta(self, key: str) -> str | None:
        """A value from the meta table."""
        return meta_value(self.conn, key)

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
        held it first and this waited. While it waits, `on_wait(seconds waited)` is called
        about once a second, and after `wait` seconds (None: for as long as it takes)
        `IndexBusy` is raised, with nothing begun."""
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


def meta_value(conn: sqlite3.Connection, key: str) -> str | None:
    """A value from the meta table of the index or of its checkpoint (checkpoint.py)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def rows_in(conn: sqlite3.Connection, sql: str, values: Sequence[str]) -> list[tuple[Any, ...]]:
    """The rows of `sql`, whose one `{}` is an `IN` list, for every value of `values`: asked
    500 at a time (SQLite's limit on the parameters of one statement)."""
    rows: list[tuple[Any, ...]] = []
    for first in range(0, len(values), 500):
        chunk = list(values[first : first + 500])
        rows.extend(conn.execute(sql.format(", ".join("?" * len(chunk))), chunk))
    return rows


def recorded_files(conn: sqlite3.Connection, rels: Iterable[str] | None = None) -> dict[str, Seen]:
    """What the index recorded of each file it covers (or of those among `rels`), by path."""
    query = "SELECT path, size, mtime_ns, ctime_ns, inode, racy, digest FROM files"
    if rels is None:
        rows = conn.execute(query).fetchall()
    else:
        rows = [conn.execute(f"{query} WHERE path = ?", (rel,)).fetchone() for rel in rels]
    return {
        str(r[0]): Seen(r[1], r[2], r[3], r[4], bool(r[5]), str(r[6]))
        for r in rows
        if r is not None
    }


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
    _make_folder(folder)
    path = folder / DB_NAME
    notices: list[str] = []
    if rebuild:
        remove_index(folder)
    conn: sqlite3.Connection | None = None
    if path.exists() or path.is_symlink():
        conn, problem = _open_existing(path, notices)
        if problem is not None:
            notices.append(f"search index {index_trouble(folder, problem)}; rebuilt it")
            remove_index(folder)
    if conn is None:
        conn = _create(path)
    return IndexHandle(conn, folder, tuple(notices))


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise CardvaultError(
            "is not a folder; cardvault keeps its derived cache there: move the file away", folder
        ) from None
    except OSError as exc:
        raise CardvaultError(f"cannot create the cache folder: {exc.strerror}", folder) from exc


def _create(path: Path) -> sqlite3.Connection:
    """A new index (another process creating it at the same moment is no error)."""
    conn = _connect(path)
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone() is None:
            for statement in _SCHEMA.split(";"):  # executescript would commit first
                if statement.strip():
                    conn.execute(statement)
            conn.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            conn.execute("INSERT INTO meta VALUES (?, ?)", (IDENTITY, file_identity(path)))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        conn.close()
        raise
    return conn


def _connect(path: Path) -> sqlite3.Connection:
    # A long-lived Searcher (the agent server) opens its index on a warm-up thread and queries
    # it from the request threads; it serialises every use with its own lock.
    conn = sqlite3.connect(
        path, isolation_level=None, timeout=BUSY_SECONDS, check_same_thread=False
    )
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _open_existing(path: Path, notices: list[str]) -> tuple[sqlite3.Connection | None, str | None]:
    """A connection to a usable index (upgraded in place from an older schema, with a notice),
    or (None, why it cannot be used)."""
    conn = None
    try:
        conn = _connect(path)
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        conn.execute("SELECT count(*) FROM fts WHERE fts MATCH 'x'").fetchone()
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        return None, f"is unreadable ({exc})"
    if row is not None and row[0] in UPGRADABLE:
        try:
            _upgrade(conn, row[0])
        except sqlite3.DatabaseError as exc:
            conn.close()
            return None, f"has schema version {row[0]} and cannot be upgraded ({exc})"
        notices.append(
            f"search index had schema version {row[0]}, upgraded to {SCHEMA_VERSION}: every file "
            "is read again, nothing is embedded again"
        )
    elif row is None or row[0] != SCHEMA_VERSION:
        conn.close()
        found = "none" if row is None else row[0]
        return None, f"has schema version {found}, this cardvault writes {SCHEMA_VERSION}"
    # an upgraded one too: an old schema is no way around the question of whose file it is
    made = conn.execute("SELECT value FROM meta WHERE key = ?", (IDENTITY,)).fetchone()
    if made is None or made[0] != file_identity(path):
        try:
            _reread(conn, path)
        except sqlite3.DatabaseError as exc:
            conn.close()
            return None, f"was made as another file and cannot be emptied ({exc})"
    return conn, None


UPGRADABLE = ("2", "3", "4", "5", "6", "7")


def _upgrade(conn: sqlite3.Connection, found: str) -> None:
    """An older schema upgraded in place: each vector's `seal` column (empty: the rows of this
    file are this machine's, and are sealed when next written), (from 2) the `pending` column
    and `cites` table, the `files` and `fts` tables made anew, and every file read again (so
    each log entry learns whether it is pending, each card what it cites, each file its
    signature, each text its terms, stemmed as queries are since 5 and split as they are since
    8); the passages and vectors, keyed by content, are kept, so nothing is embedded again."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(vectors)")}
        if "seal" not in columns:
            conn.execute("ALTER TABLE vectors ADD COLUMN seal BLOB")
        if found == "2":
            conn.execute("ALTER TABLE docs ADD COLUMN pending INTEGER NOT NULL DEFAULT 0")
        conn.execute("DROP TABLE IF EXISTS files")
        conn.execute("DROP TABLE IF EXISTS fts")
        for statement in _SCHEMA.split(";"):
            anew = any(f" {name} " in statement for name in ("files", "files_problem", "fts"))
            if anew or (found == "2" and "cites" in statement):
                conn.execute(statement)
        conn.execute("DELETE FROM docs")
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (SCHEMA_VERSION,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _reread(conn: sqlite3.Connection, path: Path) -> None:
    """A database that is not the file it was created as (copied, or checked out by git: it may
    come from anyone) made this clone's own: what it says of the files, their documents, terms,
    citations and passages is emptied, so every file is read again; the vectors stay, but only
    those this machine made are used (`UNPROVEN`: each must carry its seal, provenance.py, and
    then only for the text whose digest it is stored under, when its checksum holds), and none
    counts as complete until a sync has checked them all."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        made = conn.execute("SELECT value FROM meta WHERE key = ?", (IDENTITY,)).fetchone()
        if made is not None and made[0] == file_identity(path):  # another process did it
            conn.execute("COMMIT")
            return
        for table in ("files", "docs", "fts", "cites", "passages"):
            conn.execute(f"DELETE FROM {table}")
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('vectors_complete', '')")
        conn.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (UNPROVEN,))
        conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (IDENTITY, file_identity(path)))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def index_trouble(folder: Path, damage: str) -> str:
    """What is wrong with the index in `folder`, to follow "search index": a file or folder this
    user may not read or write is said to be so, else `damage` ("was damaged (...)")."""
    path = folder / DB_NAME
    if path.exists() and not os.access(path, os.R_OK):
        return f"{path} cannot be read by this user (permission denied)"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{path} cannot be written (this user may not write in {folder})"
    if path.exists() and not os.access(path, os.W_OK):
        return f"{path} is read-only for this user"
    return f"{path} {damage}" if damage.startswith(("is ", "was ", "has ")) else damage


def ever_built(folder: Path) -> bool:
    """Whether the index in `folder` has held a whole sync with vectors (its `model_id` is set
    by the first, in the same transaction as all it embedded). False for a folder without one,
    and while another process is still building it; a file that cannot be read as an index is
    True: the search that opens it rebuilds it and says why (and never reads through a link)."""
    path = folder / DB_NAME
    if not path.is_file():
        return False
    if path.is_symlink():
        return True
    try:
        with contextlib.closing(
            sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=1)
        ) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'model_id'").fetchone()
    except sqlite3.Error:
        return True
    return row is not None and bool(row[0])


def remove_index(folder: Path) -> None:
    """Delete the index database, its journal files, every vector file (or folder so named)
    and the checkpoint of an interrupted sync (checkpoint.py)."""
    names = (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", f"{DB_NAME}-journal", CHECKPOINT,
             f"{CHECKPOINT}-journal")  # fmt: skip
    for path in [*(folder / name for name in names), *folder.glob("vectors-*.npy")]:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
