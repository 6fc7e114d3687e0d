"""`cardvault init`: create a vault."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import register_project, report_commit


def init(
    path: Annotated[
        Path, typer.Argument(help="Folder for the new vault (created if missing).")
    ] = Path("."),
) -> None:
    """Create a vault: cardvault.toml, MEMORY.md, AGENTS.md, memory/, a git repo and a first commit.

    Files the folder already has are kept; `.cardvault/` (the derived cache) is git-ignored.
    The new vault registers with the global vault ($CARDVAULT_HOME), made on first use.
    """
    from cardvault.write.init import init_vault

    result = init_vault(path)
    for note in result.notes:
        render.note(note)
    for kept in result.kept:
        render.note(f"kept your existing {kept}")
    render.success(f"vault ready at {result.vault.root}")
    report_commit(result.commit)
    register_project(result.vault)
