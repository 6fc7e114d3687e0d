"""`cardvault view`: the vault as one self-contained HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import JsonOption, reading


def view(
    ctx: typer.Context,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Write the page here (not inside the vault's memory/). Default: "
            ".cardvault/view.html in the vault.",
            show_default=False,
        ),
    ] = None,
    open_page: Annotated[
        bool,
        typer.Option("--open", help="Write the page to a new temporary file and open it."),
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Write the vault as one HTML page to look at: the card graph ([[links]], categories as
    colours, promoted, stale and archived cards marked), stats against their budgets, the
    pending review queue, and every card readable; filter the cards by title (#tag for a tag),
    click a node or a title to read it.

    The page is self-contained and loads nothing (no network, no fonts, no CDN): copy it
    anywhere. Card text is shown, never run. An existing FILE is replaced only when it is an
    earlier page. Example: cardvault view --out ~/vault.html
    """
    written = reading(ctx).view(out, temporary=open_page)
    render.skipped(list(written.problems))
    if open_page:
        import webbrowser

        if not webbrowser.open(written.path.as_uri()):
            render.warning(f"no browser could be started; open {written.path} yourself")
    if render.wants_json(json_out):
        render.print_json(written.to_dict())
        return
    render.success(
        f"wrote the view of {written.cards} card(s), {written.archived} archived, "
        f"{written.links} link(s) ({written.bytes // 1024} KB) → {written.path}"
    )
