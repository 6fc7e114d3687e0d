"""Search across the vaults of a scope: each vault searched with its own handle, the hits
merged into one ranking (project first on a tie), each named by the vault it came from.

`cardvault search` and the MCP `search` tool both call `search_scope`, each passing how it gets
a vault's search service (a fresh `Searcher`, or a long-lived process's warm one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cardvault.scopes.scope import PROJECT, InScope, merge_ranked
from cardvault.search.engine import Filters, Searcher, SearchOutcome, SearchResult
from cardvault.vault.layout import Vault


@dataclass(frozen=True)
class ScopedHits:
    """The merged hits as (vault name, hit), the modes used, notices, each vault's outcome
    (its fusion weights and explanations)."""

    hits: list[tuple[str, SearchResult]]
    modes: tuple[str, ...]
    notices: tuple[str, ...]
    outcomes: tuple[tuple[str, SearchOutcome], ...]

    @property
    def vaults(self) -> int:
        """How many vaults were searched."""
        return len(self.outcomes)


def search_scope(
    scope: InScope,
    searcher: Callable[[Vault], Searcher],
    query: str,
    k: int = 10,
    mode: str = "hybrid",
    **filters: Any,
) -> ScopedHits:
    """The best `k` hits for `query` over every vault in `scope` (`filters`: category, tag,
    status, logs, archived, as `Filters` takes them). The scope's own notices are not repeated
    in the result's."""
    outcomes: list[tuple[str, SearchOutcome]] = []
    notices: list[str] = []
    for scoped in scope.vaults:
        outcome = searcher(scoped.vault).search(query, k=k, mode=mode, filters=Filters(**filters))
        prefix = "" if scoped.name == PROJECT else f"{scoped.name}: "
        notices += [f"{prefix}{notice}" for notice in outcome.notices]
        outcomes.append((scoped.name, outcome))
    per_vault = [(name, outcome.results) for name, outcome in outcomes]
    hits = merge_ranked(per_vault, lambda hit: hit.score, k)
    modes = tuple(dict.fromkeys(outcome.mode for _, outcome in outcomes))
    return ScopedHits(hits, modes, tuple(notices), tuple(outcomes))
