"""The `cardvault` command: the typer app, its global options, and the command list.

Commands live one group per module and are imported lazily by typer's callbacks' modules only
when the module is loaded here; heavy libraries are imported inside command bodies, so
`cardvault --help` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cardvault import __version__
from cardvault.cli import (
    agent_cmds,
    check_cmd,
    insight_cmds,
    maintain_cmd,
    portable_cmds,
    read_cmds,
    search_cmd,
    write_cmds,
)
from cardvault.cli.common import CardvaultGroup

app = typer.Typer(
    name="cardvault",
    cls=CardvaultGroup,
    help=(
        "A git-versioned memory vault for AI agents: a MEMORY.md index, knowledge cards, "
        "daily logs, hybrid search and a maintenance pass. Every change is a git commit."
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"cardvault {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    vault: Annotated[
        Path | None,
        typer.Option(
            "--vault",
            "-V",
            help="Vault folder. Default: $CARDVAULT_VAULT, else the nearest folder upwards "
            "holding cardvault.toml.",
            show_default=False,
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Keep the vault path for the command that runs."""
    ctx.obj = {"vault": vault}


app.command("init")(write_cmds.init)
app.command("new")(write_cmds.new)
app.command("log")(write_cmds.log)
app.command("remember")(write_cmds.remember)
app.command("show")(read_cmds.show)
app.command("list")(read_cmds.list_cards)
app.command("check")(check_cmd.check)
app.command("index")(search_cmd.index)
app.command("search")(search_cmd.search)
app.command("stats")(insight_cmds.stats)
app.command("graph")(insight_cmds.graph)
app.command("forget")(portable_cmds.forget)
app.command("export")(portable_cmds.export)
app.command("import")(portable_cmds.import_)
app.command("context")(agent_cmds.context)
app.command("capture", **agent_cmds.CAPTURE_COMMAND)(agent_cmds.capture)
app.command("maintain")(maintain_cmd.maintain)
app.command("promote")(maintain_cmd.promote)
app.command("demote")(maintain_cmd.demote)
app.command("archive")(maintain_cmd.archive)


def main() -> None:
    """Console-script entry point."""
    app()
