"""`cardvault init`: create a vault, and offer to import the notes the folder already holds."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import report_commit, report_registration, session_of
from cardvault.cli.import_notes import import_folder
from cardvault.errors import CardvaultError

if TYPE_CHECKING:
    from cardvault.app import Session
    from cardvault.portable.kinds import Survey

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
    session = session_of(ctx)
    done = session.init(path)
    made = done.made
    render.notes(made.notes)
    for kept in made.kept:
        render.note(f"kept your existing {kept}")
    if done.oversized is not None:
        size, budget = done.oversized
        render.note(
            f"your MEMORY.md is {size:,} bytes, over the {budget:,} of the index every session "
            "loads: `cardvault check` reports it until it is shorter or [memory] byte_budget in "
            "cardvault.toml is raised"
        )
    render.success(f"vault ready at {made.vault.root}")
    report_commit(made.commit)
    report_registration(done)
    if made.found is not None and made.found.logs:
        _adopted_logs(made.found)
    if made.found is not None and made.found.notes:
        _offer_import(session.with_options(made.vault.root), made.vault.root, made.found)


def _adopted_logs(found: Survey) -> None:
    """Say that the folder's daily logs are the vault's logs now, as they are."""
    where = f" ({found.archived} in memory/archive/)" if found.archived else ""
    what = "adopted an agent workspace: its" if found.kind == "agent-workspace" else "its"
    render.note(
        f"{what} {found.logs} daily log(s){where} stay where they are and are read as this "
        "vault's logs (cardvault search --logs finds their entries)"
    )


def _offer_import(session: Session, folder: Path, found: Survey) -> None:
    """Say what notes the folder holds; import them only when a person says yes."""
    root = str(folder)
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
    try:
        import_folder(session, folder, False, False, False, None, False)
    except CardvaultError:
        render.note(f"the vault is ready; nothing was imported (see below). Later: {command}")
        raise
