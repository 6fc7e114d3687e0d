"""`cardvault show`: print one card as written."""

from __future__ import annotations

from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import now, vault_of
from cardvault.vault.layout import Vault


def show(
    ctx: typer.Context,
    slug: Annotated[
        str, typer.Argument(help="The card's slug (file name without .md) or an alias.")
    ],
    json_out: Annotated[bool, typer.Option("--json", help="Frontmatter and body as JSON.")] = False,
    from_global: Annotated[
        bool, typer.Option("--global", help="Look in the global vault, not the project's.")
    ] = False,
) -> None:
    """Print one card as written (archived cards and aliases are found too).

    Example: cardvault show cortex-csrf-automation --json
    """
    from cardvault.context.used import read_used

    vault = _global() if from_global else vault_of(ctx)
    card = read_used(vault, slug, now().date(), "show")  # a use when an agent asks
    if json_out:
        render.print_json(
            {"slug": card.slug, "path": vault.rel(card.path), "meta": card.meta, "body": card.body}
        )
    else:
        render.markdown_text(card.text)


def _global() -> Vault:
    from cardvault.errors import VaultNotFoundError
    from cardvault.scopes.home import global_root, global_vault

    found = global_vault()
    if found is None:
        raise VaultNotFoundError("no global vault yet", global_root())
    return found
