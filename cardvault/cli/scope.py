"""`cardvault scope`: where the global vault is, this project's context key, the projects."""

from __future__ import annotations

from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import JsonOption, register_project, vault_of


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
    from cardvault.errors import VaultNotFoundError
    from cardvault.scopes.home import global_root, global_vault
    from cardvault.scopes.key import context_key
    from cardvault.scopes.registry import read_projects

    try:
        project = vault_of(ctx)
    except VaultNotFoundError:
        project = None
    if register:
        if project is None:
            raise VaultNotFoundError("no project vault here to register")
        register_project(ctx, project)
    home = global_vault()
    projects = read_projects(home) if home else {}
    data = {
        "global": str(global_root()),
        "global_exists": home is not None,
        "project": str(project.root) if project else None,
        "key": context_key(project.root) if project else None,
        "projects": {key: list(p.paths) for key, p in projects.items()},
    }
    if render.wants_json(json_out):
        render.print_json(data)
        return
    made = "" if home else " (not created yet)"
    render.console().print(f"global vault: {render.escape(str(data['global']))}{made}")
    if project is not None:
        render.console().print(f"this project: {project.root} (key {data['key']})")
    render.table(
        ["project", "paths"], [(k, ", ".join(p.paths)) for k, p in sorted(projects.items())],
        title=f"{len(projects)} registered projects",
    )  # fmt: skip
