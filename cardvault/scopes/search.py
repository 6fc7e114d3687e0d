"""Search across the vaults of a scope: each vault searched with its own handle, the hits
merged into one ranking (project first on a tie), each named by the vault it came from.

`cardvault search` and the MCP `search` tool both call `search_scope`, each passing how it gets
a vault's search handle (a fresh `api.VaultHandle`, or a long-lived process's warm one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from cardvault.scopes.scope import PROJECT, InScope, merge_ranked
from cardvault.search.engine import SearchOutcome, SearchResult
from cardvault.vault.layout import Vault


class Searcher(Protocol):
    """What searches one vault (`api.VaultHandle`)."""

    def query(
        self,
        query: str,
        k: int = ...,
        mode: str = ...,
        category: str | None = ...,
        tag: str | None = ...,
        status: str | None = ...,
        logs: bool = ...,
        archived: bool = ...,
    ) -> SearchOutcome:
        """The search outcome for `query`."""
        ...


@dataclass(frozen=True)
class ScopedHits:
    """The merged hits as (vault name, hit), the modes used, notices, and how many vaults."""

    hits: list[tuple[str, SearchResult]]
    modes: tuple[str, ...]
    notices: tuple[str, ...]
    vaults: int


def search_scope(
    scope: InScope,
    searcher: Callable[[Vault], Searcher],
    query: str,
    k: int = 10,
    mode: str = "hybrid",
    **filters: Any,
) -> ScopedHits:
    """The best `k` hits for `query` over every vault in `scope` (`filters`: category, tag,
    status, logs, archived, as `VaultHandle.query` takes them). The scope's own notices are
    not repeated in the result's."""
    per_vault = []
    modes: list[str] = []
    notices: list[str] = []
    for scoped in scope.vaults:
        outcome = searcher(scoped.vault).query(query, k=k, mode=mode, **filters)
        prefix = "" if scoped.name == PROJECT else f"{scoped.name}: "
        notices += [f"{prefix}{notice}" for notice in outcome.notices]
        per_vault.append((scoped.name, outcome.results))
        modes.append(outcome.mode)
    hits = merge_ranked(per_vault, lambda hit: hit.score, k)
    return ScopedHits(hits, tuple(dict.fromkeys(modes)), tuple(notices), len(per_vault))
