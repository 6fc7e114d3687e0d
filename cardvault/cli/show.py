"""`cardvault show`: print one card as written."""

from __future__ import annotations

from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import vault_of


def show(
    ctx: typer.Context,
    slug: Annotated[
        str, typer.Argument(help="The card's slug (file name without .md) or an alias.")
    ],
    json_out: Annotated[bool, typer.Option("--json", help="Frontmatter and body as JSON.")] = False,
) -> None:
    """Print one card as written (archived cards and aliases are found too)."""
    from cardvault.vault.read import find_card

    vault = vault_of(ctx)
    card = find_card(vault, slug).card
    if json_out:
        render.print_json(
            {"slug": card.slug, "path": vault.rel(card.path), "meta": card.meta, "body": card.body}
        )
    else:
        render.markdown_text(card.text)
