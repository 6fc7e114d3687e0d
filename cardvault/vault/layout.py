"""The vault on disk: finding its root, its fixed layout, and listing its cards and logs.

A `Vault` is a plain value (root folder + settings) passed explicitly to every service; nothing
in cardvault keeps a current vault in global state.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from cardvault.errors import UnsafePathError, VaultNotFoundError
from cardvault.trust.settings import Ignored, settle
from cardvault.vault.cache import heal_cache_dir
from cardvault.vault.config import CONFIG_FILE, VaultConfig, load_config
from cardvault.vault.files import inside
from cardvault.vault.root import ENV_VAR, locate_root

CACHE_DIR = ".cardvault"
LOG_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")
#: Lowercase words joined by hyphens, at most 100 characters (a file name has room for 255).
SLUG_RE = re.compile(r"^(?=.{1,100}$)[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Vault:
    """A vault root and its settings. Paths below are the layout DESIGN.md §1 fixes."""

    root: Path
    config: VaultConfig = field(default_factory=VaultConfig)
    #: The agent this invocation writes as (`--agent`, $CARDVAULT_AGENT): commits carry an
    #: `Agent:` trailer and log entries an `Agent:` line (docs/scopes.md). None: anonymous.
    agent: str | None = None
    #: What opening the vault healed (e.g. a `.cardvault` file where the cache folder goes);
    #: front ends show these once.
    notices: tuple[str, ...] = field(default=(), compare=False)
    #: Settings of the vault that run code and were set aside, not approved (trust/): the
    #: commands that would have used one say so.
    ignored: tuple[Ignored, ...] = field(default=(), compare=False)

    @property
    def memory_dir(self) -> Path:
        return self.root / "memory"

    @property
    def cards_dir(self) -> Path:
        return self.root / "memory" / "cards"

    @property
    def archive_dir(self) -> Path:
        return self.root / "memory" / "archive"

    @property
    def agents_dir(self) -> Path:
        """Where each agent's hot memory file lives (memory/agents/<name>.md)."""
        return self.root / "memory" / "agents"

    @property
    def cache_dir(self) -> Path:
        return self.root / CACHE_DIR

    @property
    def memory_md(self) -> Path:
        return self.root / "MEMORY.md"

    @property
    def agents_md(self) -> Path:
        return self.root / "AGENTS.md"

    def rel(self, path: Path) -> str:
        """`path` relative to the vault root, with forward slashes (as shown to users)."""
        text, root = str(path), self._root_prefix
        if text.startswith(root):  # string work: pathlib's relative_to is 30x slower
            rel = text[len(root) :]
            return rel if os.sep == "/" else rel.replace(os.sep, "/")
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    @cached_property
    def _root_prefix(self) -> str:
        return str(self.root).rstrip(os.sep) + os.sep

    def card_path(self, slug: str, archived: bool = False) -> Path:
        """Where a top-level card with `slug` lives; refuses slugs that could escape the vault."""
        check_slug(slug)
        folder = self.archive_dir if archived else self.cards_dir
        return inside(self.root, folder / f"{slug}.md")

    def log_path(self, day: str) -> Path:
        """The daily log file for ISO date `day`."""
        return self.memory_dir / f"{day}.md"

    def ignored_notes(self, *keys: str) -> list[str]:
        """One line for each set-aside setting among `keys` (`maintain.judge`...)."""
        return [item.note() for item in self.ignored if item.setting.key in keys]


def check_slug(slug: str) -> str:
    """Return `slug` if it is lowercase-hyphenated, else raise UnsafePathError."""
    if not SLUG_RE.match(slug):
        raise UnsafePathError(f"invalid slug {slug!r}: use lowercase letters, digits and hyphens")
    return slug


def open_vault_at(root: Path) -> Vault:
    """Open the vault whose root is exactly `root`."""
    root = root.resolve()
    if not (root / CONFIG_FILE).is_file():
        raise VaultNotFoundError(f"not a vault: no {CONFIG_FILE} (run `cardvault init`)", root)
    config, ignored = settle(root, load_config(root / CONFIG_FILE))
    notices = heal_cache_dir(root / CACHE_DIR)
    return Vault(root=root, config=config, notices=notices, ignored=ignored)


