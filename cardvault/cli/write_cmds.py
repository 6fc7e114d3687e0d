"""Commands that add to the vault: init, new, log, remember."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import RedactOption, now, report_commit, vault_of


def init(
    path: Annotated[
        Path, typer.Argument(help="Folder for the new vault (created if missing).")
    ] = Path("."),
) -> None:
    """Create a vault: cardvault.toml, MEMORY.md, AGENTS.md, memory/, a git repo and a first commit.

    Files the folder already has are kept; `.cardvault/` (the derived cache) is git-ignored.
    """
    from cardvault.initvault import init_vault

    result = init_vault(path)
    for note in result.notes:
        render.note(note)
    for kept in result.kept:
        render.note(f"kept your existing {kept}")
    render.success(f"vault ready at {result.vault.root}")
    report_commit(result.commit)


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
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Write a new knowledge card (memory/cards/<slug>.md) and commit it.

    The slug comes from the topic and never overwrites an existing card (a -2 suffix is added).
    Example: cardvault new "Cortex CSRF" -c infrastructure -t cortex,csrf --body "Cortex 3.1.8 ..."
    """
    from cardvault.writing import add_card

    text = sys.stdin.read() if body == "-" else body
    result = add_card(vault_of(ctx), topic, category, tags, text, now().date(), redact=redact)
    for warning in result.warnings:
        render.warning(warning)
    if render.wants_json(json_out):
        render.print_json(
            {"slug": result.slug, "path": str(result.path), "commit": result.commit.sha}
        )
    else:
        render.success(f"card {result.slug} → {result.path}")
    report_commit(result.commit)


def log(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="Entry text, or '-' to read it from stdin.")],
    title: Annotated[
        str | None, typer.Option("--title", help="Entry title (default: first line).")
    ] = None,
    redact: RedactOption = False,
) -> None:
    """Append an entry (## HH:MM — Title) to today's daily log and commit it.

    Start a line with 'Lesson:', 'Fix:', 'Gotcha:' ... so maintenance distills it into a card.
    """
    from cardvault.writing import append_log

    body = sys.stdin.read() if text == "-" else text
    vault = vault_of(ctx)
    result = append_log(vault, body, title, now(), redact=redact)
    render.success(f"logged to {vault.rel(result.path)}")
    report_commit(result.commit)


def remember(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="The lesson, in one or two sentences.")],
    redact: RedactOption = False,
) -> None:
    """Quick "remember this": log TEXT as a Lesson for the next maintenance run to distill."""
    from cardvault.writing import append_log

    vault = vault_of(ctx)
    result = append_log(vault, f"Lesson: {text.strip()}", None, now(), redact=redact)
    render.success(f"remembered in {vault.rel(result.path)}")
    report_commit(result.commit)
