"""Warm search handles: one vault's search service kept loaded for the life of a session.

A `VaultHandle` keeps one `engine.Searcher`, so repeated searches pay only for what changed.
`WarmHandles` holds one per vault a session reads, each reopened when its cardvault.toml
changes, vaults set to the same model sharing one query model. Importing this module is cheap:
the model and numpy load when a search first needs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cardvault.vault.layout import Vault, open_vault_at

if TYPE_CHECKING:
    from cardvault.search.engine import (
        Filters,
        Progress,
        QueryModel,
        Searcher,
        SearchOutcome,
        SyncReport,
    )


class SharedModels:
    """The query models of a session's vaults: vaults set to the same model share one."""

    def __init__(self, resident: bool = False) -> None:
        self.resident = resident
        self._by_id: dict[str, QueryModel] = {}

    def for_vault(self, vault: Vault) -> QueryModel:
        """The query model `vault`'s settings name (the one already made, for the same model)."""
        from cardvault.search.engine import QueryModel

        model = QueryModel(vault, self.resident)
        if model.ref is None:
            return model
        return self._by_id.setdefault(model.ref.model_id, model)


class VaultHandle:
    """One vault and its search service, made by the first search and then reused."""

    def __init__(self, vault: Vault, watch: bool, models: SharedModels) -> None:
        self.vault = vault
        self._watch = watch
        self._models = models  # shared with the other handles of the same session
        self._searcher: Searcher | None = None

    @property
    def searcher(self) -> Searcher:
        """The handle's warm search service."""
        if self._searcher is None:
            from cardvault.search.engine import Searcher

            model = self._models.for_vault(self.vault)
            self._searcher = Searcher(self.vault, model, watch=self._watch)
        return self._searcher

    def query(
        self, query: str, k: int = 10, mode: str = "hybrid", filters: Filters | None = None
    ) -> SearchOutcome:
        """The `k` best hits for `query` in this vault, with the sync report, mode, weights."""
        return self.searcher.search(query, k=k, mode=mode, filters=filters)

    def index(self, rebuild: bool = False, progress: Progress | None = None) -> SyncReport:
        """Bring the search index up to date (from scratch with `rebuild`); embeds in bulk."""
        return self.searcher.index(rebuild=rebuild, progress=progress)

    def close(self) -> None:
        """Release the index, the watcher and the model's loader thread."""
        if self._searcher is not None:
            self._searcher.close()
            self._searcher = None


class LiveVault:
    """A vault held by a session: one handle, opened afresh when cardvault.toml changes."""

    def __init__(
        self,
        root: Path,
        models: SharedModels,
        watch: bool = True,
        opened: Vault | None = None,
    ) -> None:
        self.root = root
        self._models = models
        self._watch = watch
        self._stamp = _config_stamp(root)
        #: The handle as last opened (`handle` checks its settings first).
        self.opened = VaultHandle(opened or open_vault_at(root), watch, models)

    @property
    def handle(self) -> VaultHandle:
        """The handle on the vault as its settings are now."""
        stamp = _config_stamp(self.root)
        if stamp != self._stamp:
            self.opened.close()
            self.opened = VaultHandle(open_vault_at(self.root), self._watch, self._models)
            self._stamp = stamp
        return self.opened

    def close(self) -> None:
        """Stop the handle's watcher and close its index."""
        self.opened.close()


class WarmHandles:
    """A session's warm handles: one `LiveVault` per vault it has read, opened on first use."""

    def __init__(self, watch: bool = True) -> None:
        self._watch = watch
        self._live: dict[Path, LiveVault] = {}
        self._models = SharedModels(watch)  # vaults set to one model share its session

    def handle(self, root: Path, opened: Vault | None = None) -> VaultHandle:
        """The warm handle on the vault at `root` (`opened`: that vault, already opened)."""
        live = self._live.get(root)
        if live is None:  # opened now, so its settings are current
            live = self._live[root] = LiveVault(root, self._models, self._watch, opened)
            return live.opened
        return live.handle

    def searcher(self, vault: Vault) -> Searcher:
        """The warm search service of `vault`."""
        return self.handle(vault.root).searcher

    def close(self) -> None:
        """Close every handle (the session is ending)."""
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
