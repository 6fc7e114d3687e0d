"""`cardvault list`: the cards, filtered, as a table or JSON."""

from __future__ import annotations

from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import CategoryOption, JsonOption, StatusOption, TagOption, vault_of


def list_cards(
    ctx: typer.Context,
    category: CategoryOption = None,
    tag: TagOption = None,
    status: StatusOption = None,
    archived: Annotated[bool, typer.Option("--archived", help="Include memory/archive/.")] = False,
    json_out: JsonOption = False,
) -> None:
    """List cards with their category, tags, last update and size in tokens."""
    from cardvault.insight.listing import list_cards as service

    vault = vault_of(ctx)
    listing = service(vault, category=category, tag=tag, status=status, archived=archived)
    for problem in listing.errors:
        render.warning(f"skipped {problem}")
    if render.wants_json(json_out):
        render.print_json([row.to_dict() for row in listing.rows])
        return
    render.table(
        ["slug", "category", "tags", "updated", "tokens", "status"],
        [
            (r.slug, r.category, ", ".join(r.tags), r.updated, r.tokens, r.status)
            for r in listing.rows
        ],
        title=f"{len(listing.rows)} cards",
    )
