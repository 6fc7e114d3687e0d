"""The derived SQLite files in the cache folder, opened, checked, reset and removed one way.

Each is a `Store`, a row of data: the catalog (vault/catalog.py), the search index
(search/index.py) and an interrupted index's vectors (search/checkpoint.py). They stay three
files: an index sync holds one write transaction for minutes, which a catalog inside it would
wait for and the checkpoint exists to commit during; and a read-only vault's index lives in the
user's cache (vault/cache.py) while its catalog stays with the vault.

`open_store` deletes and remakes, with a notice, a file that cannot be read as the store; it
resets in place a file of another schema version, `fingerprint` or identity (a copy, or one git
checked out: the device and inode recorded at its making differ), keeping only the tables of
`keep` (the index's vectors: minutes of work), which `on_copy` marks unproven for a copy.

Connections run WAL, may be used from any thread (each owner serialises its use) and wait
`BUSY_SECONDS` for another's write: only short writes are waited for so; the one long write, an
index sync, is polled for by `IndexHandle.begin_write` with its own limit and progress.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardvault.errors import CardvaultError

#: How long a statement waits for another connection's write transaction (see the docstring).
BUSY_SECONDS = 30.0
#: Held while a store is opened (checked, reset, or deleted when unreadable), and by the catalog
#: for as long as it is open: deleting a database file that another connection of the same
#: process has open corrupts it (SQLite's connections in one process share what they know of a
#: file by device and inode, which a new file may reuse), so threads take turns.
IN_USE = threading.RLock()
_JOURNALS = ("", "-wal", "-shm", "-journal")


@dataclass(frozen=True)
class Store:
    """One derived database: `schema` must create a `meta (key, value)` table."""

    name: str  # as notices say it: "search index"
    file: str
    version: str
    schema: str
    keep: tuple[str, ...] = ()  # tables whose rows survive a reset
    kept_note: str = ""  # what the notice of a new version adds about them
    on_copy: Mapping[str, str] = field(default_factory=dict)  # meta set when another file's
    probe: str = ""  # a query that fails on a damaged file, beyond reading a row of each table


@functools.cache  # once per schema, not per open
def _tables(schema: str) -> tuple[str, ...]:
    words = [statement.split() for statement in _statements(schema)]
    return tuple(w[w.index("TABLE") + 1] for w in words if "TABLE" in w)


def open_store(
    store: Store, folder: Path, fingerprint: str = ""
) -> tuple[sqlite3.Connection, tuple[str, ...]]:
    """A connection to `store`'s file in `folder`, made, rebuilt or reset as the module docstring
    says, and the notices of what was done. CardvaultError when the folder cannot be made;
    sqlite3.Error or OSError when the file cannot be made either."""
    path = folder / store.file
    notices: list[str] = []
    with IN_USE:
        if path.is_symlink():
            path.unlink()
        if path.exists():  # its folder exists: made only for a new file, below
            conn = None
            try:
                conn = connect(path)
                _settle(conn, store, path, fingerprint, notices, made=False)
                return conn, tuple(notices)
            except sqlite3.DatabaseError as exc:
                if conn is not None:
                    conn.close()
                if is_locked(exc):  # in use by another process, not damaged
                    raise
                notices.append(
                    f"{store.name} {trouble(path, f'is unreadable ({exc})')}; rebuilt it"
                )
                remove(folder, store.file)
        _make_folder(folder)
        conn = connect(path)
        try:
            _settle(conn, store, path, fingerprint, notices, made=True)
        except BaseException:
            conn.close()
            raise
        return conn, tuple(notices)


def connect(path: Path, read_only: bool = False) -> sqlite3.Connection:
    """A connection to a derived database (see the module docstring); `read_only` never writes,
    not even a journal, and never creates the file."""
    if read_only:
        return sqlite3.connect(
            f"{path.as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS, check_same_thread=False
        )
    conn = sqlite3.connect(
        path, isolation_level=None, timeout=BUSY_SECONDS, check_same_thread=False
    )
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def remove(folder: Path, file: str) -> None:
    """Delete a store's `file` in `folder` (or a folder in its place) and its journals."""
    with IN_USE:
        for suffix in _JOURNALS:
            path = folder / f"{file}{suffix}"
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()


def is_locked(exc: BaseException) -> bool:
    """Whether `exc` is sqlite's "database is locked" (another connection's write held on past
    the busy timeout): no damage, the file is only in use."""
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)


def meta_value(conn: sqlite3.Connection, key: str) -> str | None:
    """A value from a store's meta table."""
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


