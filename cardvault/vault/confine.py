"""Confinement: every file cardvault reads or writes below a vault root is a real file inside it.

A vault arrives through git, so any name in it may be a trap: a symlink to `../.git/config`, a
folder linking to `~/.ssh`, a FIFO that blocks its reader, a file name holding a terminal
escape. This module is the one place that decides what may be opened: `confined` (below the
root, not under `.git`, no symlink below the root), `read_file` (the one open and bounded read
of a file cardvault did not write: at most `limit` + 1 bytes, so the caller tells "too big"
from "exactly the limit"), `name_problem`/`shown`.
Not defended against: another local user swapping a checked folder between check and open.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from cardvault.errors import CardFormatError, UnsafePathError

#: Folder names a vault path may never pass through (git's own data: hooks, config, objects).
FORBIDDEN_PARTS = frozenset({".git"})
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_NAMED_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)  # a path the user chose (read_file)
_NOT_A_LINK = "is a symlink; cardvault reads and writes no symlinks"
_CHUNK = 1 << 20
#: Characters a file name shown on one line must not hold, besides categories Cc, Cs, Zl, Zp:
#: the bidirectional overrides and isolates that reorder what a terminal shows.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})


def relative_parts(root: Path, path: Path) -> tuple[str, ...]:
    """The components of `path` below `root`, lexically; UnsafePathError when it is not below
    it, climbs with `..`, or passes through `.git`."""
    text, base = os.fspath(path), os.fspath(root).rstrip(os.sep)
    if not os.path.isabs(text):
        text = os.path.join(base, text)
    if not text.startswith(base + os.sep):
        raise UnsafePathError("path leads outside the vault", path)
    parts = tuple(p for p in text[len(base) + 1 :].split(os.sep) if p not in ("", "."))
    if not parts:
        raise UnsafePathError("is the vault's root folder, not a file in it", path)
    if ".." in parts:
        raise UnsafePathError("path leads outside the vault (`..`)", path)
    if any(part.casefold() in FORBIDDEN_PARTS for part in parts):
        raise UnsafePathError("path is inside .git, which cardvault never touches", path)
    return parts


def confined(root: Path, path: Path, cache: dict[str, bool] | None = None) -> Path:
    """`path` as an absolute path below `root`, refused (UnsafePathError) unless it stays inside
    with no symlink at any existing component. `cache` remembers folders found real (a batch of
    thousands of files in one folder lstats it once)."""
    parts = relative_parts(root, path)
    current = os.fspath(root).rstrip(os.sep)
    for index, part in enumerate(parts):
        current = current + os.sep + part
        last = index == len(parts) - 1
        if not last and cache is not None and cache.get(current):
            continue
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            break  # the rest does not exist yet
        except NotADirectoryError as exc:
            raise UnsafePathError("a component of the path is a file, not a folder", path) from exc
        if stat.S_ISLNK(info.st_mode):
            raise UnsafePathError(symlink_message(current, root), path)
        if not last:
            if not stat.S_ISDIR(info.st_mode):
                raise UnsafePathError("a component of the path is not a folder", path)
            if cache is not None:
                cache[current] = True
    return Path(current)


def symlink_message(link: str | Path, root: Path) -> str:
    """What a symlink found in the vault is, in words (`check` shows it; it is never followed)."""
    try:
        target = os.readlink(link)
    except OSError:
        return "is a symlink; cardvault reads and writes no symlinks in a vault"
    where = "outside the vault" if _leads_outside(Path(link), target, root) else "in the vault"
    return f"is a symlink (to {shown(target)}, {where}); cardvault reads and writes no symlinks"


def _leads_outside(link: Path, target: str, root: Path) -> bool:
    resolved = os.path.normpath(os.path.join(os.fspath(link.parent), target))
    base = os.fspath(root).rstrip(os.sep)
    inside_root = resolved == base or resolved.startswith(base + os.sep)
    return not inside_root or ".git" in Path(resolved[len(base) :]).parts


def leads_outside(root: Path, link: Path) -> bool:
    """Whether the symlink `link` points (lexically) outside `root` or into its `.git`."""
    try:
        return _leads_outside(link, os.readlink(link), root)
    except OSError:
        return True


def read_confined(root: Path, path: Path, limit: int) -> bytes:
    """The bytes of the regular file `path` inside `root` (see the module docstring)."""
    return read_file(confined(root, path), limit).data


class FileRead(NamedTuple):
    """What `read_file` read: the bytes from offset `start`, and the file's status."""

    data: bytes
    start: int
    info: os.stat_result


