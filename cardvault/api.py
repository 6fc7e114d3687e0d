"""The Python API: `open_vault(path)` and the handle's `search` and `index`.

Programs and tests use the same services as the CLI through this small surface:

    from cardvault import open_vault
    vault = open_vault("~/notes")
    for hit in vault.search("why does the login POST fail", k=5):
        print(hit.score, hit.path, hit.topic)

A handle is the warm path: it keeps one search service (`search.engine.Searcher`) with the
model, the open index and the loaded vectors, so repeated searches pay only for what changed.
`open_vault(path, watch=True)` also watches the vault's files, so a search on an unchanged vault
skips the sync altogether. Close the handle (or use it as a context manager) when done.

Importing this module is cheap; the model and numpy load when a search or index first needs
them, and a search never imports torch.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cardvault.vault.layout import Vault, find_vault, open_vault_at

if TYPE_CHECKING:
    from cardvault.search.engine import (
        Progress,
        QueryModels,
        Searcher,
        SearchOutcome,
        SearchResult,
        SyncReport,
    )

__all__ = ["LiveVault", "VaultHandle", "WarmHandles", "open_vault"]


class VaultHandle:
    """An opened vault for programmatic use."""

    def __init__(self, vault: Vault, watch: bool = False, models: QueryModels | None = None):
        self.vault = vault
        self._watch = watch
        self._models = models  # shared with other handles of the same process, if given
        self._searcher: Searcher | None = None  # made by the first search, then reused

    def __enter__(self) -> VaultHandle:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def searcher(self) -> Searcher:
        """The handle's warm search service (for services that take one, e.g. context)."""
        if self._searcher is None:
            from cardvault.search.engine import Searcher

            model = self._models.for_vault(self.vault) if self._models is not None else None
            self._searcher = Searcher(self.vault, model, watch=self._watch)
        return self._searcher

    def close(self) -> None:
        """Release the index, the watcher and the model's loader thread."""
        if self._searcher is not None:
            self._searcher.close()
            self._searcher = None

    @property
    def root(self) -> Path:
        """The vault's root folder."""
        return self.vault.root

    def search(
        self,
        query: str,
        k: int = 10,
        mode: str = "hybrid",
        category: str | None = None,
        tag: str | None = None,
        status: str | None = None,
        logs: bool = False,
        archived: bool = False,
    ) -> list[SearchResult]:
        """The `k` best hits for `query` (mode: hybrid, semantic or keyword), best first."""
        return self.query(query, k, mode, category, tag, status, logs, archived).results

    def query(
        self,
        query: str,
        k: int = 10,
        mode: str = "hybrid",
        category: str | None = None,
        tag: str | None = None,
        status: str | None = None,
        logs: bool = False,
        archived: bool = False,
    ) -> SearchOutcome:
        """Like `search`, but also returns the sync report, the mode used, the fusion weights
        and any notices."""
        from cardvault.search.engine import Filters

        filters = Filters(category=category, tag=tag, status=status, logs=logs, archived=archived)
        return self.searcher.search(query, k=k, mode=mode, filters=filters)

    def index(self, rebuild: bool = False, progress: Progress | None = None) -> SyncReport:
        """Bring the search index up to date (from scratch with `rebuild`); embeds in bulk."""
        return self.searcher.index(rebuild=rebuild, progress=progress)


class LiveVault:
    """A vault held by a long-lived process (`cardvault serve`, `cardvault mcp`): one warm
    handle, opened afresh when cardvault.toml changes (another model, other categories or
    budgets), so the process never answers with settings that are no longer the vault's."""

    def __init__(self, root: Path, models: QueryModels | None = None) -> None:
        self.root = root
        self._models = models
        self._handle = VaultHandle(open_vault_at(root), watch=True, models=models)
        self._stamp = _config_stamp(root)

    @property
    def handle(self) -> VaultHandle:
        """The handle on the vault as its settings are now."""
        stamp = _config_stamp(self.root)
        if stamp != self._stamp:
            self._handle.close()
            self._handle = VaultHandle(open_vault_at(self.root), watch=True, models=self._models)
            self._stamp = stamp
        return self._handle

    def close(self) -> None:
        """Stop the handle's watcher and close its index."""
        self._handle.close()


class WarmHandles:
    """The warm handles of a long-lived process: one `LiveVault` per vault it has searched (its
    own, and the global vault a `--scope all` search reads too), each opened on first use."""

    def __init__(self) -> None:
        from cardvault.search.engine import QueryModels

        self._live: dict[Path, LiveVault] = {}
        self._models = QueryModels()  # vaults set to the same model share one ONNX session

    def handle(self, root: Path) -> VaultHandle:
        """The warm handle on the vault at `root`."""
        live = self._live.get(root)
        if live is None:
            live = self._live[root] = LiveVault(root, self._models)
        return live.handle

    def close(self) -> None:
        """Close every handle (the process is ending)."""
        for live in self._live.values():
            live.close()
        self._live.clear()


def _config_stamp(root: Path) -> tuple[int, int, int] | None:
    from cardvault.vault.config import CONFIG_FILE

    try:
        info = (root / CONFIG_FILE).stat()
    except OSError:
        return None
    return info.st_ino, info.st_mtime_ns, info.st_size


def open_vault(path: str | Path | None = None, watch: bool = False) -> VaultHandle:
    """Open the vault at `path`, or find it like the CLI does ($CARDVAULT_VAULT, walking up).

    `watch` keeps a file watcher on the vault for the handle's life (for long-lived programs:
    searches on an unchanged vault then skip the sync)."""
    if path is not None:
        return VaultHandle(open_vault_at(Path(path).expanduser()), watch)
    return VaultHandle(find_vault(), watch)