def trouble(path: Path, damage: str) -> str:
    """What is wrong with the database at `path`, to follow its store's name: a permission
    problem if there is one, else `damage` ("is unreadable (...)")."""
    if path.exists() and not os.access(path, os.R_OK):
        return f"{path} cannot be read by this user (permission denied)"
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return f"{path} cannot be written (this user may not write in {path.parent})"
    if path.exists() and not os.access(path, os.W_OK):
        return f"{path} is read-only for this user"
    return f"{path} {damage}" if damage.startswith(("is ", "was ", "has ")) else damage


def file_identity(path: Path) -> str:
    """Which file `path` is on this machine ("device:inode")."""
    info = os.stat(path)
    return f"{info.st_dev}:{info.st_ino}"


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise CardvaultError(
            "is not a folder; cardvault keeps its derived cache there: move the file away", folder
        ) from None
    except OSError as exc:
        raise CardvaultError(f"cannot create the cache folder: {exc.strerror}", folder) from exc


def _settle(
    conn: sqlite3.Connection,
    store: Store,
    path: Path,
    fingerprint: str,
    notices: list[str],
    made: bool,
) -> None:
    """Make the database `store`'s, of its version and `fingerprint`, and this file's own;
    nothing is written when it is (its tables are read, so a damaged one raises). Only a file
    just `made` here may lack tables (another process may be making it at once)."""
    wanted = {"schema": store.version, "file": file_identity(path)}
    if fingerprint:
        wanted["fingerprint"] = fingerprint
    meta = _meta(conn)
    if meta is not None and wanted.items() <= meta.items():  # each wanted value held
        for table in _tables(store.schema):
            conn.execute(f"SELECT * FROM {table} LIMIT 1").fetchall()
        if store.probe:
            conn.execute(store.probe).fetchall()
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        meta = _meta(conn)  # again, under the write lock: another process may have done it
        if meta is None and not made:
            raise sqlite3.DatabaseError("not a database of cardvault's (no meta table)")
        differs = {} if meta is None else _differences(meta, wanted)
        if meta is None:
            _create(conn, store)
        elif differs:
            _reset(conn, store, copied="file" in differs)
            if "schema" in differs:
                notices.append(
                    f"{store.name} had schema version {differs['schema']}, upgraded to "
                    f"{store.version}: rebuilt it from the vault's files{store.kept_note}"
                )
            elif "fingerprint" in differs:
                notices.append(
                    f"{store.name} was made under other settings or by another cardvault; "
                    "rebuilt it from the vault's files"
                )
        conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", wanted.items())
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    if differs:  # every page was written again: into the file, not left in the WAL
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")


def _meta(conn: sqlite3.Connection) -> dict[str, str] | None:
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone() is None:
        return None
    return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}


def _differences(meta: Mapping[str, str], wanted: Mapping[str, str]) -> dict[str, str | None]:
    """Each wanted meta value the database holds otherwise: what it holds instead."""
    return {key: meta.get(key) for key, value in wanted.items() if meta.get(key) != value}


def _create(conn: sqlite3.Connection, store: Store) -> None:
    for statement in _statements(store.schema):  # executescript would commit first
        conn.execute(statement)


def _reset(conn: sqlite3.Connection, store: Store, copied: bool) -> None:
    """Every table made anew and empty, but those of `keep`, whose rows (of the columns both
    schemas have) are carried over; `on_copy` set when the file was another one."""
    tables = [
        str(name)
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY sql LIKE 'CREATE VIRTUAL%' DESC"  # a virtual table drops its own parts
        )
    ]
    kept = [name for name in store.keep if name in tables]
    for name in kept:
        conn.execute(f"CREATE TABLE kept_{name} AS SELECT * FROM {name}")
    for name in tables:
        conn.execute(f'DROP TABLE IF EXISTS "{name}"')
    _create(conn, store)
    for name in kept:
        old = {row[1] for row in conn.execute(f"PRAGMA table_info(kept_{name})")}
        columns = ", ".join(
            row[1] for row in conn.execute(f"PRAGMA table_info({name})") if row[1] in old
        )
        conn.execute(f"INSERT INTO {name} ({columns}) SELECT {columns} FROM kept_{name}")
        conn.execute(f"DROP TABLE kept_{name}")
    if copied and store.on_copy:
        conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", store.on_copy.items())


def _statements(script: str) -> list[str]:
    return [statement.strip() for statement in script.split(";") if statement.strip()]
