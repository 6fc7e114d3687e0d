"""`cardvault context`: the session-start pack."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.app.search import Scope
from cardvault.cli import render
from cardvault.cli.common import (
    AgentOption,
    ScopeOption,
    indexing,
    open_scope,
    session_of,
)

if TYPE_CHECKING:
    from cardvault.context.build import ContextPack


class PackFormat(StrEnum):
    """Output formats of `context`."""

    markdown = "markdown"
    json = "json"


def context(
    ctx: typer.Context,
    task: Annotated[
        str | None,
        typer.Option(
            "--task", "-t", help="What the session is about; ranks cards by relevance to it."
        ),
    ] = None,
    budget: Annotated[
        int | None,
        typer.Option(
            "--budget",
            "-b",
            min=1,
            help="Token budget (default: [context] token_budget, 2000).",
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[
        PackFormat,
        typer.Option(
            "--format",
            "-f",
            help="markdown (the pack itself) or json (the pack plus what is in and out).",
        ),
    ] = PackFormat.markdown,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain", help="Also say on stderr why each item is in or out, and its tier."
        ),
    ] = False,
    scope: ScopeOption = Scope.all,
    agent: AgentOption = None,
    archived: Annotated[
        bool, typer.Option("--archived", help="Also consider archived cards (the COLD tier).")
    ] = False,
    json_out: Annotated[
        bool, typer.Option("--json", help="The same as --format json: the pack as JSON.")
    ] = False,
) -> None:
    """Print the memory to load at session start: MEMORY.md, learned rules, the best cards.

    Never more than the token budget (cardvault's token rule); what did not fit is named at the
    end. With --task, cards are ranked by a hybrid search for the task mixed with their value
    (seen × impact × recency); without, by value alone. By default (--scope all) the project's
    memory comes first, then the global vault's rules and the global cards the task matches.
    With --agent (or $CARDVAULT_AGENT) that agent's hot memory is loaded too. Read-only.
    Example: cardvault context --task "fix the Cortex login script" --budget 1500
    """
    in_scope = open_scope(ctx, scope, agent)
    session = session_of(ctx, agent)
    pack = session.context(task, budget, in_scope, archived, indexing=indexing(ctx))
    render.warnings(pack.notices)
    vaults = in_scope.vaults if task else ()
    if vaults:  # a ranked pack loaded the model: warm by default
        session_of(ctx).start_resident(vaults[0].vault)  # not an agent's copy: it is served
    if fmt is PackFormat.json or json_out:
        render.print_json(pack.to_dict())
    else:
        render.plain_text(pack.text)
        sys.stdout.flush()
    if explain:
        _explain(pack)


def _explain(pack: ContextPack) -> None:
    """Why each item is in or out, on stderr (stdout stays the pack)."""
    task = f' · task "{pack.task}"' if pack.task else " · no task: most valuable first"
    lines = [f"context: {pack.tokens} of {pack.budget} tokens · ranking: {pack.ranking}{task}"]
    for decision in pack.decisions:
        item = decision.item
        mark = "IN " if decision.included else "OUT"
        lines.append(
            f"  {mark} {item.kind:<6} {item.name:<36} {item.tier:<4} {decision.reason} · "
            f"{item.vault} · {item.why}"
        )
    if pack.not_considered:
        lines.append(f"  ... {pack.not_considered} lower-ranked cards not considered")
    listed = len(pack.listed)
    if listed < len(pack.omitted):
        lines.append(f"  'Not included' names {listed} of the {len(pack.omitted)} left out")
    typer.echo("\n".join(lines), err=True)
