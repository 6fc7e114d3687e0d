"""`cardvault rename SLUG NEW`: rename a card and every link to it, in one commit."""

from __future__ import annotations

from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import (
    JsonOption,
    opened,
    report_commit,
    session_of,
    waiting_note,
)


def rename(
    ctx: typer.Context,
    slug: Annotated[str, typer.Argument(help="The card's slug (or one of its aliases).")],
    new: Annotated[str, typer.Argument(help="Its new slug: lowercase letters, digits, hyphens.")],
    json_out: JsonOption = False,
) -> None:
    """Rename a card: its file becomes NEW.md (same folder) and keeps SLUG as an alias; every
    [[link]] and path citation of it in cards, and in the managed sections of MEMORY.md and
    AGENTS.md, is rewritten; one commit.

    Your own text outside the managed markers and the daily logs (append-only) are left as they
    are: the lines there that still name SLUG are listed, and resolve through the alias. A NEW
    that is not a slug, or that another card already uses, is refused and nothing is written.
    Example: cardvault rename cortex-csrf cortex-csrf-tokens
    """
    session = session_of(ctx)
    vault = opened(session.project())
    result = session.rename(slug, new, on_wait=waiting_note)
    render.notes(result.notes)
    if render.wants_json(json_out):
        render.print_json(
            {
                "old": result.old,
                "new": result.new,
                "path": vault.rel(result.path),
                "changes": result.actions,
                "left": list(result.left),
                "commit": result.commit.sha if result.commit else None,
            }
        )
    else:
        for line in result.actions:
            render.success(line)
        for where in result.left:
            render.note(f"{where}: still names {result.old} (left as written; resolves by alias)")
    report_commit(result.commit)
