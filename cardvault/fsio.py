"""Reading and atomically writing vault files, and keeping every path inside the vault.

`atomic_write` is the only function in cardvault that replaces a file's bytes. It writes a
temporary file in the same folder, fsyncs it, and renames it over the target, so a reader sees
the old file or the new one, never half of each. It takes the digest of the text the caller read:
if the file on disk no longer matches (someone saved it in an editor meanwhile), it refuses with
ConcurrentEditError instead of clobbering the edit.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cardvault.errors import CardFormatError, ConcurrentEditError, UnsafePathError

#: Pass as `expected` when the file must not exist yet.
ABSENT = "absent"
#: Files larger than this are refused as cards or logs (a vault of notes has no such file).
MAX_FILE_BYTES = 1_000_000


@dataclass(frozen=True)
class FileText:
    """The decoded text of a file and the digest of the bytes it came from."""

    path: Path
    text: str
    digest: str


def digest_bytes(data: bytes) -> str:
    """Content digest used for concurrency checks and index keys."""
    return hashlib.sha256(data).hexdigest()


def digest_text(text: str) -> str:
    """Digest of `text` as cardvault writes it (UTF-8)."""
    return digest_bytes(text.encode("utf-8"))


def read_text(path: Path) -> FileText:
    """Read a vault text file strictly: UTF-8 (a BOM is refused), not binary, not huge."""
    try:
        data = path.read_bytes()
    except IsADirectoryError as exc:
        raise CardFormatError("is a folder, not a file", path) from exc
    if len(data) > MAX_FILE_BYTES:
        raise CardFormatError(
            f"file is {len(data):,} bytes, over the {MAX_FILE_BYTES:,}-byte limit", path
        )
    if data.startswith(b"\xef\xbb\xbf"):
        raise CardFormatError("file starts with a UTF-8 byte-order mark; save it without", path, 1)
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise CardFormatError("binary file (NUL byte)", path, line)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CardFormatError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", path, line) from exc
    return FileText(path, text, digest_bytes(data))


def current_digest(path: Path) -> str:
    """Digest of the file's bytes now, or ABSENT."""
    try:
        return digest_bytes(path.read_bytes())
    except FileNotFoundError:
        return ABSENT


def atomic_write(path: Path, text: str, expected: str) -> str:
    """Replace `path` with `text` if its bytes still have digest `expected`; return new digest.

    `expected` is the digest from `read_text`, or ABSENT for a file that must not exist yet.
    """
    found = current_digest(path)
    if found != expected:
        what = "was created" if expected == ABSENT else "changed on disk since it was read"
        raise ConcurrentEditError(f"{what}; not overwriting (re-run to pick up the edit)", path)
    data = text.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)
    return digest_bytes(data)


def atomic_delete(path: Path, expected: str) -> None:
    """Remove `path` if its bytes still have digest `expected`."""
    found = current_digest(path)
    if found != expected:
        raise ConcurrentEditError("changed on disk since it was read; not removing", path)
    path.unlink()
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
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


def inside(root: Path, path: Path) -> Path:
    """Return `path` resolved, refusing anything that leaves `root` (`..`, outward symlinks)."""
    resolved_root = root.resolve()
    resolved = (root / path).resolve() if not path.is_absolute() else path.resolve()
    if resolved != resolved_root and resolved_root not in resolved.parents:
        raise UnsafePathError("path leads outside the vault", path)
    return resolved
