"""The vault on disk: finding its root, its fixed layout, and listing its cards and logs.

A `Vault` is a plain value (root folder + settings) passed explicitly to every service; nothing
in cardvault keeps a current vault in global state.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cardvault.errors import CardvaultError, UnsafePathError, VaultNotFoundError
from cardvault.vault.card import Card, parse_card
from cardvault.vault.config import CONFIG_FILE, VaultConfig, load_config
from cardvault.vault.files import inside, read_text

ENV_VAR = "CARDVAULT_VAULT"
CACHE_DIR = ".cardvault"
LOG_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")
#: Lowercase words joined by hyphens, at most 100 characters (a file name has room for 255).
SLUG_RE = re.compile(r"^(?=.{1,100}$)[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Vault:
    """A vault root and its settings. Paths below are the layout DESIGN.md §1 fixes."""

    root: Path
    config: VaultConfig = field(default_factory=VaultConfig)
    #: What opening the vault healed (e.g. a `.cardvault` file where the cache folder goes);
    #: front ends show these once.
    notices: tuple[str, ...] = field(default=(), compare=False)

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
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def card_path(self, slug: str, archived: bool = False) -> Path:
        """Where a top-level card with `slug` lives; refuses slugs that could escape the vault."""
        check_slug(slug)
        folder = self.archive_dir if archived else self.cards_dir
        return inside(self.root, folder / f"{slug}.md")

    def log_path(self, day: str) -> Path:
        """The daily log file for ISO date `day`."""
        return self.memory_dir / f"{day}.md"


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
    config = load_config(root / CONFIG_FILE)
    notice = heal_cache_dir(root / CACHE_DIR)
    return Vault(root=root, config=config, notices=(notice,) if notice else ())


def heal_cache_dir(path: Path) -> str | None:
    """Make room for the cache folder at `path` (`.cardvault`): anything there that is not a
    folder (a file, a broken symlink, a fifo) is removed, as the cache is cardvault's own and
    disposable; a notice says so. A symlink to a folder is kept (a cache moved elsewhere)."""
    if path.is_dir() or not (path.is_symlink() or path.exists()):
        return None
    what = "a symlink that leads to no folder" if path.is_symlink() else "not a folder"
    try:
        path.unlink()
    except OSError as exc:
        raise CardvaultError(
            f"{what}, and cannot be removed ({exc.strerror}); cardvault keeps its cache here: "
            "remove it",
            path,
        ) from exc
    return f"{path}: was {what}; removed it to make room for cardvault's cache folder"


def find_vault(
    explicit: Path | None = None, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> Vault:
    """Find the vault like git finds its repo: --vault, then $CARDVAULT_VAULT, then walk up."""
    env = os.environ if env is None else env
    if explicit is not None:
        return open_vault_at(explicit)
    if env.get(ENV_VAR):
        return open_vault_at(Path(env[ENV_VAR]))
    start = (cwd or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        if (folder / CONFIG_FILE).is_file():
            return open_vault_at(folder)
    raise VaultNotFoundError(
        f"no vault here or in any parent folder of {start} "
        f"(run `cardvault init`, pass --vault PATH or set {ENV_VAR})"
    )


def card_candidates(vault: Vault, archived: bool = False) -> Iterator[Path]:
    """Every `*.md` under memory/cards or memory/archive (sorted, hidden parts skipped), before
    any safety check: what `iter_card_paths` filters and `check` reports on."""
    folder = vault.archive_dir if archived else vault.cards_dir
    if not folder.is_dir():
        return
    for path in sorted(folder.rglob("*.md")):
        if not any(part.startswith(".") for part in path.relative_to(folder).parts):
            yield path


def iter_card_paths(vault: Vault, archived: bool = False) -> Iterator[Path]:
    """Card files (sorted), under memory/cards or memory/archive, sub-folders included.

    Symlinks that lead outside the vault are skipped here; `check` reports them.
    """
    for path in card_candidates(vault, archived):
        try:
            inside(vault.root, path)
        except UnsafePathError:
            continue
        if path.is_file():
            yield path


def iter_log_paths(vault: Vault) -> Iterator[Path]:
    """Daily log files (memory/YYYY-MM-DD.md), oldest first."""
    if not vault.memory_dir.is_dir():
        return
    for path in sorted(vault.memory_dir.iterdir()):
        if LOG_NAME.match(path.name) and path.is_file():
            yield path


def read_card(path: Path) -> Card:
    """Read and parse one card file."""
    return parse_card(read_text(path).text, path)


@dataclass(frozen=True)
class CardScan:
    """The cards that parsed and the errors of those that did not."""

    cards: list[Card]
    errors: list[CardvaultError]


def scan_cards(vault: Vault, archived: bool = False) -> CardScan:
    """Parse every card; a broken card is reported in `errors`, never fatal for the rest."""
    cards: list[Card] = []
    errors: list[CardvaultError] = []
    for path in iter_card_paths(vault, archived=archived):
        try:
            cards.append(read_card(path))
        except CardvaultError as exc:
            errors.append(exc)
    return CardScan(cards, errors)


def find_card(vault: Vault, slug: str, include_archived: bool = True) -> Card:
    """The card whose slug (or one of its aliases) is `slug`."""
    from cardvault.errors import NotFoundError

    for archived in (False, True) if include_archived else (False,):
        for path in iter_card_paths(vault, archived=archived):
            if path.stem == slug:
                return read_card(path)
    for archived in (False, True) if include_archived else (False,):
        for card in scan_cards(vault, archived=archived).cards:
            if slug in card.aliases:
                return card
    raise NotFoundError(f"no card with slug or alias '{slug}'")
