"""`cardvault export`: write the portable JSON."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import reading


def export(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Where to write the JSON ('-' for stdout).")],
    logs: Annotated[bool, typer.Option("--logs", help="Include the daily logs.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite FILE if it exists.")] = False,
) -> None:
    """Write the vault's cards (exact file texts, frontmatter and body), AGENTS.md rules and,
    with --logs, daily logs to a portable JSON file (format cardvault-export, version 1)."""
    session = reading(ctx)
    done = session.export(None if str(file) == "-" else file, logs, force)
    for skipped in done.skipped:
        render.warning(f"not exported: {skipped}")
    if str(file) == "-":
        sys.stdout.write(done.text)
        return
    extra = f", {len(done.data['logs'])} daily log(s)" if logs else ""
    render.success(
        f"exported {len(done.data['cards'])} card(s), {len(done.data['rules'])} rule(s){extra} "
        f"→ {file}"
    )