def find_vault(
    explicit: Path | None = None, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> Vault:
    """Find the vault like git finds its repo: --vault, then $CARDVAULT_VAULT, then walk up."""
    root = locate_root(explicit, env, cwd)
    if root is None:
        start = (cwd or Path.cwd()).resolve()
        raise VaultNotFoundError(
            f"no vault here or in any parent folder of {start} "
            f"(run `cardvault init`, pass --vault PATH or set {ENV_VAR})"
        )
    return open_vault_at(root)


class FileStat(NamedTuple):
    """A Markdown file of the vault: path relative to the root, kind and stat (not read).

    A NamedTuple of plain strings, not Paths: 10,000 of them are built on every read."""

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
class Walk:
    """The vault's card and log files by relative path, and the paths refused on the way
    (symlinks leading outside the vault)."""

    files: dict[str, FileStat]
    outside: tuple[str, ...]


def walk(vault: Vault) -> Walk:
    """Every card, archived card and daily log, stat-ed but not read (the one vault walker).

    Cards are `*.md` under memory/cards and memory/archive (sub-folders included, dot-names
    skipped); logs are memory/YYYY-MM-DD.md. Symlinks that lead outside the vault are refused.
    The files come sorted by relative path (one sort at the end: 10,000 of them are walked on
    every read).
    """
    prefix = len(str(vault.root)) + 1
    files: dict[str, FileStat] = {}
    outside: list[str] = []
    for kind, folder in (("card", vault.cards_dir), ("archived", vault.archive_dir)):
        for entry in _markdown_under(str(folder), vault.root, outside, prefix):
            rel = _posix(entry.path[prefix:])
            stat = entry.stat()
            files[rel] = FileStat(rel, entry.path, kind, stat.st_mtime_ns, stat.st_size)
    try:
        logs = list(os.scandir(vault.memory_dir))
    except OSError:
        logs = []
    for entry in logs:
        if LOG_NAME.match(entry.name) and entry.is_file():
            rel = _posix(entry.path[prefix:])
            files[rel] = _stat(entry, rel, "log")
    return Walk(dict(sorted(files.items())), tuple(sorted(outside)))


def _markdown_under(
    folder: str, root: Path, outside: list[str], prefix: int
) -> list[os.DirEntry[str]]:
    """The `*.md` files under `folder`, sub-folders included (in no particular order)."""
    found: list[os.DirEntry[str]] = []
    pending = [folder]
    while pending:
        try:
            entries = os.scandir(pending.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                if entry.is_symlink():
                    try:
                        inside(root, Path(entry.path))
                    except UnsafePathError:
                        outside.append(_posix(entry.path[prefix:]))
                        continue
                if entry.is_dir():
                    pending.append(entry.path)
                elif name.endswith(".md") and entry.is_file():
                    found.append(entry)
    return found


def _posix(rel: str) -> str:
    return rel if os.sep == "/" else rel.replace(os.sep, "/")


def _stat(entry: os.DirEntry[str], rel: str, kind: str) -> FileStat:
    stat = entry.stat()
    return FileStat(rel, entry.path, kind, stat.st_mtime_ns, stat.st_size)


def files_at(vault: Vault, rels: set[str]) -> dict[str, FileStat]:
    """The files among `rels` (vault-relative paths) that exist and are cards or logs: what
    `walk` would list for them, without walking the vault (a file watcher's report)."""
    found: dict[str, FileStat] = {}
    kinds = (("card", "memory/cards/"), ("archived", "memory/archive/"))
    for rel in rels:
        kind = next((k for k, folder in kinds if rel.startswith(folder)), None)
        if kind is None and rel.startswith("memory/") and LOG_NAME.match(rel[len("memory/") :]):
            kind = "log"
        if (
            kind is None
            or not rel.endswith(".md")
            or any(p.startswith(".") for p in rel.split("/"))
        ):
            continue
        path = vault.root / rel
        try:
            if path.is_symlink():
                inside(vault.root, path)
            if not path.is_file():
                continue
            stat = path.stat()
        except (OSError, UnsafePathError):
            continue
        found[rel] = FileStat(rel, str(path), kind, stat.st_mtime_ns, stat.st_size)
    return found


def iter_card_paths(vault: Vault, archived: bool = False) -> Iterator[Path]:
    """Card files (sorted) under memory/cards or memory/archive, symlinks out of the vault
    skipped (`check` reports them)."""
    kind = "archived" if archived else "card"
    for stat in walk(vault).files.values():
        if stat.kind == kind:
            yield stat.path
