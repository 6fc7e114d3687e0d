"""What the index stores for each vault file: cards and archived cards (one document each) and
daily logs (one document per `## HH:MM — Title` entry).

`list_sources` walks the vault with `os.scandir` and returns each Markdown file's stat, without
reading it: an unchanged file (same size and mtime) is never opened, so a no-op sync of 10,000
cards costs only the stat calls.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from cardvault.errors import CardvaultError, UnsafePathError
from cardvault.vault.card import parse_card
from cardvault.vault.files import inside
from cardvault.vault.layout import LOG_NAME, Vault


class SourceFile(NamedTuple):
    """A Markdown file the index covers: its path relative to the vault, kind and stat.

    A NamedTuple, not a frozen dataclass: 10,000 of them are built on every search.
    """

    rel: str
    abspath: str
    kind: str  # "card", "archived" or "log"
    mtime_ns: int
    size: int

    @property
    def path(self) -> Path:
        """The file's absolute path."""
        return Path(self.abspath)


@dataclass(frozen=True)
class Document:
    """One searchable unit and the text its vector is computed from."""

    key: str
    kind: str
    slug: str
    topic: str
    category: str
    tags: tuple[str, ...]
    status: str
    entry: str | None
    line: int | None
    body: str

    @property
    def embed_text(self) -> str:
        """Topic, body and tags: what the embedding model reads (long bodies in passages)."""
        return embed_text(self.topic, self.body, self.tags)

    @property
    def text_hash(self) -> str:
        """Content key of the document's text (its passages are split again when it changes)."""
        return text_key(self.embed_text)


def embed_text(topic: str, body: str, tags: tuple[str, ...]) -> str:
    """The text the model reads for a topic, a body (or a passage of it) and tags."""
    suffix = f"\n\nTags: {', '.join(tags)}" if tags else ""
    return f"{topic}\n\n{body.strip()}{suffix}"


def text_key(text: str) -> str:
    """Content key of a text: its vector is stored and found under this digest."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def list_sources(vault: Vault) -> dict[str, SourceFile]:
    """Every card, archived card and daily log of the vault, by relative path.

    Plain strings rather than Path objects here: at 10,000 files, pathlib's parsing cost more
    than the stat calls themselves.
    """
    prefix = len(str(vault.root)) + 1
    found: dict[str, SourceFile] = {}
    for kind, folder in (("card", vault.cards_dir), ("archived", vault.archive_dir)):
        for entry in _walk_markdown(str(folder), vault.root):
            found[_posix(entry.path[prefix:])] = _source(entry, prefix, kind)
    if vault.memory_dir.is_dir():
        for entry in os.scandir(vault.memory_dir):
            if LOG_NAME.match(entry.name) and entry.is_file():
                found[_posix(entry.path[prefix:])] = _source(entry, prefix, "log")
    return found


def sources_at(vault: Vault, rels: set[str]) -> dict[str, SourceFile]:
    """The files among `rels` (vault-relative paths) that exist and the index covers: what
    `list_sources` would list for them, without walking the vault."""
    found: dict[str, SourceFile] = {}
    folders = (
        ("card", _posix(os.path.relpath(vault.cards_dir, vault.root)) + "/"),
        ("archived", _posix(os.path.relpath(vault.archive_dir, vault.root)) + "/"),
    )
    memory = _posix(os.path.relpath(vault.memory_dir, vault.root)) + "/"
    for rel in rels:
        kind = next((k for k, folder in folders if rel.startswith(folder)), None)
        name = rel.rsplit("/", 1)[-1]
        if kind is None and rel.startswith(memory) and "/" not in rel[len(memory) :]:
            kind = "log" if LOG_NAME.match(name) else None
        parts = rel.split("/")
        if kind is None or not rel.endswith(".md") or any(p.startswith(".") for p in parts):
            continue
        path = vault.root / rel
        try:
            if path.is_symlink():
                inside(vault.root, path)
            stat = path.stat()
        except (OSError, UnsafePathError):
            continue
        if path.is_file():
            found[rel] = SourceFile(rel, str(path), kind, stat.st_mtime_ns, stat.st_size)
    return found


def _walk_markdown(folder: str, root: Path) -> Iterator[os.DirEntry[str]]:
    """`*.md` files under `folder`, skipping dot-names and symlinks that leave the vault."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_symlink():
            try:
                inside(root, Path(entry.path))
            except UnsafePathError:
                continue
        if entry.is_dir():
            yield from _walk_markdown(entry.path, root)
        elif entry.name.endswith(".md") and entry.is_file():
            yield entry


def _posix(rel: str) -> str:
    return rel if os.sep == "/" else rel.replace(os.sep, "/")


def _source(entry: os.DirEntry[str], prefix: int, kind: str) -> SourceFile:
    stat = entry.stat()
    return SourceFile(_posix(entry.path[prefix:]), entry.path, kind, stat.st_mtime_ns, stat.st_size)


def documents_of(source: SourceFile, text: str, vault: Vault) -> list[Document]:
    """The documents in one file's text; raises CardvaultError when the file does not parse."""
    if source.kind == "log":
        return _log_documents(source, text, vault)
    card = parse_card(text, source.path)
    return [
        Document(
            key=source.rel,
            kind=source.kind,
            slug=card.slug,
            topic=card.topic,
            category=card.category,
            tags=card.tags,
            status=card.status,
            entry=None,
            line=None,
            body=card.body,
        )
    ]


def _log_documents(source: SourceFile, text: str, vault: Vault) -> list[Document]:
    from cardvault.vault.daily import parse_log  # markdown-it: paid only when a log changed

    try:
        entries = parse_log(text, source.path, vault.config.signal_words)
    except ValueError as exc:  # a file name that is not a real date
        raise CardvaultError(f"not a daily log: {exc}", source.path) from exc
    return [
        Document(
            key=f"{source.rel}#{entry.ref.partition('#')[2]}",
            kind="log",
            slug=f"{source.path.stem}#{entry.ref.partition('#')[2]}",
            topic=entry.title,
            category="",
            tags=(),
            status="active",
            entry=f"{entry.time} {entry.title}",
            line=entry.line,
            body=entry.body,
        )
        for entry in entries
    ]
