"""`cardvault scope`: where the global vault is, this project's context key, the projects."""

from __future__ import annotations

from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import JsonOption, report_registration, session_of


def scope(
    ctx: typer.Context,
    register: Annotated[
        bool, typer.Option("--register", help="Register this project with the global vault.")
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Show the global vault ($CARDVAULT_HOME, else the user data folder), this project's
    context key (its git remote's host/owner/repo, else its path) and the registered projects.
    """
    found = session_of(ctx).scope_info(register)
    render.warnings(found.notices)
    report_registration(found)
    if render.wants_json(json_out):
        render.print_json(found.to_dict())
        return
    made = "" if found.global_exists else " (not created yet)"
    render.console().print(f"global vault: {render.escape(str(found.global_root))}{made}")
    if found.project is not None:
        render.console().print(f"this project: {found.project} (key {found.key})")
    projects = sorted(found.projects.items())
    render.table(
        ["project", "paths"], [(k, ", ".join(p.paths)) for k, p in projects],
        title=f"{len(projects)} registered projects",
    )  # fmt: skip
