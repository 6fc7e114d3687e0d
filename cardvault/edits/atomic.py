"""A single file replaced or removed atomically, refusing to clobber an edit, for files outside
the vault (`export`'s output; vault files go through the door's batch writer).

`atomic_write` writes a temporary file beside the target, fsyncs it and renames it over, after
checking the target still has the digest the caller read. `fsync_folder` and `short_name` (a
temporary name kept within 255 bytes) live here, below the batch writer and the journal, so
neither imports the other.
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
    """Replace `path` with `text` if its bytes still have digest `expected` (ABSENT: must not
    exist); return the new digest. A new file gets `mode`; a replaced one keeps its own."""
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
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else mode)
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
