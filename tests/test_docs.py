"""The docs stay true: the CLI reference matches `--help`, and every command is documented."""

from __future__ import annotations

from pathlib import Path

import typer

from cardvault.cli.app import app
from cardvault.cli.reference import render_reference

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_cli_reference_is_current() -> None:
    committed = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert committed == render_reference(), (
        "docs/cli.md is stale: run `python -m cardvault.cli.reference > docs/cli.md`"
    )


def test_every_command_has_help_text() -> None:
    group = typer.main.get_command(app)
    ctx = typer.Context(group, info_name="cardvault")
    for name in group.list_commands(ctx):  # type: ignore[attr-defined]
        command = group.get_command(ctx, name)  # type: ignore[attr-defined]
        assert command.help and len(command.help) > 20, f"`cardvault {name}` has no real help"
        assert f"## cardvault {name}" in (DOCS / "cli.md").read_text(encoding="utf-8")
