"""`cardvault show`: print one card as written."""

from __future__ import annotations

from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import reading


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
    shown = reading(ctx, from_global).show(slug, from_global)  # a use when an agent asks
    if json_out:
        render.print_json(shown.to_dict())
    else:
        text = shown.card.text  # Markdown as written, ending with a newline
        render.plain_text(text if text.endswith("\n") else text + "\n")
