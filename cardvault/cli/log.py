"""`cardvault log` and `cardvault remember`: append to today's daily log."""

from __future__ import annotations

from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import (
    AgentOption,
    GlobalOption,
    RedactOption,
    opened,
    read_stdin,
    report_commit,
    session_of,
    waiting_note,
)


def log(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="Entry text, or '-' to read it from stdin.")],
    title: Annotated[
        str | None, typer.Option("--title", help="Entry title (default: first line).")
    ] = None,
    redact: RedactOption = False,
    to_global: GlobalOption = False,
    agent: AgentOption = None,
) -> None:
    """Append an entry (## HH:MM — Title) to today's daily log and commit it.

    Write 'Lesson:', 'Fix:', 'Gotcha:' ... where a sentence starts so maintenance distills it.
    Example: cardvault log "Login kept failing. Lesson: send the token twice." --title "Cortex"
    """
    session = session_of(ctx, agent)
    vault = opened(session.vault_for(to_global))
    body = read_stdin(vault, "the entry text") if text == "-" else text
    result = session.log(body, title, to_global, redact, on_wait=waiting_note)
    render.notes(result.notes)
    render.success(f"logged to {vault.rel(result.path)}")
    report_commit(result.commit)


def remember(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="The lesson, in one or two sentences.")],
    redact: RedactOption = False,
    to_global: GlobalOption = False,
    agent: AgentOption = None,
) -> None:
    """Quick "remember this": log TEXT as a Lesson for the next maintenance run to distill.

    Example: cardvault remember "Bearer tokens bypass Cortex CSRF entirely"
    """
    session = session_of(ctx, agent)
    vault = opened(session.vault_for(to_global))
    result = session.remember(text, to_global, redact, on_wait=waiting_note)
    render.notes(result.notes)
    render.success(f"remembered in {vault.rel(result.path)}")
    report_commit(result.commit)
