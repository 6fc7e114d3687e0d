"""`cardvault init`: create a vault, and offer to import the notes the folder already holds."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import register_project, report_commit

if TYPE_CHECKING:
    from cardvault.portable.kinds import Survey
    from cardvault.vault.layout import Vault

KIND_NAMES = {
    "agent-workspace": "an agent workspace's notes",
    "obsidian": "an Obsidian vault",
    "claude-code": "Claude Code's memory folder",
    "basic-memory": "basic-memory notes",
    "plain": "plain Markdown notes",
}
#: Folders and files named where an agent workspace's notes are.
PLACES_SHOWN = 6


def init(
    ctx: typer.Context,
    path: Annotated[
        Path, typer.Argument(help="Folder for the new vault (created if missing).")
    ] = Path("."),
) -> None:
    """Create a vault: cardvault.toml, MEMORY.md, AGENTS.md, memory/, a git repo and a first commit.

    Files the folder already has are kept; `.cardvault/` (the derived cache) is git-ignored.
    The new vault registers with the global vault ($CARDVAULT_HOME), made on first use.
    When the folder already holds notes (an Obsidian vault, Claude Code's memory folder,
    basic-memory or plain Markdown), init says so and offers to import them: a question in a
    terminal, else the `cardvault import` command to run. It never imports on its own.
    In an agent workspace (OpenClaw, Clawdbot) its daily logs, memory/DATE*.md and the old ones
    in memory/archive/, stay where they are and are read as the vault's logs; its other notes
    (memory/lessons/, decisions/, knowledge/ ...) are named and offered for import as cards.
    """
    from cardvault.write.init import init_vault

    result = init_vault(path)
    for note in result.notes:
        render.note(note)
    for kept in result.kept:
        render.note(f"kept your existing {kept}")
    if "MEMORY.md" in result.kept:
        _memory_over_budget(result.vault)
    render.success(f"vault ready at {result.vault.root}")
    report_commit(result.commit)
    register_project(ctx, result.vault)
    if result.found is not None and result.found.logs:
        _adopted_logs(result.found)
    if result.found is not None and result.found.notes:
        _offer_import(result.vault, result.found)


def _memory_over_budget(vault: Vault) -> None:
    """Say so when the MEMORY.md the folder had is over the budget `check` holds it to."""
    try:
        size = vault.memory_md.lstat().st_size
    except OSError:
        return
    budget = vault.config.memory_byte_budget
    if size > budget:
        render.note(
            f"your MEMORY.md is {size:,} bytes, over the {budget:,} of the index every session "
            "loads: `cardvault check` reports it until it is shorter or [memory] byte_budget in "
            "cardvault.toml is raised"
        )


def _adopted_logs(found: Survey) -> None:
    """Say that the folder's daily logs are the vault's logs now, as they are."""
    where = f" ({found.archived} in memory/archive/)" if found.archived else ""
    what = "adopted an agent workspace: its" if found.kind == "agent-workspace" else "its"
    render.note(
        f"{what} {found.logs} daily log(s){where} stay where they are and are read as this "
        "vault's logs (cardvault search --logs finds their entries)"
    )


def _offer_import(vault: Vault, found: Survey) -> None:
    """Say what notes the folder holds; import them only when a person says yes."""
    root = str(vault.root)
    command = f"cardvault --vault {shlex.quote(root)} import {shlex.quote(root)}"
    what = f"{found.notes} Markdown file(s) ({KIND_NAMES[found.kind]})"
    if found.kind == "agent-workspace":
        shown = ", ".join(found.places[:PLACES_SHOWN])
        more = len(found.places) - PLACES_SHOWN
        what += f" in {shown}" + (f" and {more} more place(s)" if more > 0 else "")
    if found.project is not None and found.kind == "plain":
        render.note(
            f"this folder holds {what}; with {found.project} here it looks like a code "
            f"project's documentation, so no import is offered ({command} would take them)"
        )
        return
    render.note(f"this folder already holds {what}")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        render.note(f"to import them as cards, run: {command} (add --dry-run to see the plan)")
        return
    if not typer.confirm("Import them as cards now? (one commit; the notes stay as they are)"):
        render.note(f"not imported; later: {command}")
        return
    from cardvault.cli.import_notes import import_folder
    from cardvault.errors import CardvaultError

    try:
        import_folder(vault, vault.root, False, False, False, None, False)
    except CardvaultError:
        render.note(f"the vault is ready; nothing was imported (see below). Later: {command}")
        raise
