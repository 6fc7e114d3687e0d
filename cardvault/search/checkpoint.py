"""Vectors a sync has embedded but not yet committed, kept so an interrupted index resumes.

A sync writes the index in one transaction, and a first index of a big vault embeds for minutes
inside it: interrupted, it would leave nothing. So every `EVERY` vectors go, in their own short
transaction, into `embedding-checkpoint.sqlite` beside the index, keyed by text digest; the next
sync takes what it still needs, and a sync that commits deletes the file.

It is a derived store (vault/derived_store.py): another file's, another model's or a broken one
is emptied before it is read. A row is used only under the same model and width, with this
machine's seal (provenance.py), as a finite unit vector.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cardvault.errors import CardvaultError
from cardvault.search.index import CHECKPOINT as FILE_NAME
from cardvault.search.provenance import machine_key, seal, sealed
from cardvault.vault import derived_store
from cardvault.vault.derived_store import Store, meta_value, open_store, rows_in

if TYPE_CHECKING:
    import numpy as np

#: Vectors embedded between two saves: a few seconds of work is the most an interruption
#: costs, and a save takes a few milliseconds.
EVERY = 256
STORE = Store(
    "checkpoint",
    FILE_NAME,
    "1",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE vectors (text_hash TEXT PRIMARY KEY, vector BLOB NOT NULL, seal BLOB);",
)


def checkpoint_path(folder: Path) -> Path:
    """Where the checkpoint of the index in `folder` lives."""
    return folder / FILE_NAME


def discard(folder: Path) -> None:
    """Delete the checkpoint (after a sync committed, or on `index --rebuild`)."""
    with contextlib.suppress(OSError):
        derived_store.remove(folder, FILE_NAME)


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
            conn = self._open()
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
        except (CardvaultError, OSError, sqlite3.Error):
            self.close()

    def close(self) -> None:
        """Close the connection (the file stays for the next sync)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _existing(self) -> sqlite3.Connection | None:
        """The open checkpoint when one holds vectors, else None; an empty one is deleted: its
        being there says an interrupted sync left work."""
        if self._conn is None and os.path.lexists(self.path):
            with contextlib.suppress(CardvaultError, OSError, sqlite3.Error):
                conn = self._open()
                if conn.execute("SELECT 1 FROM vectors LIMIT 1").fetchone() is None:
                    self.close()
                    discard(self.path.parent)
        return self._conn

    def _open(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn, _ = open_store(STORE, self.path.parent, self.model_id)
        return self._conn
