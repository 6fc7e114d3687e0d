"""Reading vault files strictly, their digests, and keeping every path inside the vault.

Every card, log and managed file is read through `read_text` (or `decode` of bytes already read),
which refuses what is not reasonable UTF-8 text with the line of the first bad byte. The
digests here key every concurrency check and every derived cache. Writing lives in
`cardvault.edits`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from cardvault.errors import CardFormatError, UnsafePathError

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
    return FileText(path, decode(data, path), digest_bytes(data))


def decode(data: bytes, path: Path) -> str:
    """The text of a vault file's bytes; CardFormatError (with the line) when they are not
    UTF-8 text of a reasonable size (`bytes_problem`)."""
    problem = bytes_problem(data)
    if problem is not None:
        raise CardFormatError(problem[0], path, problem[1])
    return data.decode("utf-8")


def bytes_problem(data: bytes) -> tuple[str, int | None] | None:
    """Why `data` is not a vault text file (message, line), or None: the rules `read_text`
    applies, so what passes here reads back."""
    if len(data) > MAX_FILE_BYTES:
        return f"file is {len(data):,} bytes, over the {MAX_FILE_BYTES:,}-byte limit", None
    if data.startswith(b"\xef\xbb\xbf"):
        return "file starts with a UTF-8 byte-order mark; save it without", 1
    if b"\x00" in data:
        return "binary file (NUL byte)", data[: data.index(b"\x00")].count(b"\n") + 1
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return f"not UTF-8 text (byte 0x{data[exc.start]:02x})", line
    return None


def text_problem(text: str) -> tuple[str, int | None] | None:
    """Why `text` cannot be written as a vault file that reads back (message, line), or None:
    text from outside (an import, a JSON field) may hold NUL or lone surrogates."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return "not valid Unicode (a lone surrogate)", text.count("\n", 0, exc.start) + 1
    return bytes_problem(data)


def current_digest(path: Path) -> str:
    """Digest of the file's bytes now, or ABSENT."""
    try:
        return digest_bytes(path.read_bytes())
    except FileNotFoundError:
        return ABSENT


def inside(root: Path, path: Path) -> Path:
    """Return `path` resolved, refusing anything that leaves `root` (`..`, outward symlinks)."""
    resolved_root = root.resolve()
    try:
        resolved = (root / path).resolve() if not path.is_absolute() else path.resolve()
    except (RuntimeError, OSError) as exc:  # RuntimeError: a symlink loop (Python 3.11, 3.12)
        raise UnsafePathError("a symlink that loops or cannot be followed", path) from exc
    if resolved != resolved_root and resolved_root not in resolved.parents:
        raise UnsafePathError("path leads outside the vault", path)
    return resolved
