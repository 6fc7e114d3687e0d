"""The vault on disk: finding its root, its fixed layout, and listing its cards and logs.

A `Vault` is a plain value (root folder + settings) passed explicitly to every service; nothing
in cardvault keeps a current vault in global state.
"""

from __future__ import annotations

import os
import re
import stat as stat_module
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from cardvault.errors import UnsafePathError, VaultNotFoundError
from cardvault.trust.settings import Ignored, settle
from cardvault.vault.cache import heal_cache_dir, index_folder
from cardvault.vault.config import CONFIG_FILE, VaultConfig, load_config
from cardvault.vault.confine import confined, leads_outside, name_problem, shown, symlink_message
from cardvault.vault.lognames import is_log_file, is_log_path
from cardvault.vault.root import ENV_VAR, locate_root

CACHE_DIR = ".cardvault"
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
    def index_dir(self) -> Path:
        """Where the search index lives: `cache_dir`, or a folder in the user's cache when this
        user cannot write there (a read-only vault is still searched: vault/cache.py)."""
        return index_folder(self.cache_dir)

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
            return _posix(text[len(root) :])
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    @cached_property
    def _root_prefix(self) -> str:
        return str(self.root).rstrip(os.sep) + os.sep

    def card_path(self, slug: str) -> Path:
        """Where a top-level card with `slug` lives; refuses slugs that could escape the vault."""
        check_slug(slug)
        return confined(self.root, self.cards_dir / f"{slug}.md")

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
    """A Markdown file of the vault, stat-ed, not read: its size, mtime, ctime and inode are its
    signature (vault/changes.py). Plain strings, not Paths: 10,000 are built on every read."""

    rel: str
    abspath: str
    kind: str  # "card", "archived" or "log"
    mtime_ns: int
    size: int
    ctime_ns: int
    inode: int

    @property
    def path(self) -> Path:
        """The file's absolute path."""
        return Path(self.abspath)


@dataclass(frozen=True)
class Refused:
    """A name the walker found and will not read: where (escaped for showing), why (a check
    code: "outside-vault", "symlink", "not-a-file", "file-name", "unreadable"), in words."""

    rel: str
    code: str
    message: str


@dataclass(frozen=True)
class Walk:
    """The vault's card and log files by relative path, and the names refused on the way."""

    files: dict[str, FileStat]
    refused: tuple[Refused, ...]


def walk(vault: Vault) -> Walk:
    """Every card, archived card and daily log (lognames.py), stat-ed but not read: the one vault
    walker, sorted by relative path. Symlinks are never followed; they, FIFOs, names that cannot
    be shown on one line and folders that cannot be listed are refused, never a reason to stop."""
    refused: list[Refused] = []
    files = {stat.rel: stat for stat in _walked(vault, refused)}
    return Walk(dict(sorted(files.items())), tuple(sorted(refused, key=lambda r: r.rel)))


def holds_files(vault: Vault) -> bool:
    """Whether `walk` would find anything, file or refused name: the walk stops at the first."""
    refused: list[Refused] = []
    return next(_walked(vault, refused), None) is not None or bool(refused)


def _walked(vault: Vault, refused: list[Refused]) -> Iterator[FileStat]:
    """`walk`'s files as it finds them (unsorted), its refusals added to `refused`."""
    prefix = len(str(vault.root)) + 1
    walker = _Walker(vault.root, prefix, refused)
    if not walker.enter(vault.memory_dir):
        return
    for kind, folder in (("card", vault.cards_dir), ("archived", vault.archive_dir)):
        if not walker.enter(folder):
            continue
        for entry in walker.markdown_under(str(folder)):
            rel = _posix(entry.path[prefix:])
            found = "log" if kind == "archived" and is_log_file(rel, entry.path) else kind
            yield _stat(rel, entry.path, found, entry.stat(follow_symlinks=False))
    for entry in walker.listing(str(vault.memory_dir)):
        if is_log_path(f"memory/{entry.name}") and walker.regular(entry):
            path = entry.path
            yield _stat(_posix(path[prefix:]), path, "log", entry.stat(follow_symlinks=False))


