"""`cardvault new`: write a new knowledge card."""

from __future__ import annotations

import sys
from functools import partial
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import (
    AgentOption,
    GlobalOption,
    JsonOption,
    RedactOption,
    opened,
    read_stdin,
    report_commit,
    session_of,
    waiting_note,
)
from cardvault.errors import CardvaultError

if TYPE_CHECKING:
    from cardvault.vault.layout import Vault


def new(
    ctx: typer.Context,
    topic: Annotated[
        str, typer.Argument(help="What the card is about, e.g. 'Cortex CSRF Automation'.")
    ],
    category: Annotated[
        str, typer.Option("--category", "-c", help="One of the vault's categories.")
    ],
    tags: Annotated[
        list[str], typer.Option("--tags", "-t", help="Comma-separated tags; repeatable.")
    ] = [],  # noqa: B006
    body: Annotated[
        str, typer.Option("--body", "-b", help="Card text, or '-' to read it from stdin.")
    ] = "-",
    redact: RedactOption = False,
    json_out: JsonOption = False,
    to_global: GlobalOption = False,
    agent: AgentOption = None,
) -> None:
    """Write a new knowledge card (memory/cards/<slug>.md) and commit it.

    The slug comes from the topic and never overwrites an existing card (a -2 suffix is added).
    Example: cardvault new "Cortex CSRF" -c infrastructure -t cortex,csrf --body "Cortex 3.1.8 ..."
    """
    session = session_of(ctx, agent)
    vault = opened(session.vault_for(to_global))
    text = partial(_card_text, vault, body)  # read once the category is known good
    result = session.new(topic, category, text, tags, to_global, redact, on_wait=waiting_note)
    render.notes(result.notes)
    render.warnings(result.warnings)
    if render.wants_json(json_out):
        render.print_json(
            {"slug": result.slug, "path": vault.rel(result.path), "commit": result.commit.sha}
        )
    else:
        render.success(f"card {result.slug} → {result.path}")
    report_commit(result.commit)


def _card_text(vault: Vault, body: str) -> str:
    """`--body`, or the text typed at the prompt (a terminal) or piped on stdin; refused when
    there is none."""
    if body != "-":
        return body
    if sys.stdin.isatty():
        render.note("card text (Markdown); end it with Ctrl-D on a line of its own:")
    text = read_stdin(vault, "the card text")
    if not text.strip():
        raise CardvaultError(
            "no card text: give --body TEXT, or type it at the prompt, or pipe it on stdin "
            "(echo TEXT | cardvault new TOPIC -c CATEGORY)"
        )
    return text
