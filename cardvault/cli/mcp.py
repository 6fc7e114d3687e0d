"""`cardvault mcp`: serve the vault to an agent host over MCP (stdio)."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import VaultOption, opened, session_of


class Host(StrEnum):
    """Agent hosts `--config` prints a registration for."""

    claude = "claude"
    cursor = "cursor"
    codex = "codex"


def mcp(
    ctx: typer.Context,
    vault_path: VaultOption = None,
    config: Annotated[
        Host | None,
        typer.Option("--config", help="Print the snippet that registers this server with a host."),
    ] = None,
) -> None:
    """Serve this vault over MCP on stdin/stdout, for agent hosts (Claude Code, Cursor, Codex...).

    Tools: search, read (a card, a day's log), context, remember, log, new_card,
    review_pending and review_answer, each doing what the CLI command does (secret guard, one
    git commit per write). Resources: MEMORY.md, the learned rules, every card and every day's
    log. The model loads once, in the background, when the server starts. `--config
    claude|cursor|codex` prints the registration instead.
    """
    session = session_of(ctx)
    if vault_path is not None:
        session = session.with_options(vault_path)
    if config is not None:
        text, where = session.mcp_registration(config.value)
        sys.stdout.write(text)
        render.note(where)
        return
    from cardvault.mcp.server import run_stdio

    run_stdio(opened(session.project()))
