"""Vectors a sync has embedded but not yet committed, kept so an interrupted index resumes.

A sync writes the index in one transaction, and the first index of a big vault embeds for
minutes inside it: killed or interrupted (Ctrl-C, a closed laptop, an out-of-memory kill), it
used to leave nothing, and the next run embedded every passage again. So while a sync embeds
many texts, every `EVERY` vectors go, in their own short transaction, into
`embedding-checkpoint.sqlite` beside the index, keyed by the digest of the text each embeds and
the model's id. The next sync takes from it the vectors it still needs and embeds only the
rest; a sync that commits deletes the file. Nothing else reads it.

Like the index (index.py, vault/cache.py), the file is trusted only while it is the file this
clone created: one that is another file (a copy, one git checked out) is deleted unread, as is
one that is not a database of this shape. A row is used only for the text whose digest it is
stored under, under the same model, at the width the file was made with, when it carries this
machine's seal (provenance.py), and only when it is a finite unit vector.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cardvault.search.index import CHECKPOINT as FILE_NAME
from cardvault.search.index import meta_value, rows_in
from cardvault.search.provenance import machine_key, seal, sealed
from cardvault.vault.cache import file_identity

if TYPE_CHECKING:
    import numpy as np

#: Vectors embedded between two saves: at bulk speed here (40 texts/s on 2 cores) about 6 s
#: of work is the most an interruption costs, and a save (256 rows) takes a few milliseconds.
EVERY = 256
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS vectors (text_hash TEXT PRIMARY KEY, vector BLOB NOT NULL, "
    "seal BLOB)",
)


def checkpoint_path(folder: Path) -> Path:
    """Where the checkpoint of the index in `folder` lives."""
    return folder / FILE_NAME


def discard(folder: Path) -> None:
    """Delete the checkpoint (after a sync committed, or on `index --rebuild`)."""
    path = checkpoint_path(folder)
    for name in (path, path.with_name(f"{path.name}-journal")):
        with contextlib.suppress(OSError):
            name.unlink()


class Checkpoint:
    """The checkpoint of one model's vectors in an index folder (see the module docstring)."""

    def __init__(self, folder: Path, model_id: str) -> None:
        self.path = checkpoint_path(folder)
        self.model_id = model_id
        self._conn: sqlite3.Connection | None = None

    def take(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """The saved vectors of the given text digests (only those it holds)."""
        import numpy as np

        conn = self._existing()
        if conn is None:
            return {}
        width = meta_value(conn, "dim")
        key = machine_key()
        found: dict[str, np.ndarray] = {}
        sql = "SELECT text_hash, vector, seal FROM vectors WHERE text_hash IN ({})"
        for text_hash, blob, stamp in rows_in(conn, sql, hashes):
            if not isinstance(blob, bytes) or width is None or len(blob) != 4 * int(width):
                continue
            if key is not None and not sealed(key, self.model_id, text_hash, blob, stamp):
                continue
            vector = np.frombuffer(blob, dtype=np.float32)
            if np.all(np.isfinite(vector)) and abs(float(vector @ vector) - 1.0) < 1e-3:
                found[str(text_hash)] = vector
        return found

    def add(self, hashes: Sequence[str], vectors: np.ndarray) -> None:
        """Save `vectors` (row i embeds the text of hashes[i]) in one short transaction. Best
        effort: a checkpoint that cannot be written (a full disk) costs only a resumption."""
        import numpy as np

        try:
            conn = self._writable()
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute("INSERT OR IGNORE INTO meta VALUES ('dim', ?)", (vectors.shape[1],))
                if meta_value(conn, "dim") != str(vectors.shape[1]):
                    conn.execute("ROLLBACK")
                    return
                rows = np.ascontiguousarray(vectors, dtype=np.float32)
                key = machine_key()
                blobs = [rows[i].tobytes() for i in range(len(hashes))]
                conn.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                    [
                        (h, blob, None if key is None else seal(key, self.model_id, h, blob))
                        for h, blob in zip(hashes, blobs, strict=True)
                    ],
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.Error:
            self.close()

    def close(self) -> None:
        """Close the connection (the file stays for the next sync)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _existing(self) -> sqlite3.Connection | None:
        """The open checkpoint when there is a usable one of this model (else None; a foreign,
        broken or other model's file is deleted)."""
        if self._conn is not None:
            return self._conn
        if self.path.is_symlink():  # never followed: the link itself goes
            discard(self.path.parent)
        if not self.path.is_file():
            return None
        conn = self._connect()
        if conn is not None and meta_value(conn, "model") == self.model_id:
            self._conn = conn
            return conn
        if conn is not None:
            conn.close()
        discard(self.path.parent)
        return None

    def _writable(self) -> sqlite3.Connection:
        """The open checkpoint, made when there is none (sqlite3.Error when it cannot be)."""
        conn = self._existing()
        if conn is not None:
            return conn
        conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        conn.execute("BEGIN IMMEDIATE")
        for statement in _SCHEMA:
            conn.execute(statement)
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('file', ?)", (file_identity(self.path),))
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('model', ?)", (self.model_id,))
        conn.execute("COMMIT")
        self._conn = conn
        return conn

    def _connect(self) -> sqlite3.Connection | None:
        """A connection to the file when it is this clone's own checkpoint database."""
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        except sqlite3.Error:
            return None
        try:
            if meta_value(conn, "file") == file_identity(self.path):
                conn.execute("SELECT count(*) FROM vectors").fetchone()
                return conn
        except (sqlite3.Error, OSError):
            pass
        conn.close()
        return None
