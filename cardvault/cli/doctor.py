"""`cardvault doctor`: check the install, the model, the caches, the hosts and the vault's git."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import JsonOption, vault_of

if TYPE_CHECKING:
    from cardvault.doctor.checks import Check
    from cardvault.vault.layout import Vault

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
    from cardvault.doctor.checks import Check
    from cardvault.doctor.run import broken, fix_safe, run_checks
    from cardvault.errors import CardvaultError, VaultNotFoundError

    vault, opened = None, None
    try:
        vault = vault_of(ctx)
    except VaultNotFoundError:
        pass
    except CardvaultError as exc:  # found, but it does not open: that is the finding
        opened = Check("vault", "error", str(exc), "fix the file and line named")
    checks = run_checks(vault, _project(vault), not no_model, opened)
    fixed = fix_safe(vault, checks) if fix else []
    if fixed:
        checks = run_checks(vault, _project(vault), not no_model, opened)
    if render.wants_json(as_json):
        data = {"ok": not broken(checks), "fixed": fixed, "checks": [c.to_json() for c in checks]}
        render.print_json(data)
    else:
        _show(checks, fixed)
    if broken(checks):
        raise typer.Exit(1)


def _project(vault: Vault | None) -> Path | None:
    """The project folder when the vault is found from it (its project-level files count)."""
    from cardvault.errors import VaultNotFoundError
    from cardvault.hosts.install import project_folder, project_vault

    if vault is None:
        return None
    folder = project_folder()
    try:
        found = project_vault(folder)
    except VaultNotFoundError:
        return None
    return folder if found == vault.root.resolve() else None


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
