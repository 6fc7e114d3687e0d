"""`cardvault graph`: the tag and link graph."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import ScopeOption, scope_of
from cardvault.scopes.scope import Scope

if TYPE_CHECKING:
    pass


class GraphFormat(StrEnum):
    """Output formats of `cardvault graph`."""

    tree = "tree"
    mermaid = "mermaid"
    dot = "dot"
    json = "json"


def graph(
    ctx: typer.Context,
    fmt: Annotated[
        GraphFormat, typer.Option("--format", "-f", help="tree, mermaid, dot or json.")
    ] = GraphFormat.tree,
    archived: Annotated[bool, typer.Option("--archived", help="Include memory/archive/.")] = False,
    scope: ScopeOption = Scope.project,
    json_out: Annotated[
        bool, typer.Option("--json", help="The same as --format json: the graph as JSON.")
    ] = False,
) -> None:
    """Show the vault's graph: categories → tags with counts, [[links]] between cards (aliases
    resolved), cards sharing tags, hub cards (most connected) and orphans (no link, no shared tag).

    Each vault in --scope is its own graph (links never cross vaults); with --scope all they are
    printed one after the other (JSON: a list, each with "vault").
    Example: cardvault graph --format mermaid > vault.mmd
    """
    from cardvault.insight.graph import vault_graph
    from cardvault.insight.graph_render import render_dot, render_mermaid, render_tree

    graphs = []
    for scoped in scope_of(ctx, scope).vaults:
        result, problems = vault_graph(scoped.vault, archived)
        render.skipped(list(problems))
        graphs.append((scoped.name, result))
    if fmt is GraphFormat.json or json_out:
        data = [{**result.to_dict(), "vault": name} for name, result in graphs]
        render.print_json(data if scope is Scope.all else (data[0] if data else {}))
        return
    renderer = {
        GraphFormat.tree: render_tree,
        GraphFormat.mermaid: render_mermaid,
        GraphFormat.dot: render_dot,
    }[fmt]
    for name, result in graphs:
        if len(graphs) > 1:
            marker = (
                "%%" if fmt is GraphFormat.mermaid else ("//" if fmt is GraphFormat.dot else "#")
            )
            sys.stdout.write(f"{marker} {name} vault\n")
        sys.stdout.write(renderer(result))
