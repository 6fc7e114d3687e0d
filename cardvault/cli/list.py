"""`cardvault list`: the cards, filtered, as a table or JSON."""

from __future__ import annotations

import typer

from cardvault.app.insight import Scope
from cardvault.cli import render
from cardvault.cli.common import (
    ArchivedOption,
    CategoryOption,
    JsonOption,
    ScopeOption,
    StatusOption,
    TagOption,
    session_of,
)


def list_cards(
    ctx: typer.Context,
    category: CategoryOption = None,
    tag: TagOption = None,
    status: StatusOption = None,
    archived: ArchivedOption = False,
    json_out: JsonOption = False,
    scope: ScopeOption = Scope.project,
) -> None:
    """List cards with their category, tags, last update and size in tokens (this project's
    vault by default; --scope global or all for the global vault).

    Example: cardvault list --category infrastructure --json
    """
    found = session_of(ctx).list_cards(category, tag, status, archived, scope)
    render.warnings(found.notices)
    rows = []
    for each in found.each:
        render.skipped(list(each.problems))
        rows += [(each.name, row) for row in each.result]
    if render.wants_json(json_out):
        render.print_json([{**row.to_dict(), "vault": name} for name, row in rows])
        return
    lead = ["vault"] if scope is Scope.all else []
    columns = [*lead, "slug", "category", "tags", "updated", "tokens", "status"]
    table = [
        (*([name] if lead else []), r.slug, r.category, ", ".join(r.tags), r.updated, r.tokens,
         r.status)
        for name, r in rows
    ]  # fmt: skip
    render.table(columns, table, title=f"{len(rows)} cards")
