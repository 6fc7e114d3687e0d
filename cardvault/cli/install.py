"""`cardvault install HOST`: register the MCP server and the hooks with an agent host."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import session_of

if TYPE_CHECKING:
    from cardvault.app.services import Installed

#: What to do next in each host once its files are written.
NEXT_STEP = {
    "claude-code": "start a new Claude Code session (or run /hooks and /mcp to check them)",
    "codex": "in Codex, review and trust the new hooks (/hooks); a project's .codex/ is read "
    "only when the project is trusted",
    "cursor": "restart Cursor (or reload MCP servers in its settings) to load them",
}


class HostName(StrEnum):
    """The agent hosts `install` knows."""

    claude_code = "claude-code"
    codex = "codex"
    cursor = "cursor"


def install(
    ctx: typer.Context,
    host: Annotated[
        HostName,
        typer.Argument(metavar="HOST", help="The agent host: claude-code, codex or cursor."),
    ],
    project: Annotated[
        bool,
        typer.Option(
            "--project",
            help="Write the project's files (shared in git: no path of this machine) instead "
            "of your user-level ones.",
        ),
    ] = False,
    uninstall: Annotated[
        bool, typer.Option("--uninstall", help="Take cardvault's entries out again.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the diff; write nothing.")
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Write without asking.")] = False,
) -> None:
    """Register cardvault with an agent host: its MCP server and three hooks.

    Hooks: at session start the context pack is loaded (`cardvault hook session-start`);
    before a compaction and when the agent stops, the Lesson:/Fix:/... lines it wrote since
    the last capture are logged (`cardvault hook pre-compact`, `stop`). User level (default):
    the host's files in your home folder, naming this cardvault and this vault by absolute
    path. --project: the project's files (.mcp.json, .claude/settings.json, .codex/...,
    .cursor/...), naming bare `cardvault` and finding the vault from the project folder.
    Shows a unified diff of each file first and asks (in a terminal; --yes skips the
    question; piped without --yes nothing is written, exit 1). Other servers, hooks and
    settings are kept as they are; a second install changes nothing; --uninstall restores
    the files.
    """

    def ask(diffs: tuple[str, ...]) -> bool:
        for text in diffs:
            render.diff(text)
        return not dry_run and (yes or _confirmed())

    installed = session_of(ctx).install(host.value, project, uninstall, ask)
    if not installed.plan.changed:
        done = "not installed" if uninstall else "already installed"
        render.success(f"cardvault is {done} in {_where(installed)}: nothing to change")
    elif dry_run:
        render.note("dry run: nothing written")
    elif not installed.written:
        raise typer.Exit(1)
    else:
        _report(installed)


def _confirmed() -> bool:
    """Ask in a terminal; refuse (nothing written) when stdin is not one."""
    if not sys.stdin.isatty():
        render.error("nothing written: confirm with --yes (stdin is not a terminal)")
        return False
    if typer.confirm("Write these changes?", default=False, err=True):
        return True
    render.note("nothing written")
    return False


def _where(installed: Installed) -> str:
    planned = installed.plan
    level = f"the project {planned.project}" if planned.project else "your user-level files"
    return f"{installed.label} ({level})"


def _report(installed: Installed) -> None:
    planned = installed.plan
    if planned.uninstall:
        render.success(f"removed cardvault from {_where(installed)}: {installed.files}")
        return
    render.success(f"installed cardvault in {_where(installed)}: {installed.files}")
    render.note(f"next: {NEXT_STEP[planned.host]}")
    if planned.project is not None:
        render.note(
            "commit these files to share them; teammates need `cardvault` on their PATH "
            '(docs/agents.md, "cardvault install")'
        )
