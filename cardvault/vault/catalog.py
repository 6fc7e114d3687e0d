"""The catalog: the parsed form of every card and log, kept in `.cardvault/catalog.sqlite`.

One row per file: its stat signature, the digest of its bytes, its text and its parsed record
(records.py). A read re-reads only files whose signature changed (vault/changes.py), and parses
only those whose digest changed. Named *facts* are per-file values the services derive (a
card's check findings, its secret scan), kept under the file's digest.

Derived and disposable (vault/derived_store.py rebuilds it), never a source of truth: nothing is
written to the vault from it without the applier checking the file's digest on disk. When it
cannot be opened or written, the vault is still read, just without caching.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from cardvault.errors import CardvaultError
from cardvault.vault.derived_store import IN_USE, Store, open_store, rows_in

SCHEMA_VERSION = "2"  # 2: ctime and inode in the signature
DB_NAME = "catalog.sqlite"

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
STORE = Store("catalog", DB_NAME, SCHEMA_VERSION, _SCHEMA)


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


class Catalog:
    """An open catalog (or a stand-in that stores nothing when the cache is unusable)."""

    def __init__(self, conn: sqlite3.Connection | None, notices: list[str]) -> None:
        self._conn = conn
        self.notices = notices
        self._held = False

    @classmethod
    def open(cls, cache_dir: Path, fingerprint: str) -> Catalog:
        """Open the catalog in `cache_dir`, rebuilding it when broken, foreign or stale; this
        thread holds it (`derived_store.IN_USE`) until `close`."""
        IN_USE.acquire()
        try:
            conn, notices = open_store(STORE, cache_dir, fingerprint)
            catalog = cls(conn, list(notices))
        except (CardvaultError, OSError, sqlite3.Error) as exc:
            catalog = cls(None, [f"catalog unavailable ({exc}); reading every file"])
        except BaseException:
            IN_USE.release()
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
                found = rows_in(self._conn, query + " WHERE rel IN ({})", list(rels))
        except sqlite3.Error as exc:
            self.notices.append(f"catalog unreadable ({exc}); reading every file")
            return {}
        return {
            r[0]: Row(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8], r[9])
            for r in found
        }

    def store(self, rows: Iterable[Row], gone: Iterable[str]) -> bool:
        """Write new and changed rows and drop the gone ones in one transaction; False when it
        cannot be written (nothing lost: the next read redoes the work)."""
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
        decoded = decode_each([value for _, value in current])
        pairs = zip(current, decoded, strict=True)
        return {rel: value for (rel, _), value in pairs if value is not DAMAGED}

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
                IN_USE.release()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: What `decode_each` gives for a stored text that is not JSON.
DAMAGED = object()


def decode_each(
    stored: Sequence[str], hook: Callable[[dict[str, Any]], Any] | None = None
) -> list[Any]:
    """Stored JSON texts decoded (`hook` as json's `object_hook`, asked only when some key
    starts with `$`, as a tag's does: records.tagged), in one parse when all are sound: much
    faster than one `json.loads` each."""
    joined = "[" + ",".join(stored) + "]"
    try:
        decoded = json.loads(joined, object_hook=hook if '"$' in joined else None)
    except ValueError:
        decoded = None
    if decoded is not None and len(decoded) == len(stored):  # not two running into one
        return list(decoded)
    return [_decode_one(text, hook) for text in stored]


def _decode_one(text: str, hook: Callable[[dict[str, Any]], Any] | None) -> Any:
    try:
        return json.loads(text, object_hook=hook)
    except ValueError:
        return DAMAGED


def fingerprint(*parts: object) -> str:
    """A digest of what the records depend on besides the files (version, settings)."""
    return hashlib.sha256(repr((SCHEMA_VERSION, *parts)).encode("utf-8")).hexdigest()[:16]
