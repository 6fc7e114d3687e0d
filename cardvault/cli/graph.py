"""`cardvault graph`: the tag and link graph."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated

import typer

from cardvault.app.insight import Scope, graph_text
from cardvault.cli import render
from cardvault.cli.common import ArchivedOption, ScopeOption, print_each_json, session_of


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
    archived: ArchivedOption = False,
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
    found = session_of(ctx).graph(archived, scope)
    render.warnings(found.notices)
    for each in found.each:
        render.skipped(list(each.problems))
    if fmt is GraphFormat.json or json_out:
        print_each_json(found, scope)
        return
    marker = {GraphFormat.mermaid: "%%", GraphFormat.dot: "//"}.get(fmt, "#")
    for each in found.each:
        if len(found.each) > 1:
            sys.stdout.write(f"{marker} {each.name} vault\n")
        sys.stdout.write(graph_text(each.result, fmt.value))
