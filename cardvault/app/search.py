"""The app's search and context commands: `search`, `index`, `context`, and the warm-up of a
long-lived process; `Query` is one search."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from cardvault.app.wiring import Wiring
from cardvault.scopes.scope import InScope, Scope
from cardvault.search.filters import Filters
from cardvault.vault.fields import STALE as STALE  # the key of a hit's `about` marking it stale

if TYPE_CHECKING:
    from cardvault.context.build import ContextPack
    from cardvault.search.engine import Progress, Searcher, SearchOutcome, SearchResult, SyncReport
    from cardvault.search.scoped import ScopedHits

    #: A front end's progress display for a first index (the CLI's progress bar).
    Indexing = Callable[[], AbstractContextManager[Progress]]

#: What a long-lived process searches for once at start, to sync the index and load the model.
WARM_UP_QUERY = "warm up the search index and model"


@dataclass(frozen=True)
class Query:
    """One search: the `k` best hits for `text` in `mode` (hybrid, semantic or keyword) among
    what `filters` lets through, over the vaults of `scope` (a `Scope`, or one a command
    resolved already); `rerank`: the cross-encoder rereads a hybrid search's first hits (None:
    each vault's `[search] rerank`)."""

    text: str
    k: int = 10
    mode: str = "hybrid"
    filters: Filters = field(default_factory=Filters)
    scope: Scope | str | InScope = Scope.project
    rerank: bool | None = None

    @classmethod
    def of(cls, text: str, **options: Unpack[SearchOptions]) -> Query:
        """The query the flat options (`SearchOptions`) spell."""
        rest: dict[str, Any] = dict(options)
        named = {f.name: rest.pop(f.name) for f in fields(Filters) if f.name in rest}
        return cls(text, filters=Filters(**named), **rest)


class SearchOptions(TypedDict, total=False):
    """`Query.of`'s options, as keywords of the session's search methods."""

    k: int
    mode: str
    category: str | None
    tag: str | None
    status: str | None
    logs: bool
    archived: bool
    scope: Scope | str | InScope
    rerank: bool | None


class SearchCommands(Wiring):
    """Search and context: reads of the scope's vaults through their warm search services."""

    def search_hits(
        self, query: str | Query, indexing: Indexing | None = None, **options: Unpack[SearchOptions]
    ) -> ScopedHits:
        """`cardvault search`: the `k` best hits of `query` (a `Query`, or its text with the
        options as keywords) over the scope's vaults, each named by its vault, with the modes
        used, the notices (the scope's first), each vault's outcome and each card hit's age and
        stale mark (`about`, told on the session's day). CardvaultError for a category or
        status no card can have.
        `indexing`: a ranked search first indexes a vault never indexed with this display."""
        from cardvault.search.scoped import search_vaults

        asked = _query(query, options)
        in_scope = self.scope(asked.scope, searching=True)
        category, status = asked.filters.category, asked.filters.status
        if category is not None or status is not None:  # else nothing to check
            from cardvault.vault.filters import check_filters

            check_filters([s.vault for s in in_scope.vaults], category, status)
        searchers = {s.name: self.handles.searcher(s.vault) for s in in_scope.vaults}
        if asked.mode != "keyword":
            self._index_first(searchers.values(), indexing)
        found = search_vaults(
            searchers, asked.text, asked.k, asked.mode, asked.filters, asked.rerank
        )
        notices = (*in_scope.notices, *found.notices)
        return replace(found, notices=notices, today=self.now().date())

    def search(self, query: str | Query, **options: Unpack[SearchOptions]) -> list[SearchResult]:
        """The `k` best hits for `query` (as `search_hits`), best first."""
        return self.search_hits(query, **options).results

    def query(self, query: str | Query, **options: Unpack[SearchOptions]) -> SearchOutcome:
        """The project vault's whole outcome (its scope aside): hits, the sync report, mode,
        weights, notices."""
        asked = _query(query, options)
        return self.handle.query(asked.text, asked.k, asked.mode, asked.filters)

    def index(self, rebuild: bool = False, progress: Progress | None = None) -> SyncReport:
        """`cardvault index`: bring the project's search index up to date."""
        return self.handle.index(rebuild, progress)

    def context(
        self,
        task: str | None = None,
        budget: int | None = None,
        scope: Scope | str | InScope = Scope.all,
        archived: bool = False,
        mode: str = "hybrid",
        indexing: Indexing | None = None,
    ) -> ContextPack:
        """`cardvault context`: the session-start pack for `task` within `budget` tokens (with a
        task, a vault never indexed is first indexed with the display `indexing`)."""
        from cardvault.context.plan import Request, build_context

        in_scope = self.scope(scope)
        if task:
            self._index_first((self.searcher(s.vault) for s in in_scope.vaults), indexing)
        request = Request(
            task, budget, self.now().date(), self.agent, archived, mode, searcher=self.searcher
        )
        return build_context(in_scope, request)

    def _index_first(self, searchers: Iterable[Searcher], indexing: Indexing | None) -> None:
        """Index each vault never indexed, showing `indexing`: a first index takes minutes on
        thousands of long notes and must not look hung."""
        if indexing is None:
            return
        fresh = [searcher for searcher in searchers if not searcher.indexed]
        if fresh:
            with indexing() as progress:
                for searcher in fresh:  # one another process is building: the query says so
                    searcher.first_index(progress, wait=0)

    def warm_up(self) -> tuple[str, ...]:
        """Sync the index and load the model now, for the project and the global vault when a
        default `--scope all` search reads it too; the project's notices. What is loaded then
        lives as long as the process: it is kept out of the garbage collector's scans."""
        import gc

        notices = self.handle.query(WARM_UP_QUERY, k=1).notices
        for scoped in self.scope(Scope.all, searching=True).vaults:
            if scoped.vault.root != self.root:
                self.searcher(scoped.vault).search(WARM_UP_QUERY, k=1)
        gc.freeze()
        return notices


def _query(query: str | Query, options: SearchOptions) -> Query:
    if isinstance(query, Query):
        if options:
            raise TypeError("pass the options in the Query, or a text with options")
        return query
    return Query.of(query, **options)
