"""`cardvault list`: the cards, filtered, as a table or JSON."""

from __future__ import annotations

import typer

from cardvault.app.insight import Scope, card_table
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
    columns, table = card_table(rows, by_vault=scope is Scope.all)
    render.table(columns, table, title=render.counted(len(rows), "card"))
