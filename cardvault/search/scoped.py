"""Search across several vaults (a scope: the project and the global vault): each vault searched
with its own service, the hits merged into one ranking, each named by the vault it came from.
The app session calls `search_vaults` for the CLI, the MCP tool and the Python API alike.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from operator import attrgetter
from typing import Any, TypeVar

from cardvault.errors import CardvaultError
from cardvault.search.engine import Filters, KeywordQuery, Searcher, SearchOutcome, SearchResult

T = TypeVar("T")
#: The name of the first vault of a scope, whose notices carry no prefix (scopes.scope's).
PROJECT = "project"
NO_MATCH = "no match: nothing in memory shares a word with the query or comes near its meaning"
NO_STRONG_MATCH = (
    "no strong match: the best hits are shown, marked weak (a low score: likely not it)"
)


@dataclass(frozen=True)
class ScopedHits:
    """The merged hits as (vault name, hit), the modes used, notices, each vault's outcome,
    and `today`, the day a card hit's age is told on (None: no ages)."""

    hits: list[tuple[str, SearchResult]]
    modes: tuple[str, ...]
    notices: tuple[str, ...]
    outcomes: tuple[tuple[str, SearchOutcome], ...]
    today: dt.date | None = None
    #: Counts the log entries the filters left out that would beat these hits: a second
    #: search, asked once, when `in_logs` is first read (None: nothing to look for).
    beating_logs: Callable[[], int] | None = None

    @cached_property
    def in_logs(self) -> int:
        """How many log entries the filters left out would beat these hits."""
        return self.beating_logs() if self.beating_logs is not None else 0

    def logs_hint(self, switch: str) -> str | None:
        """Where a better answer waits in the daily logs, said with the front end's `switch`
        that includes them (`--logs`, `include_logs=true`); None when none does."""
        if not self.in_logs:
            return None
        entries = "log entry matches" if self.in_logs == 1 else "log entries match"
        return f"{self.in_logs} {entries}: search again with {switch}"

    @cached_property
    def about(self) -> list[Mapping[str, Any]]:
        """What each hit's row says of its card's age (`documents.Dates.facts`), in hit order:
        nothing of a log hit, nor without `today`."""
        today = self.today
        return [
            {} if hit.dates is None or today is None else hit.dates.facts(today)
            for _, hit in self.hits
        ]

    @property
    def vaults(self) -> int:
        """How many vaults were searched."""
        return len(self.outcomes)

    @property
    def results(self) -> list[SearchResult]:
        """The hits without their vault names, best first."""
        return [hit for _, hit in self.hits]

    @cached_property
    def verdict(self) -> str | None:
        """What to say of the hits as a whole, the same words in the CLI and the MCP tool:
        "no match", "no strong match" (every hit is weak), or nothing."""
        if not self.hits:
            return NO_MATCH
        return NO_STRONG_MATCH if all(hit.weak for _, hit in self.hits) else None

    def rows(self, weights: bool = False) -> Iterator[dict[str, Any]]:
        """The hits as JSON rows, each with its `vault` (a weak one marked `weak: true`), and
        with `weights` its vault's fusion weights (`SearchOutcome.weights_json`)."""
        weighed = {name: outcome.weights_json() for name, outcome in self.outcomes if weights}
        for (name, hit), extra in zip(self.hits, self.about, strict=True):
            row = {**hit.to_dict(), "vault": name, **extra}
            if weights:
                row["weights"] = weighed[name]
            yield row


def search_vaults(
    searchers: Mapping[str, Searcher],
    query: str,
    k: int = 10,
    mode: str = "hybrid",
    filters: Filters | None = None,
    rerank: bool | None = None,
) -> ScopedHits:
    """The best `k` hits for `query` over the vaults of `searchers` (each vault's search service
    by its name, in order). A query without a word is an error: an embedding of nothing ranks
    noise."""
    outcomes: list[tuple[str, SearchOutcome]] = []
    notices: list[str] = []
    read = KeywordQuery.of(query)
    if not read.terms:
        shown = query.strip()[:40]
        raise CardvaultError(
            f"the query {shown!r} holds no word to search for" if shown else "the query is empty"
        )
    for name, searcher in searchers.items():
        outcome = searcher.search(read, k=k, mode=mode, filters=filters, rerank=rerank)
        prefix = "" if name == PROJECT else f"{name}: "
        notices += [f"{prefix}{notice}" for notice in outcome.notices]
        notices += [f"{prefix}skipped {problem}" for problem in outcome.sync.errors]
        outcomes.append((name, outcome))
    per_vault = [(name, outcome.results) for name, outcome in outcomes]
    hits = merge_ranked(per_vault, attrgetter("score"), k)
    modes = tuple(dict.fromkeys(outcome.mode for _, outcome in outcomes))
    kept = filters or Filters()

    def beating_logs() -> int:  # nothing strong among the cards: would a log entry answer?
        wide = replace(kept, logs=True)
        return sum(
            hit.kind == "log" and not (hits and hit.weak)
            for searcher in searchers.values()
            for hit in searcher.search(read, k, mode, wide, rerank=False).results
        )

    ruled_out = kept.logs or kept.category or kept.tag or kept.status
    beating = None if ruled_out or not all(hit.weak for _, hit in hits) else beating_logs
    return ScopedHits(hits, modes, tuple(notices), tuple(outcomes), beating_logs=beating)


def merge_ranked(
    per_vault: Sequence[tuple[str, Sequence[T]]], score: Callable[[T], float], k: int
) -> list[tuple[str, T]]:
    """Hits of several vaults as one ranking: by score, the earlier vault (project) first on a
    tie, then each vault's own order; at most `k`."""
    tagged = [
        (-score(hit), order, rank, name, hit)
        for order, (name, hits) in enumerate(per_vault)
        for rank, hit in enumerate(hits)
    ]
    tagged.sort()  # (order, rank) is unique: the names and hits are never compared
    return [(name, hit) for _, _, _, name, hit in tagged[:k]]