def read_file(
    path: Path | str, limit: int, *, after: int | None = None, named: bool = False
) -> FileRead:
    """The one open and bounded read of a file cardvault did not write: at most `limit` + 1
    bytes from the start, or from `after` (from the start when the file is now shorter: it was
    replaced), skipping ahead to the last `limit` bytes. Never through a symlink (UnsafePathError)
    nor from a FIFO, device or socket (CardFormatError, as for a folder), unless `named`: a path
    the user chose (an export, their settings) opens as in any program, links and pipes too.
    FileNotFoundError when it is missing; any other OSError as it is."""
    try:
        fd = os.open(path, _NAMED_FLAGS if named else _READ_FLAGS)
    except OSError as exc:
        if not named and exc.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(path):
            raise UnsafePathError(_NOT_A_LINK, path) from exc
        raise
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise CardFormatError("is a folder, not a file", path)
        if not named and not stat.S_ISREG(info.st_mode):
            raise CardFormatError(
                "is not a regular file (a FIFO, device or socket is never read)", path
            )
        if not named and not _NOFOLLOW and os.path.islink(path):  # no O_NOFOLLOW (Windows)
            raise UnsafePathError(_NOT_A_LINK, path)
        start = 0
        if after is not None:
            start = max(after if after <= info.st_size else 0, info.st_size - limit)
            os.lseek(fd, start, os.SEEK_SET)
        return FileRead(read_upto(functools.partial(os.read, fd), limit), start, info)
    finally:
        os.close(fd)


def read_upto(read: Callable[[int], bytes], limit: int) -> bytes:
    """At most `limit` + 1 bytes from `read` (`os.read` on a descriptor, a socket's `recv`),
    chunk by chunk until it returns nothing; the caller refuses more than `limit` in its own
    words, naming the input (its bound is a row of `cardvault.limits`)."""
    chunks: list[bytes] = []
    left = limit + 1
    while left > 0:
        chunk = read(min(left, _CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def is_real_folder(path: Path) -> bool:
    """Whether `path` is a folder and not a symlink (to one)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def name_problem(name: str) -> str | None:
    """Why `name` cannot be shown as one line of a listing, or None (see the module docstring)."""
    if name.isprintable():
        return None
    for char in name:
        category = unicodedata.category(char)
        if category == "Cs":
            return "file name is not UTF-8"
        if category in _HIDDEN_CATEGORIES or char in _BIDI:
            return "file name holds a control character"
    return None


def shown(text: str) -> str:
    """`text` with every character `name_problem` objects to escaped (`\\n`, `\\x1b`, `\\u202e`;
    a byte that was not UTF-8 as `\\xNN`), backslashes doubled so the escapes stay unambiguous."""
    if text.isprintable():
        return text
    out = []
    for char in text:
        category = unicodedata.category(char)
        if category == "Cs" and 0xDC80 <= ord(char) <= 0xDCFF:  # os.fsdecode's escaped byte
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif category in _HIDDEN_CATEGORIES or char in _BIDI:
            out.append(repr(char)[1:-1] if ord(char) < 0x10000 else f"\\U{ord(char):08x}")
        elif char == "\\":
            out.append("\\\\")
        else:
            out.append(char)
    return "".join(out)
