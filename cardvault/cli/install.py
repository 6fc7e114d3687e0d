"""`cardvault install HOST`: register the MCP server and the hooks with an agent host."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import vault_of

if TYPE_CHECKING:
    from cardvault.hosts.install import InstallPlan

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
    from cardvault.hosts.install import plan, project_folder, project_vault

    folder = project_folder() if project else None
    vault = None
    if folder is not None and not uninstall:
        project_vault(folder)
    elif folder is None and not uninstall:
        vault = _pinned_vault(ctx)
    planned = plan(host.value, folder, vault, uninstall)
    if not planned.changed:
        done = "not installed" if uninstall else "already installed"
        render.success(f"cardvault is {done} in {_where(planned)}: nothing to change")
        return
    from cardvault.hosts.apply import apply_changes, unified_diff

    for change in planned.changed:
        render.diff(unified_diff(change, planned.shown(change.path)))
    if dry_run:
        render.note("dry run: nothing written")
        return
    if not yes and not _confirmed():
        raise typer.Exit(1)
    apply_changes(list(planned.changes))
    _report(planned)


def _pinned_vault(ctx: typer.Context) -> Path:
    """The vault user-level files pin (they serve every project on this machine)."""
    from cardvault.errors import VaultNotFoundError

    try:
        return vault_of(ctx).root.resolve()
    except VaultNotFoundError as exc:
        raise VaultNotFoundError(
            f"{exc.message}. User-level hooks use one vault from every project: run this inside "
            "it or pass --vault PATH; or use --project in a project that holds its vault"
        ) from exc


def _confirmed() -> bool:
    """Ask in a terminal; refuse (nothing written) when stdin is not one."""
    if not sys.stdin.isatty():
        render.error("nothing written: confirm with --yes (stdin is not a terminal)")
        return False
    if typer.confirm("Write these changes?", default=False, err=True):
        return True
    render.note("nothing written")
    return False


def _where(planned: InstallPlan) -> str:
    from cardvault.hosts.hosts import HOSTS

    label = HOSTS[planned.host].label
    level = f"the project {planned.project}" if planned.project else "your user-level files"
    return f"{label} ({level})"


def _report(planned: InstallPlan) -> None:
    files = ", ".join(planned.shown(change.path) for change in planned.changed)
    if planned.uninstall:
        render.success(f"removed cardvault from {_where(planned)}: {files}")
        return
    render.success(f"installed cardvault in {_where(planned)}: {files}")
    render.note(f"next: {NEXT_STEP[planned.host]}")
    if planned.project is not None:
        render.note(
            "commit these files to share them; teammates need `cardvault` on their PATH "
            '(docs/agents.md, "cardvault install")'
        )
