"""`cardvault list`: the cards, filtered, as a table or JSON."""

from __future__ import annotations

from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import (
    CategoryOption,
    JsonOption,
    ScopeOption,
    StatusOption,
    TagOption,
    scope_of,
)
from cardvault.scopes.scope import Scope


def list_cards(
    ctx: typer.Context,
    category: CategoryOption = None,
    tag: TagOption = None,
    status: StatusOption = None,
    archived: Annotated[bool, typer.Option("--archived", help="Include memory/archive/.")] = False,
    json_out: JsonOption = False,
    scope: ScopeOption = Scope.project,
) -> None:
    """List cards with their category, tags, last update and size in tokens (this project's
    vault by default; --scope global or all for the global vault).

    Example: cardvault list --category infrastructure --json
    """
    from cardvault.insight.listing import list_cards as service
    from cardvault.vault.filters import check_filters

    rows = []
    found = scope_of(ctx, scope)
    check_filters((c for s in found.vaults for c in s.vault.config.categories), category, status)
    for scoped in found.vaults:
        listing = service(
            scoped.vault, category=category, tag=tag, status=status, archived=archived
        )
        render.skipped(list(listing.errors))
        rows += [(scoped.name, row) for row in listing.rows]
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
