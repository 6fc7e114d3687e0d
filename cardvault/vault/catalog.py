"""The catalog: the parsed form of every card and log, kept in `.cardvault/catalog.sqlite`.

One row per file: its stat signature (size, mtime, ctime, inode), the digest of its bytes, its
text and its parsed record (JSON: frontmatter, token count, links, log entries, or the parse
error). A read stats every file and re-reads only those whose signature changed (vault/changes.py
decides); of those, only a file whose digest changed is parsed again. So a command on an
unchanged vault parses nothing.

Named *facts* are per-file values derived by the services (a card's check findings, its secret
scan) and kept under the file's digest, so they are recomputed only for changed files.

Like the search index, the catalog is derived and disposable: a file that is not a database, a
schema from another version, or records made under other settings (the catalog's fingerprint)
are thrown away and rebuilt with a notice; so is, silently, a catalog that is not the file it
was created as (a copy, or one git checked out: vault/cache.py). It is never a source of truth:
nothing is written to the vault from it without the applier checking the file's digest on disk
first. A file changed within a timestamp tick of its stat being taken is checked by digest on
the next read as well (its row is `racy`: see vault/changes.py).
When the catalog cannot be opened or written (a read-only cache, another process writing), the
vault is still read, just without caching.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from cardvault.vault.cache import file_identity

SCHEMA_VERSION = "2"  # 2: ctime and inode in the signature
DB_NAME = "catalog.sqlite"
#: How long a write waits for another process's write before giving up (the data is a cache).
BUSY_MS = 500
#: The meta key holding which file the catalog was created as (vault/cache.py).
IDENTITY = "file"

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (
    rel TEXT PRIMARY KEY, kind TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL, inode INTEGER NOT NULL, digest TEXT NOT NULL,
    racy INTEGER NOT NULL, text TEXT, record TEXT NOT NULL
);
CREATE TABLE facts (
    rel TEXT NOT NULL, name TEXT NOT NULL, digest TEXT NOT NULL, value TEXT NOT NULL,
    PRIMARY KEY (rel, name)
);
"""


class Row(NamedTuple):
    """One file as the catalog keeps it. `text` is None when the file could not be decoded.

    A NamedTuple, not a dataclass: 10,000 of them are made on every read."""

    rel: str
    kind: str
    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    digest: str
    racy: bool
    text: str | None
    record: str


#: Held by each open catalog of this process, from `Catalog.open` to `close`. A catalog found
#: foreign or stale is deleted and made anew; deleting a database file that another thread of
#: the same process has open is what SQLite's documentation warns corrupts it (its connections
#: in one process share what they know of a file by device and inode, and the new file may get
#: the old one's inode): an MCP server whose warm-up and a resource read opened a copied vault's
#: catalog at once died of SIGBUS. So the catalog's users in one process take turns: each holds
#: it for one read (milliseconds; nothing else is waited for meanwhile).
_IN_USE = threading.RLock()


