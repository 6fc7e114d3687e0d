"""`cardvault hot` and `cardvault agents`: an agent's hot memory, and who wrote what."""

from __future__ import annotations

from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import (
    AgentOption,
    GlobalOption,
    JsonOption,
    RedactOption,
    opened,
    reading,
    report_commit,
    session_of,
)


def hot(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="The fragment: one line, noise allowed.")],
    agent: AgentOption = None,
    to_global: GlobalOption = False,
    redact: RedactOption = False,
) -> None:
    """Add a fragment to an agent's hot memory (memory/agents/NAME.md), loaded in every
    `context --agent NAME` and no other agent's. Over [agents] hot_tokens, the oldest fragments
    move to today's daily log. Needs --agent or $CARDVAULT_AGENT.
    """
    session = session_of(ctx, agent)
    opened(session.vault_for(to_global))
    result = session.hot(text, to_global, redact)
    render.success(f"hot memory: {result.path}")
    if result.moved:
        render.note(f"moved {result.moved} older fragment(s) to today's log (over the limit)")
    report_commit(result.commit)


def agents(
    ctx: typer.Context,
    json_out: JsonOption = False,
    to_global: Annotated[bool, typer.Option("--global", help="The global vault's agents.")] = False,
) -> None:
    """List the agents the vault knows: hot memory size against its limit, log entries,
    lessons, corrections, and the live cards each one learned."""
    found = reading(ctx, to_global).agents(to_global)
    if render.wants_json(json_out):
        render.print_json([a.to_dict() for a in found])
        return
    rows = [
        (a.name, f"{a.hot_tokens}/{a.hot_limit}", a.entries, a.lessons, len(a.corrections), a.cards)
        for a in found
    ]
    render.table(
        ["agent", "hot tokens", "entries", "lessons", "corrections", "cards"], rows,
        title=f"{len(found)} agents",
    )  # fmt: skip