class _Walker:
    """The walk's checks, each refusal recorded once."""

    def __init__(self, root: Path, prefix: int, refused: list[Refused]) -> None:
        self.root, self.prefix, self.refused = root, prefix, refused

    def refuse(self, path: str, code: str, message: str) -> None:
        self.refused.append(Refused(shown(_posix(path[self.prefix :])), code, message))

    def enter(self, folder: Path) -> bool:
        """Whether `folder` (memory/, memory/cards, memory/archive) is a real folder to walk."""
        try:
            info = os.lstat(folder)
        except OSError:
            return False
        if stat_module.S_ISLNK(info.st_mode):
            self._refuse_link(str(folder))
            return False
        return stat_module.S_ISDIR(info.st_mode)

    def listing(self, folder: str) -> list[os.DirEntry[str]]:
        try:
            with os.scandir(folder) as entries:
                return list(entries)
        except FileNotFoundError:
            return []
        except OSError as exc:
            self.refuse(folder, "unreadable", f"folder cannot be listed ({exc.strerror}); skipped")
            return []

    def regular(self, entry: os.DirEntry[str]) -> bool:
        """Whether `entry` is a regular file with a showable name; refused (reported) else."""
        if entry.is_symlink():
            self._refuse_link(entry.path)
            return False
        if (problem := name_problem(entry.name)) is not None:
            self.refuse(entry.path, "file-name", f"{problem} (shown escaped); rename it")
            return False
        if entry.is_file(follow_symlinks=False):
            return True
        if not entry.is_dir(follow_symlinks=False):
            self.refuse(entry.path, "not-a-file", "not a regular file (a FIFO, device or socket)")
        return False

    def markdown_under(self, folder: str) -> list[os.DirEntry[str]]:
        """The `*.md` files under `folder`, sub-folders included (in no particular order)."""
        found: list[os.DirEntry[str]] = []
        pending = [folder]
        while pending:
            for entry in self.listing(pending.pop()):
                name = entry.name
                if name.startswith("."):
                    continue
                if entry.is_symlink():
                    self._refuse_link(entry.path)  # a folder's or a card's: never followed
                elif entry.is_dir(follow_symlinks=False):
                    if (problem := name_problem(name)) is None:
                        pending.append(entry.path)
                    else:
                        self.refuse(entry.path, "file-name", f"folder {problem}; skipped")
                elif name.endswith(".md") and self.regular(entry):
                    found.append(entry)
        return found

    def _refuse_link(self, path: str) -> None:
        code = "outside-vault" if leads_outside(self.root, Path(path)) else "symlink"
        self.refuse(path, code, symlink_message(path, self.root))


def _posix(rel: str) -> str:
    return rel if os.sep == "/" else rel.replace(os.sep, "/")


def _stat(rel: str, path: str, kind: str, stat: os.stat_result) -> FileStat:
    return FileStat(rel, path, kind, stat.st_mtime_ns, stat.st_size, stat.st_ctime_ns, stat.st_ino)


def files_at(vault: Vault, rels: set[str]) -> dict[str, FileStat]:
    """The files among `rels` (vault-relative paths) that exist and are cards or logs: what
    `walk` would list for them, without walking the vault (a file watcher's report)."""
    found: dict[str, FileStat] = {}
    kinds = (("card", "memory/cards/"), ("archived", "memory/archive/"))
    for rel in rels:
        kind = next((k for k, folder in kinds if rel.startswith(folder)), None)
        if kind is None and is_log_path(rel):
            kind = "log"
        parts = rel.split("/")
        if (
            kind is None
            or not rel.endswith(".md")
            or any(p.startswith(".") or name_problem(p) is not None for p in parts)
        ):
            continue
        path = vault.root / rel
        try:
            confined(vault.root, path)
            stat = os.lstat(path)
        except (OSError, UnsafePathError):
            continue
        if stat_module.S_ISREG(stat.st_mode):
            kind = "log" if kind == "archived" and is_log_file(rel, str(path)) else kind
            found[rel] = _stat(rel, str(path), kind, stat)
    return found


def iter_card_paths(vault: Vault, archived: bool = False) -> Iterator[Path]:
    """Card files (sorted) under memory/cards or memory/archive, as `walk` finds them."""
    kind = "archived" if archived else "card"
    for stat in walk(vault).files.values():
        if stat.kind == kind:
            yield stat.path
