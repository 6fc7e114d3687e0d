"""`cardvault graph`: the tag and link graph."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import vault_of

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
) -> None:
    """Show the vault's graph: categories → tags with counts, [[links]] between cards (aliases
    resolved), cards sharing tags, hub cards (most connected) and orphans (no link, no shared tag).

    Example: cardvault graph --format mermaid > vault.mmd
    """
    from cardvault.insight.graph import vault_graph
    from cardvault.insight.graph_render import render_dot, render_mermaid, render_tree

    result, problems = vault_graph(vault_of(ctx), archived)
    for problem in problems:
        render.warning(f"skipped {problem}")
    if fmt is GraphFormat.json:
        render.print_json(result.to_dict())
        return
    renderer = {
        GraphFormat.tree: render_tree,
        GraphFormat.mermaid: render_mermaid,
        GraphFormat.dot: render_dot,
    }[fmt]
    sys.stdout.write(renderer(result))
