"""The `cardvault` command: the typer app, its global options, and the command list.

Commands live one group per module; heavy libraries are imported inside command bodies, so
`cardvault --help` stays fast.
"""

from __future__ import annotations

import os
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
from cardvault.cli.common import AgentOption, CardvaultGroup, TextCommand, VaultOption

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
    vault: VaultOption = None,
    agent: AgentOption = None,
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


#: The panels of `cardvault --help`, in the order shown.
EVERYDAY, MAINTENANCE, INSPECT, TEAM, AGENTS = (
    "Everyday", "Maintenance", "Inspect", "Team & sync", "Agents & hosts",
)  # fmt: skip

app.command("init", rich_help_panel=EVERYDAY)(init.init)
app.command("new", rich_help_panel=EVERYDAY)(new.new)
app.command("log", cls=TextCommand, rich_help_panel=EVERYDAY)(log.log)
app.command("remember", cls=TextCommand, rich_help_panel=EVERYDAY)(log.remember)
app.command("search", cls=TextCommand, rich_help_panel=EVERYDAY)(search.search)
app.command("context", rich_help_panel=EVERYDAY)(context.context)
app.command("show", rich_help_panel=EVERYDAY)(show.show)
app.command("list", rich_help_panel=EVERYDAY)(list_command.list_cards)
app.command("capture", **capture.CAPTURE_COMMAND, rich_help_panel=EVERYDAY)(capture.capture)
app.command("maintain", rich_help_panel=MAINTENANCE)(maintain.maintain)
app.add_typer(review.review_app, name="review", rich_help_panel=MAINTENANCE)
app.command("check", rich_help_panel=MAINTENANCE)(check.check)
app.command("verify", rich_help_panel=MAINTENANCE)(verify.verify)
app.command("promote", rich_help_panel=MAINTENANCE)(maintain.promote)
app.command("demote", rich_help_panel=MAINTENANCE)(maintain.demote)
app.command("archive", rich_help_panel=MAINTENANCE)(maintain.archive)
app.command("rename", rich_help_panel=MAINTENANCE)(rename.rename)
app.command("forget", rich_help_panel=MAINTENANCE)(forget.forget)
app.command("index", rich_help_panel=MAINTENANCE)(search.index)
app.command("doctor", rich_help_panel=MAINTENANCE)(doctor.doctor)
app.command("stats", rich_help_panel=INSPECT)(stats.stats)
app.command("view", rich_help_panel=INSPECT)(view.view)
app.command("graph", rich_help_panel=INSPECT)(graph.graph)
app.command("history", rich_help_panel=INSPECT)(history.history)
app.command("diff", rich_help_panel=INSPECT)(history.diff)
app.command("sync", rich_help_panel=TEAM)(sync.sync)
app.command("scope", rich_help_panel=TEAM)(scope.scope)
app.command("trust", rich_help_panel=TEAM)(trust.trust)
app.command("export", rich_help_panel=TEAM)(export.export)
app.command("import", rich_help_panel=TEAM)(import_.import_)
app.command("install", rich_help_panel=AGENTS)(install.install)
app.command("mcp", rich_help_panel=AGENTS)(mcp.mcp)
app.command("hook", **hook.HOOK_COMMAND, rich_help_panel=AGENTS)(hook.hook)
app.command("serve", rich_help_panel=AGENTS)(serve.serve)
app.command("hot", cls=TextCommand, rich_help_panel=AGENTS)(agents.hot)
app.command("agents", rich_help_panel=AGENTS)(agents.agents)


def main() -> None:
    """Console-script entry point."""
    app()
