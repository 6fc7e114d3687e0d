"""What one search asks: the `Query` value (text, how many hits, ranking mode, filters, scope,
rerank) that the session's search takes from every front end, and its `Filters`.

Light on purpose (no index, no model): the CLI, the MCP tool and the Python API build a query
before anything is opened. `SearchOptions` names the same fields as keywords, for
`session.search("text", k=5, scope="all")`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from cardvault.scopes.scope import InScope, Scope

#: Log entries with a lesson signal that no card cites yet: what an agent just remembered.
FRESH_LOGS = (
    "(d.kind = 'log' AND d.pending = 1 AND NOT EXISTS (SELECT 1 FROM cites c WHERE c.ref = d.key))"
)


@dataclass(frozen=True)
class Filters:
    """Which documents a search may return: cards, and log entries not yet distilled into one
    (`fresh`); every log entry with `logs`, archived cards with `archived`."""

    category: str | None = None
    tag: str | None = None
    status: str | None = None
    logs: bool = False
    archived: bool = False
    fresh: bool = True

    def sql(self) -> tuple[str, list[str]]:
        """A WHERE clause over `docs d` and its parameters."""
        kinds = ["card"]
        if self.archived or self.status == "archived":
            kinds.append("archived")
        if self.logs:
            kinds.append("log")
        kind = f"d.kind IN ({', '.join('?' * len(kinds))})"
        clauses = [f"({kind} OR {FRESH_LOGS})" if self.fresh and not self.logs else kind]
        params = list(kinds)
        if self.category:
            clauses.append("d.category = ?")
            params.append(self.category)
        if self.tag:
            clauses.append("EXISTS (SELECT 1 FROM json_each(d.tags) WHERE json_each.value = ?)")
            params.append(self.tag.lower())
        if self.status:
            clauses.append("(d.status = ? OR (? = 'archived' AND d.kind = 'archived'))")
            params.extend([self.status, self.status])
        return " AND ".join(clauses), params


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
    def of(
        cls,
        text: str,
        k: int = 10,
        mode: str = "hybrid",
        category: str | None = None,
        tag: str | None = None,
        status: str | None = None,
        logs: bool = False,
        archived: bool = False,
        scope: Scope | str | InScope = Scope.project,
        rerank: bool | None = None,
    ) -> Query:
        """The query the flat options (`SearchOptions`) spell."""
        filters = Filters(category=category, tag=tag, status=status, logs=logs, archived=archived)
        return cls(text, k, mode, filters, scope, rerank)


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