class Catalog:
    """An open catalog (or a stand-in that stores nothing when the cache is unusable)."""

    def __init__(self, conn: sqlite3.Connection | None, notices: list[str]) -> None:
        self._conn = conn
        self.notices = notices
        self._held = False

    @classmethod
    def open(cls, cache_dir: Path, fingerprint: str) -> Catalog:
        """Open the catalog in `cache_dir`, rebuilding it when broken, foreign or stale; this
        thread holds it (`_IN_USE`) until `close`."""
        _IN_USE.acquire()
        try:
            catalog = cls(*_opened(cache_dir, fingerprint))
        except BaseException:
            _IN_USE.release()
            raise
        catalog._held = True
        return catalog

    def rows(self, rels: Iterable[str] | None = None) -> dict[str, Row]:
        """Every file row (or those of `rels`), by relative path; empty when unreadable."""
        if self._conn is None:
            return {}
        query = (
            "SELECT rel, kind, size, mtime_ns, ctime_ns, inode, digest, racy, text, record "
            "FROM files"
        )
        try:
            if rels is None:
                found = self._conn.execute(query).fetchall()
            else:
                wanted = list(rels)
                found = []
                for start in range(0, len(wanted), 500):  # SQLite's limit on parameters
                    chunk = wanted[start : start + 500]
                    marks = ", ".join("?" * len(chunk))
                    found += self._conn.execute(f"{query} WHERE rel IN ({marks})", chunk).fetchall()
        except sqlite3.Error as exc:
            self.notices.append(f"catalog unreadable ({exc}); reading every file")
            return {}
        return {
            r[0]: Row(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8], r[9])
            for r in found
        }

    def store(self, rows: Iterable[Row], gone: Iterable[str]) -> bool:
        """Write new and changed rows and drop the gone ones in one transaction; False when
        another process holds the database (nothing lost: the next read redoes the work)."""
        rows, gone = list(rows), list(gone)
        if self._conn is None or not (rows or gone):
            return False
        marks = ",".join("?" * len(Row._fields))
        values = [(*r[:7], int(r.racy), r.text, r.record) for r in rows]
        return self._write(
            lambda conn: (
                conn.executemany("DELETE FROM files WHERE rel = ?", [(g,) for g in gone]),
                conn.executemany("DELETE FROM facts WHERE rel = ?", [(g,) for g in gone]),
                conn.executemany(f"INSERT OR REPLACE INTO files VALUES ({marks})", values),
            )
        )

    def facts(self, name: str, digests: Mapping[str, str]) -> dict[str, Any]:
        """Stored values of fact `name` for files whose digest still matches."""
        if self._conn is None:
            return {}
        try:
            found = self._conn.execute(
                "SELECT rel, digest, value FROM facts WHERE name = ?", (name,)
            ).fetchall()
        except sqlite3.Error:
            return {}
        current = [(rel, value) for rel, digest, value in found if digests.get(rel) == digest]
        try:  # one parse for all: much faster than one json.loads per file
            decoded = json.loads("[" + ",".join(value for _, value in current) + "]")
        except ValueError:
            decoded = None
        if decoded is not None and len(decoded) == len(current):
            return {rel: value for (rel, _), value in zip(current, decoded, strict=True)}
        values: dict[str, Any] = {}
        for rel, value in current:
            with contextlib.suppress(ValueError):
                values[rel] = json.loads(value)
        return values

    def store_facts(self, name: str, values: Mapping[str, tuple[str, Any]]) -> bool:
        """Keep fact `name` for each rel: (digest it was computed from, JSON-able value)."""
        if self._conn is None or not values:
            return False
        rows = [(rel, name, digest, json.dumps(value)) for rel, (digest, value) in values.items()]
        return self._write(
            lambda conn: conn.executemany("INSERT OR REPLACE INTO facts VALUES (?,?,?,?)", rows)
        )

    def _write(self, work: Callable[[sqlite3.Connection], object]) -> bool:
        assert self._conn is not None
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error:
            return False
        try:
            work(self._conn)
            self._conn.execute("COMMIT")
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")
            return False
        return True

    def close(self) -> None:
        """Close the connection (and let the process's other threads open the catalog)."""
        try:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        finally:
            if self._held:
                self._held = False
                _IN_USE.release()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _opened(cache_dir: Path, fingerprint: str) -> tuple[sqlite3.Connection | None, list[str]]:
    """A connection to the usable catalog in `cache_dir` (None when the cache is unusable), and
    what had to be done to get it."""
    path = cache_dir / DB_NAME
    notices: list[str] = []
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        conn = _open_existing(path, fingerprint, notices) if path.exists() else None
        if conn is None:
            conn = _create(path, fingerprint)
    except (OSError, sqlite3.Error) as exc:
        notices.append(f"catalog unavailable ({exc}); reading every file")
        return None, notices
    return conn, notices


def fingerprint(*parts: object) -> str:
    """A digest of what the records depend on besides the files (version, settings)."""
    return hashlib.sha256(repr((SCHEMA_VERSION, *parts)).encode("utf-8")).hexdigest()[:16]


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_MS / 1000)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _open_existing(path: Path, fingerprint: str, notices: list[str]) -> sqlite3.Connection | None:
    """A connection to a usable catalog, or None after removing an unusable one."""
    conn = None
    why = None
    try:
        conn = _connect(path)
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        conn.execute("SELECT rel FROM files LIMIT 1").fetchall()
        conn.execute("SELECT rel FROM facts LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        why = f"was unreadable ({exc})"
        meta = {}
    if why is None and meta.get("schema") != SCHEMA_VERSION:
        why = f"had schema {meta.get('schema')!r}, this cardvault writes {SCHEMA_VERSION!r}"
    if why is None and meta.get(IDENTITY) != file_identity(path):  # copied, or from git
        if conn is not None:
            conn.close()
        _remove(path)
        return None
    if why is None and meta.get("fingerprint") != fingerprint:
        if conn is not None:
            conn.close()
        notices.append("settings or cardvault version changed; re-reading the vault")
        _remove(path)
        return None
    if why is None:
        return conn
    if conn is not None:
        conn.close()
    notices.append(f"catalog {why}; rebuilt it")
    _remove(path)
    return None


def _create(path: Path, fingerprint: str) -> sqlite3.Connection:
    conn = _connect(path)
    conn.executescript(_SCHEMA.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"))
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
    conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (IDENTITY, file_identity(path)))
    return conn


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
