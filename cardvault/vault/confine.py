"""Confinement: every file cardvault reads or writes below a vault root is a real file inside it.

A vault arrives through git, so any name in it may be a trap: a symlink to `../.git/config`, a
folder linking to `~/.ssh`, a FIFO that blocks its reader, a file name holding a terminal
escape. This module is the one place that decides what may be opened: `confined` (below the
root, not under `.git`, no symlink below the root), `read_regular` (at most `limit` + 1 bytes,
so the caller tells "too big" from "exactly the limit"), `name_problem`/`shown`.
Not defended against: another local user swapping a checked folder between check and open.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
import unicodedata
from pathlib import Path

from cardvault.errors import CardFormatError, UnsafePathError
from cardvault.limits import read_upto

#: Folder names a vault path may never pass through (git's own data: hooks, config, objects).
FORBIDDEN_PARTS = frozenset({".git"})
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | getattr(os, "O_CLOEXEC", 0)
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
    confined(root, path)
    return read_regular(path, limit)


def read_regular(path: Path, limit: int) -> bytes:
    """At most `limit` + 1 bytes of the regular file `path`, never through a symlink, never
    blocking on a FIFO or a device. FileNotFoundError when it is missing; CardFormatError when it
    is a folder, a FIFO, a device or a socket; UnsafePathError when it is a symlink."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        if _NOFOLLOW and exc.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(path):
            raise UnsafePathError(
                "is a symlink; cardvault reads and writes no symlinks", path
            ) from exc
        if isinstance(exc, IsADirectoryError):
            raise CardFormatError("is a folder, not a file", path) from exc
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise CardFormatError(f"is {kind} (a FIFO, device or socket is never read)", path)
        if not _NOFOLLOW and os.path.islink(path):  # no O_NOFOLLOW here (Windows): check after
            raise UnsafePathError("is a symlink; cardvault reads and writes no symlinks", path)
        return read_upto(functools.partial(os.read, fd), limit)
    finally:
        os.close(fd)


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
