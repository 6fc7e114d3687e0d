"""Code symbols a card names, and whether the project's source still has them (`verify`).

A symbol is an inline code span that is a call (`load_config()`), a class-like name of two or
more capitalised parts (`VaultState`; not `PRODUCTS`), or a dotted name (`settings.DEBUG`)
whose first part the source has (so `example.com` never counts). It is stale when no tracked
source file holds its name as a whole identifier: a mention anywhere keeps a card fresh, a
rename is found. Reading is confined, bounded (`PROJECT_SOURCE`, `PROJECT_FILES`), one read
per file, and stops once every name is found.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cardvault.errors import CardFormatError, UnsafePathError
from cardvault.limits import PROJECT_FILES, PROJECT_SOURCE
from cardvault.vault.confine import read_confined

#: Folders a walk of the project skips (besides hidden ones): installed and built files.
SKIPPED = frozenset({"node_modules", "venv", "__pycache__", "dist", "build", "target"})
SOURCE_EXTENSIONS = frozenset({
    "py", "pyi", "pyx", "js", "mjs", "cjs", "ts", "tsx", "jsx", "vue", "svelte", "go", "rs", "rb",
    "java", "kt", "kts", "scala", "groovy", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "cs", "fs",
    "php", "swift", "m", "mm", "lua", "pl", "pm", "r", "jl", "dart", "ex", "exs", "erl", "hrl",
    "hs", "ml", "mli", "clj", "cljs", "elm", "zig", "nim", "sh", "bash", "zsh", "sql", "proto"
})  # fmt: skip
PRODUCTS = frozenset({
    "GitHub", "GitLab", "BitBucket", "JavaScript", "TypeScript", "CoffeeScript", "PowerShell",
    "NumPy", "SciPy", "PyTorch", "TensorFlow", "YouTube", "WordPress", "LinkedIn", "MacBook",
    "DevOps", "DockerHub", "HomeBrew", "CloudFlare", "DigitalOcean", "WebAssembly", "PostGis",
    "MySql", "NoSql", "OpenApi"
})  # fmt: skip
#: Last parts of a dotted word that make it a domain or a file name, not an attribute.
NOT_ATTRIBUTES = frozenset({
    "com", "org", "net", "io", "dev", "ai", "app", "co", "uk", "de", "fr", "nl", "jp", "cn", "ru",
    "gov", "edu", "info", "biz", "me", "tv", "us", "eu", "cloud", "xyz", "png", "jpg", "jpeg",
    "gif", "svg", "ico", "webp", "pdf", "log", "bak", "tmp", "orig", "swp", "zip", "gz", "tgz",
    "tar", "bz2", "xz", "whl", "so", "dll", "exe", "bin", "db", "sqlite", "pem", "key", "crt",
    "pub", "parquet", "avro", "jsonl", "ndjson", "tsv", "xlsx", "docx", "mp3", "mp4", "wav",
    "wasm", "map", "min", "local", "example", "sample", "dist"
})  # fmt: skip
_CALL = re.compile(r"^((?:[A-Za-z_]\w*\.)*)([A-Za-z_]\w*)\([^()`]*\)$")
_CLASS = re.compile(r"^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+$")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
_WORD = rb"(?<![A-Za-z0-9_$])%s(?![A-Za-z0-9_$])"
_WORDS = re.compile(rb"[A-Za-z0-9_$]+")
_IDENTIFIER = re.compile(r"[A-Za-z0-9_$]+")


@dataclass(frozen=True)
class Symbol:
    """What a symbol span asks of the source: `name` there, once `anchor` (if any) is."""

    name: str
    anchor: str | None = None


def symbol_of(span: str) -> Symbol | None:
    """The symbol an inline code span names, or None (see the module docstring)."""
    call = _CALL.match(span)
    if call:
        return Symbol(call.group(2))
    if _CLASS.match(span):
        return None if span in PRODUCTS else Symbol(span)
    if _DOTTED.match(span):
        parts = span.split(".")
        if parts[-1].lower() in NOT_ATTRIBUTES:
            return None
        return Symbol(parts[-1], parts[0])
    return None


def source_files(root: Path, tracked: list[str] | None) -> tuple[list[str], bool]:
    """The project's source files, and whether more than `PROJECT_FILES` were cut."""
    names = tracked if tracked is not None else walk_files(root)[0]
    found = [n for n in names if n.rsplit(".", 1)[-1].lower() in SOURCE_EXTENSIONS and "." in n]
    return found[:PROJECT_FILES], len(found) > PROJECT_FILES


def walk_files(root: Path) -> tuple[list[str], bool]:
    """The folder's files (relative to `root`; hidden folders and `SKIPPED` left out, no
    symlink followed), and whether the walk stopped past `PROJECT_FILES` of them."""
    names: list[str] = []
    for folder, subfolders, files in os.walk(root, followlinks=False):
        subfolders[:] = [d for d in subfolders if not d.startswith(".") and d not in SKIPPED]
        base = os.path.relpath(folder, root)
        names += [f if base == "." else f"{base}/{f}" for f in files]
        if len(names) > PROJECT_FILES:
            return names, True
    return names, False


def mentioned(root: Path, files: Iterable[str], names: Iterable[str]) -> tuple[set[str], int]:
    """Which of `names` some file of `files` holds as a whole identifier, and how many files
    were read. Each file is read once (at most `PROJECT_SOURCE` bytes; a bigger or unsafe one is
    skipped), and reading stops once every name is found."""
    wanted = set(names)
    # A plain identifier is a whole word exactly when it is one of the file's words: a set
    # lookup each, after one pass over the file, where a search per name cost files x names x
    # bytes (8,000 names missing from 1,000 files of 20 KB: a minute). A name with other
    # letters (`größe`), which the ASCII word pattern would split, keeps its search.
    plain = {name for name in wanted if _IDENTIFIER.fullmatch(name)}
    left = {name: re.compile(_WORD % re.escape(name.encode())) for name in wanted - plain}
    found: set[str] = set()
    read = 0
    for rel in files:
        if not left and not plain:
            break
        try:
            data = read_confined(root, root / rel, PROJECT_SOURCE)
        except (OSError, UnsafePathError, CardFormatError):
            continue
        if len(data) > PROJECT_SOURCE:
            continue
        read += 1
        if plain:
            hits = plain.intersection(w.decode("ascii") for w in _WORDS.findall(data))
            found |= hits
            plain -= hits
        for name, pattern in list(left.items()):
            if name.encode() in data and pattern.search(data):
                found.add(name)
                del left[name]
    return found, read
