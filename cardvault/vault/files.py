"""Reading vault files strictly, and their digests.

Every card, log and managed file is read through `read_text` (or `decode` of bytes already
read): only real files inside the vault (confine.py), and only reasonable UTF-8 text, refused
with the line of the first bad byte. The digests key every concurrency check and derived cache;
writing lives in `cardvault.edits`."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cardvault.errors import CardFormatError
from cardvault.limits import VAULT_FILE
from cardvault.vault.confine import read_confined

#: Pass as `expected` when the file must not exist yet.
ABSENT = "absent"


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


def read_text(path: Path, root: Path) -> FileText:
    """Read a vault text file strictly: a regular file inside `root` reached through no symlink
    (vault/confine.py), UTF-8 (a BOM is refused), not binary, not huge (at most VAULT_FILE
    + 1 bytes are ever read)."""
    data = read_confined(root, path, VAULT_FILE)
    size = os.stat(path).st_size if len(data) > VAULT_FILE else len(data)
    return FileText(path, decode(data, path, size), digest_bytes(data))


def read_if_present(path: Path, root: Path) -> FileText | None:
    """`read_text`, or None when there is no file there (a symlink, dangling or not, is
    refused like any other: UnsafePathError)."""
    try:
        return read_text(path, root)
    except FileNotFoundError:
        return None


def decode(data: bytes, path: Path, size: int | None = None) -> str:
    """The text of a vault file's bytes; CardFormatError (with the line) when they are not
    UTF-8 text of a reasonable size (`bytes_problem`). `size` is the file's size when only its
    first bytes were read."""
    problem = bytes_problem(data, size)
    if problem is not None:
        raise CardFormatError(problem[0], path, problem[1])
    return data.decode("utf-8")


def bytes_problem(data: bytes, size: int | None = None) -> tuple[str, int | None] | None:
    """Why `data` is not a vault text file (message, line), or None: the rules `read_text`
    applies, so what passes here reads back. `size`: the whole file's, when `data` is its
    first bytes."""
    if len(data) > VAULT_FILE:
        size = max(size or 0, len(data))
        return f"file is {size:,} bytes, over the {VAULT_FILE:,}-byte limit", None
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


def ensure_within(text: str, what: str, limit: int, where: Path | str | None = None) -> None:
    """Refuse (CardFormatError, one line naming the limit and its setting) a text to be written
    that is over `limit` bytes of UTF-8 (`[write] max_entry_bytes`)."""
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > limit:
        raise CardFormatError(
            f"{what} is {size:,} bytes, over the limit of {limit:,} bytes per write; nothing "
            "written (the limit is [write] max_entry_bytes in cardvault.toml)",
            where,
        )


def current_digest(path: Path) -> str:
    """Digest of the file's bytes now, or ABSENT. Read in pieces (a huge file costs no memory);
    a symlink is never followed: its digest is that of its target's name, which no text a
    writer expects can have, so a write planned against a real file never lands on a link."""
    try:
        if os.path.islink(path):
            return digest_bytes(b"symlink:" + os.fsencode(os.readlink(path)))
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        return digest.hexdigest()
    except FileNotFoundError:
        return ABSENT
