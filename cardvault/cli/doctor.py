"""`cardvault doctor`: check the install, the model, the caches, the hosts and the vault's git."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import JsonOption, session_of

if TYPE_CHECKING:
    from cardvault.doctor.checks import Check

MARKS = {"ok": "[green]✓[/]", "info": "[dim]·[/]", "warn": "[yellow]![/]", "error": "[red]✗[/]"}


def doctor(
    ctx: typer.Context,
    as_json: JsonOption = False,
    fix: Annotated[
        bool,
        typer.Option(
            "--fix", help="Also make the safe fix: this clone's git merge drivers (nothing else)."
        ),
    ] = False,
    no_model: Annotated[
        bool, typer.Option("--no-model", help="Find the model, but do not load it (faster).")
    ] = False,
) -> None:
    """Check that cardvault is set up right here, and say how to fix what is not.

    Checks: the install (version, where, its Python, whether the `cardvault` on PATH is this
    one), the model the vault's settings name (found, loads offline), the caches (.cardvault/
    and the model cache, with sizes), the global vault, the resident process (`serve`), each
    agent host's hooks and MCP server at user and project level (what `cardvault install`
    would change), this clone's git merge drivers, and the git identity commits use. Reads
    only; --fix configures the merge drivers in this clone's .git/config, the one fix safe to
    make unasked. Exit 1 when a check finds something broken (an error).
    """
    report = session_of(ctx).doctor(fix, model=not no_model)
    render.warnings(report.notices)
    if render.wants_json(as_json):
        checks = [check.to_json() for check in report.checks]
        render.print_json({"ok": report.ok, "fixed": report.fixed, "checks": checks})
    else:
        _show(report.checks, report.fixed)
    if not report.ok:
        raise typer.Exit(1)


def _show(checks: list[Check], fixed: list[str]) -> None:
    out = render.console()
    width = max(len(check.name) for check in checks)
    for check in checks:
        out.print(f"{MARKS[check.status]} {check.name:<{width}}  {render.escape(check.summary)}")
        if check.fix and check.status != "ok":
            label = "fix" if check.status in ("warn", "error") else "to set it up"
            out.print(f"  {'':<{width}}  [dim]{label}: {render.escape(check.fix)}[/]")
    for line in fixed:
        render.success(line)
