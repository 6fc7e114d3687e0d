"""The `cardvault` command: the typer app, its global options, and the command list.

Commands live one group per module and are imported lazily by typer's callbacks' modules only
when the module is loaded here; heavy libraries are imported inside command bodies, so
`cardvault --help` stays fast.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from cardvault import __version__
from cardvault.cli import (
    agents,
    capture,
    check,
    context,
    doctor,
    export,
    forget,
    graph,
    history,
    hook,
    import_,
    init,
    install,
    log,
    maintain,
    mcp,
    new,
    rename,
    review,
    scope,
    search,
    serve,
    show,
    stats,
    sync,
    trust,
    verify,
    view,
)
from cardvault.cli import list as list_command
from cardvault.cli.common import CardvaultGroup, TextCommand

#: Set to see where a command spends its time (files read and parsed, ...) on stderr.
DEBUG_VAR = "CARDVAULT_DEBUG"

app = typer.Typer(
    name="cardvault",
    cls=CardvaultGroup,
    help=(
        "A git-versioned memory vault for AI agents: a MEMORY.md index, knowledge cards, "
        "daily logs, hybrid search and a maintenance pass. Every change is a git commit."
    ),
    no_args_is_help=True,
    add_completion=True,
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
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent",
            help="Act as this agent in any command (default $CARDVAULT_AGENT).",
            show_default=False,
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Make the session the command runs in (`cardvault serve` lends its own, warm one)."""
    from cardvault.app import Session

    lent = ctx.obj if isinstance(ctx.obj, Session) else None
    ctx.obj = lent.with_options(vault, agent) if lent else Session(vault, agent=agent)
    if lent is None:
        ctx.call_on_close(ctx.obj.close)
    if os.environ.get(DEBUG_VAR):
        import logging

        logging.basicConfig(level=logging.DEBUG, format="cardvault: %(message)s")


app.command("init")(init.init)
app.command("new")(new.new)
app.command("log", cls=TextCommand)(log.log)
app.command("remember", cls=TextCommand)(log.remember)
app.command("show")(show.show)
app.command("list")(list_command.list_cards)
app.command("check")(check.check)
app.command("verify")(verify.verify)
app.command("index")(search.index)
app.command("search", cls=TextCommand)(search.search)
app.command("stats")(stats.stats)
app.command("graph")(graph.graph)
app.command("view")(view.view)
app.command("forget")(forget.forget)
app.command("rename")(rename.rename)
app.command("history")(history.history)
app.command("diff")(history.diff)
app.command("export")(export.export)
app.command("import")(import_.import_)
app.command("context")(context.context)
app.command("capture", **capture.CAPTURE_COMMAND)(capture.capture)
app.command("serve")(serve.serve)
app.command("mcp")(mcp.mcp)
app.command("install")(install.install)
app.command("hook", **hook.HOOK_COMMAND)(hook.hook)
app.command("doctor")(doctor.doctor)
app.command("maintain")(maintain.maintain)
app.command("promote")(maintain.promote)
app.command("demote")(maintain.demote)
app.command("archive")(maintain.archive)
app.command("sync")(sync.sync)
app.command("hot", cls=TextCommand)(agents.hot)
app.command("agents")(agents.agents)
app.command("scope")(scope.scope)
app.command("trust")(trust.trust)
app.add_typer(review.review_app, name="review")


def main() -> None:
    """Console-script entry point."""
    app()
