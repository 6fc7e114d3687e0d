"""Which documents a search may return (`Filters`), as SQL over the index's `docs`.

Light on purpose (no index, no model): a front end builds the filters of a query (the app's
`Query`) before anything is opened.
"""

from __future__ import annotations

from dataclasses import dataclass

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
