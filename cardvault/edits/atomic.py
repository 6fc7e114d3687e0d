"""A single file replaced or removed atomically, refusing to clobber an edit (files outside the
vault, such as `export`'s output; vault files are written by the door's batch writer).

`atomic_write` writes a temporary file in the same folder, fsyncs it, and renames it over the
target, so a reader sees the old file or the new one, never half of each. It takes the digest of
the text the caller read: if the file on disk no longer matches (someone saved it in an editor
meanwhile), it refuses with ConcurrentEditError instead of clobbering the edit.

`fsync_folder` makes a folder's entries durable, and `short_name` keeps a temporary file's name
within the file system's 255 bytes (a card named with 230 bytes or more: the start of the name
and a digest of the whole); the batch writer and the journal use both too (here, below both, so
neither imports the other's writer).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from cardvault.errors import ConcurrentEditError
from cardvault.vault.files import ABSENT, current_digest, digest_bytes

#: The longest file name (in bytes) the file systems cardvault runs on take.
NAME_MAX = 255


def short_name(name: str, suffix: str) -> str:
    """`.NAME` + `suffix` when that fits in NAME_MAX bytes; else the start of the name, `~`
    and a digest of the whole name, then `suffix` (always the same for the same name)."""
    whole = f".{name}{suffix}"
    if len(os.fsencode(whole)) <= NAME_MAX:
        return whole
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:16]
    start = os.fsencode(name)[:48].decode("utf-8", errors="ignore")  # never half a character
    return f".{start}~{digest}{suffix}"


def atomic_write(path: Path, text: str, expected: str, mode: int = 0o644) -> str:
    """Replace `path` with `text` if its bytes still have digest `expected`; return new digest.

    `expected` is the digest from `read_text`, or ABSENT for a file that must not exist yet.
    A new file gets `mode` (0o600 for this machine's private state); a replaced one keeps its.
    """
    found = current_digest(path)
    if found != expected:
        what = "was created" if expected == ABSENT else "changed on disk since it was read"
        raise ConcurrentEditError(f"{what}; not overwriting (re-run to pick up the edit)", path)
    data = text.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp puts 8 characters between prefix and suffix: room kept for them within 255 bytes
    prefix = short_name(path.name, ".xxxxxxxx.tmp").removesuffix("xxxxxxxx.tmp")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        else:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_folder(path.parent)
    return digest_bytes(data)


def fsync_folder(folder: Path) -> None:
    """Make the folder's entries (a rename, a removal) durable; best effort."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
