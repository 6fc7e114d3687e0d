"""`cardvault export`: write the portable JSON."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import now, vault_of

if TYPE_CHECKING:
    pass


def export(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Where to write the JSON ('-' for stdout).")],
    logs: Annotated[bool, typer.Option("--logs", help="Include the daily logs.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite FILE if it exists.")] = False,
) -> None:
    """Write the vault's cards (exact file texts, frontmatter and body), AGENTS.md rules and,
    with --logs, daily logs to a portable JSON file (format cardvault-export, version 1)."""
    from cardvault.edits.atomic import atomic_write
    from cardvault.errors import CardvaultError
    from cardvault.portable.format import export_data, export_target, export_text
    from cardvault.vault.files import ABSENT, current_digest

    vault = vault_of(ctx)
    if str(file) != "-":
        export_target(vault, file)  # refused before anything is read
    export = export_data(vault, now(), logs=logs)
    for skipped in export.skipped:
        render.warning(f"not exported: {skipped}")
    data = export.data
    text = export_text(data)
    if str(file) == "-":
        sys.stdout.write(text)
        return
    expected = current_digest(file)
    if expected != ABSENT and not force:
        raise CardvaultError("exists; pass --force to overwrite it", file)
    atomic_write(file, text, expected)
    extra = f", {len(data['logs'])} daily log(s)" if logs else ""
    render.success(
        f"exported {len(data['cards'])} card(s), {len(data['rules'])} rule(s){extra} → {file}"
    )
