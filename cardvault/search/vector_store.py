"""The vector file beside the index: a float32 matrix whose rows are checked before use.

`vectors-<generation>.npy` holds one row per embedded text; the `vectors` table maps each text's
digest to its row and a checksum of the row's bytes. A row is used only when its checksum
matches, so a truncated, foreign or permuted file yields no vector for the affected texts, which
the next sync embeds again. A file is written whole under a new generation name before the
database points at it, and only a file of that name in the index's own folder is ever opened.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import TYPE_CHECKING

from cardvault.search.index import UNPROVEN, IndexHandle
from cardvault.search.provenance import machine_key, seal, sealed

if TYPE_CHECKING:
    import numpy as np

#: The names `write_vectors` gives vector files: nothing else is opened as one.
VECTOR_FILE = re.compile(r"vectors-[0-9]+\.npy")


def row_checksums(matrix: np.ndarray) -> np.ndarray:
    """A 64-bit checksum of each row's bytes (as int64, for SQLite)."""
    import numpy as np

    words = np.ascontiguousarray(matrix, dtype=np.float32).view(np.uint32)
    columns = np.arange(words.shape[1], dtype=np.uint32)
    multipliers = np.stack(
        [columns * np.uint32(2654435761) + np.uint32(1), columns * np.uint32(40503) + np.uint32(7)],
        axis=1,
    )
    halves = (words @ multipliers).astype(np.uint64)  # wraps modulo 2**32, as a checksum should
    return ((halves[:, 0] << np.uint64(32)) | halves[:, 1]).view(np.int64)


def load_matrix(index: IndexHandle) -> np.ndarray | None:
    """The current vector matrix, read whole, or None when missing or malformed.

    Read, not memory-mapped: another process may truncate or replace the file at any moment,
    and touching a mapped page past the new end of a file kills the process (SIGBUS); a short
    read is only an error. Every row is read by the checksum pass anyway.
    """
    import numpy as np

    path = _vector_file(index)
    if path is None:
        return None
    try:
        matrix = np.load(path, allow_pickle=False)
    except Exception:  # zero bytes, truncated, a folder, not numpy: all mean "no vectors"
        return None
    if not isinstance(matrix, np.ndarray) or matrix.ndim != 2 or matrix.dtype != np.float32:
        return None
    return matrix


def has_vector_file(index: IndexHandle) -> bool:
    """Whether the vector file the database points at is there at its recorded size (no numpy)."""
    path, size = _vector_file(index), index.meta("vectors_bytes")
    try:
        return path is not None and path.is_file() and path.stat().st_size == int(size or -1)
    except (OSError, ValueError):
        return False


def _vector_file(index: IndexHandle) -> Path | None:
    """The vector file the database names, when it is one `write_vectors` writes."""
    name = index.meta("vectors_file")
    return index.folder / name if name and VECTOR_FILE.fullmatch(name) else None


def verified_rows(index: IndexHandle, matrix: np.ndarray | None) -> dict[str, int]:
    """text digest -> row, for the rows of `matrix` whose checksum matches their record (and,
    in an `UNPROVEN` index, whose seal shows this machine made them: provenance.py)."""
    import numpy as np

    unproven = bool(index.meta(UNPROVEN))
    columns = "text_hash, row, checksum, seal" if unproven else "text_hash, row, checksum"
    records = index.conn.execute(f"SELECT {columns} FROM vectors").fetchall()
    if matrix is None or not records:
        return {}
    rows = np.fromiter((r[1] for r in records), dtype=np.int64, count=len(records))
    inside = (rows >= 0) & (rows < len(matrix))
    sums = np.zeros(len(records), dtype=np.int64)
    sums[inside] = row_checksums(matrix[rows[inside]])
    expected = np.fromiter((r[2] for r in records), dtype=np.int64, count=len(records))
    good = np.flatnonzero(inside & (sums == expected))
    if unproven:
        key, model_id = machine_key(), index.meta("model_id") or ""
        dense = np.ascontiguousarray(matrix, dtype=np.float32)
        good = np.array(
            [i for i in good
             if sealed(key, model_id, records[i][0], dense[rows[i]].tobytes(), records[i][3])],
            dtype=np.int64,
        )  # fmt: skip
    return {records[i][0]: int(rows[i]) for i in good}


def verified_vectors(index: IndexHandle) -> dict[str, np.ndarray]:
    """Every verified vector of the index, by the digest of its text."""
    import numpy as np

    matrix = load_matrix(index)
    rows = verified_rows(index, matrix)
    if matrix is None or not rows:
        return {}
    dense = np.asarray(matrix, dtype=np.float32)
    return {key: dense[row] for key, row in rows.items()}


def write_vectors(
    index: IndexHandle, hashes: list[str], matrix: np.ndarray, fresh: frozenset[str] = frozenset()
) -> None:
    """Make `matrix` (row i = text digest hashes[i]) the index's vectors; the caller commits.
    A kept row keeps its seal; one just embedded (`fresh`) or never sealed gets a new one."""
    import numpy as np

    matrix = np.ascontiguousarray(matrix, dtype=np.float32)
    had = dict(index.conn.execute("SELECT text_hash, seal FROM vectors WHERE seal IS NOT NULL"))
    key, model_id = machine_key(), index.meta("model_id") or ""
    seals = [
        had.get(h) if h not in fresh and had.get(h) else
        (seal(key, model_id, h, matrix[i].tobytes()) if key is not None else None)
        for i, h in enumerate(hashes)
    ]  # fmt: skip
    generation = int(index.meta("vectors_generation") or "0") + 1
    name = f"vectors-{generation}.npy"
    tmp = index.folder / f".{name}.tmp"
    with tmp.open("wb") as handle:
        np.save(handle, matrix)
    size = tmp.stat().st_size
    tmp.replace(index.folder / name)
    sums = row_checksums(matrix).tolist() if len(matrix) else []
    index.conn.execute("DELETE FROM vectors")
    index.conn.executemany(
        "INSERT INTO vectors VALUES (?, ?, ?, ?)",
        [(h, i, s, v) for i, (h, s, v) in enumerate(zip(hashes, sums, seals, strict=True))],
    )
    index.set_meta(
        {
            UNPROVEN: "",  # every row is now this machine's
            "vectors_generation": str(generation),
            "vectors_file": name,
            "vectors_bytes": str(size),
        }
    )


def prune_vector_files(index: IndexHandle) -> None:
    """Remove vector files the database no longer points at (after the commit)."""
    current = index.meta("vectors_file")
    for path in index.folder.glob("vectors-*.npy"):
        if path.name != current:
            with contextlib.suppress(OSError):
                if path.is_file():
                    path.unlink()
