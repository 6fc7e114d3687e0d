"""`cardvault stats`: what the vault holds, against its budgets."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from cardvault.app.insight import Scope
from cardvault.cli import render
from cardvault.cli.common import JsonOption, ScopeOption, print_each_json, session_of

if TYPE_CHECKING:
    from cardvault.insight.stats import VaultStats

TOP_TAGS = 15


TOP_CARDS = 5


def stats(
    ctx: typer.Context,
    json_out: JsonOption = False,
    scope: ScopeOption = Scope.project,
) -> None:
    """Show what the vault holds: cards by category and status, tags, tokens against budgets,
    MEMORY.md size, daily logs and undistilled entries, promotions, archived cards, memory
    decisions pending review, the last maintenance run, whether the search index is current,
    and each tier (HOT, WARM, COLD) against its limit. --scope all shows the project and the
    global vault one after the other (JSON: a list, each with "vault")."""
    found = session_of(ctx).stats(scope)
    render.warnings(found.notices)
    if render.wants_json(json_out):
        print_each_json(found, scope)
        return
    for each in found.each:
        if len(found.each) > 1 or each.name != "project":
            header = f"[bold underline]{each.name} vault[/] {render.escape(str(each.root))}"
            render.console().print(header)
        render.skipped(list(each.problems))
        _dashboard(each.result)


def _dashboard(s: VaultStats) -> None:
    out = render.console()
    out.print(
        f"[bold]{s.cards} cards[/], {s.archived} archived, {s.promoted} promoted, "
        f"{s.rules} rules in AGENTS.md"
    )
    out.print("Status: " + _counts(s.by_status))
    render.table(["category", "cards"], s.by_category.items(), title="Cards by category")
    tags = list(s.tags.items())
    shown = f"top {TOP_TAGS}: " if len(tags) > TOP_TAGS else ""
    out.print(f"Tags: {len(tags)} distinct; {shown}{_counts(dict(tags[:TOP_TAGS]))}")
    average = s.total_tokens // s.cards if s.cards else 0
    out.print(
        f"Tokens: {s.total_tokens} in all, {average} per card on average, budget "
        f"{s.card_token_budget} per card; {_flag(len(s.over_budget), 'over budget')}"
    )
    render.table(
        ["card", "tokens", "of budget"],
        [
            (c.slug, c.tokens, _ratio(c.tokens, s.card_token_budget))
            for c in s.card_sizes[:TOP_CARDS]
        ],
        title="Largest cards",
    )
    if s.memory_md_bytes is None:
        out.print("MEMORY.md: [yellow]missing[/]")
    else:
        out.print(
            f"MEMORY.md: {s.memory_md_bytes} of {s.memory_byte_budget} bytes "
            f"({_ratio(s.memory_md_bytes, s.memory_byte_budget)})"
        )
    logs = s.logs
    span = f", {logs.first_day} to {logs.last_day}" if logs.first_day else ""
    out.print(
        f"Daily logs: {logs.days} days{span}, {logs.entries} entries, "
        f"{logs.signal_entries} with a lesson signal, {_flag(len(logs.undistilled), 'undistilled')}"
    )
    if s.review_pending:
        decisions = render.counted(s.review_pending, "memory decision")
        out.print(f"Review: [yellow]{decisions} pending[/] (cardvault review)")
    else:
        out.print("Review: [green]no memory decisions pending[/]")
    _maintenance_and_index(s)
    if s.unread_notice:
        out.print(f"Languages: [yellow]{render.escape(s.unread_notice)}[/]")
    _tiers(s)


def _tiers(s: VaultStats) -> None:
    rows = []
    for part in s.tiers:
        if part.tier == "HOT":
            limit = f"{part.limit} {part.unit}"
            state = _ratio(part.size, part.limit) if part.limit else ""
        elif part.tier == "WARM":
            limit = f"{part.limit} per card"
            state = f"{part.over_items} over" if part.over_items else "ok"
        else:
            limit, state = "none (on request)", ""
        rows.append((part.tier, part.part, f"{part.size} {part.unit}", limit, state))
    render.table(["tier", "part", "size", "limit", "use"], rows, title="Tiers")


def _maintenance_and_index(s: VaultStats) -> None:
    out = render.console()
    run = s.last_maintenance
    out.print(
        f"Last maintenance: {run.date} {run.sha[:10]} {render.escape(run.subject)}"
        if run
        else "Last maintenance: [yellow]never[/]"
    )
    index = s.index
    if not index.exists:
        state = "[yellow]not built[/] (`cardvault index` builds it)"
    elif index.problem:
        state = f"[yellow]{render.escape(index.problem)}[/] (the next search rebuilds it)"
    elif index.fresh:
        state = f"[green]up to date[/] ({index.indexed} files)"
    else:
        state = (
            f"[yellow]{index.behind} file(s) behind[/]: {index.added} new, {index.changed} "
            f"changed, {index.removed} deleted (the next search catches up)"
        )
    if index.unembedded:
        state += f"; {index.unembedded} text(s) not embedded yet"
    out.print(f"Search index: {state}")


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{render.escape(name)} {count}" for name, count in counts.items()) or "none"


def _ratio(used: int, budget: int) -> str:
    text = f"{100 * used // budget}%"
    return f"{text} OVER" if used > budget else text


def _flag(count: int, what: str) -> str:
    return f"[yellow]{count} {what}[/]" if count else f"[green]0 {what}[/]"
