"""`cardvault forget`: remove a topic everywhere, in one revertible commit."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import report_subject, vault_of

if TYPE_CHECKING:
    from cardvault.forget.plan import ForgetPlan


def forget(
    ctx: typer.Context,
    query: Annotated[
        str, typer.Argument(help="A card's slug or alias, or words naming the topic.")
    ],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask before removing.")] = False,
    match_text: Annotated[
        bool,
        typer.Option(
            "--match-text",
            help="With --yes, also remove cards that only mention QUERY in their text (when no "
            "card's slug, topic or tags match, the plan widens to card text).",
        ),
    ] = False,
) -> None:
    """Remove a topic everywhere: its cards, the daily-log lines and entries that mention it, and
    its rules in AGENTS.md. Shows what would go and asks first; then one commit (daily logs are
    rewritten, and the commit says so) that `git revert` undoes, and the search index drops it.

    QUERY is matched as a slug or alias first, then as words in card topics, slugs and tags,
    then as words in card bodies. The plan is always shown, and exactly what it names is
    removed (a file changed since is refused). A plan that had to widen to card text is carried
    out only after a yes at the prompt, or with --yes --match-text: a rerun after the topic's
    cards are gone must not quietly take cards that merely mention it.
    Example: cardvault forget nginx-upload-size-limit
    """
    from cardvault.errors import NotFoundError
    from cardvault.forget.plan import apply_forget, plan_forget

    vault = vault_of(ctx)
    plan = plan_forget(vault, query)
    for problem in plan.unreadable:
        render.warning(f"not searched (unreadable): {problem}")
    if plan.empty:
        raise NotFoundError(f"nothing in the vault matches {plan.shown_query}")
    _show_forget_plan(plan)
    if not yes:
        _confirm()
    elif plan.matched_by == "body" and not match_text:
        raise NotFoundError(
            f"no card's slug, topic or tags match {plan.shown_query}; the {len(plan.cards)} "
            "card(s) above only mention it in their text. Nothing removed: to remove them, run "
            "again with --yes --match-text (or without --yes, and answer the prompt)"
        )
    result = apply_forget(vault, plan)
    render.success(
        f"forgot {len(plan.cards)} card(s), {plan.log_lines} log line(s) in {len(plan.logs)} "
        f"log(s), {len(plan.rules)} rule(s)"
    )
    report_subject(result.commit)
    if result.commit.recorded:
        render.note(f"undo with: git revert {result.commit.sha[:10] if result.commit.sha else ''}")
    if result.index_note:
        render.note(result.index_note)


def _confirm() -> None:
    """Ask before removing; no answer (stdin closed or not a terminal) removes nothing."""
    import click

    from cardvault.errors import CardvaultError

    try:
        answer = typer.confirm("Remove all of this?", err=True)
    except click.exceptions.Abort as exc:  # EOF on stdin, or Ctrl-C
        raise CardvaultError(
            "no answer (stdin is closed): nothing removed; pass --yes to remove without asking"
        ) from exc
    if not answer:
        raise CardvaultError("cancelled: nothing removed")


def _show_forget_plan(plan: ForgetPlan) -> None:
    """The plan on stderr; quoted text is redacted (the query may be a leaked key, and the
    lines that go are shown to an agent's transcript)."""
    from cardvault.guard import redact_text

    out = render.err_console()
    how = {
        "slug": "slug or alias",
        "topic": "topic, slug or tags",
        "body": "card text only: no card's slug, topic or tags match",
    }
    if plan.cards:
        out.print(f"[bold]Cards[/] (matched by {how.get(plan.matched_by, plan.matched_by)}):")
        for card in plan.cards:
            out.print(f"  [red]-[/] {card.rel}  {render.escape(redact_text(card.card.topic))}")
    for cut in plan.logs:
        whole = f" (entries {', '.join(cut.entries)} whole)" if cut.entries else ""
        gone = " (the whole file)" if cut.new_text is None else whole
        out.print(f"[bold]{cut.rel}[/]{gone}:")
        for number, line in cut.removed_lines():
            out.print(f"  [red]{number:>4}[/] {render.escape(redact_text(line))}")
    for rule in plan.rules:
        out.print(f"[bold]AGENTS.md rule:[/] {render.escape(redact_text(rule))}")
    if plan.memory is not None:
        out.print("[bold]MEMORY.md:[/] categories table regenerated without these cards")
    if plan.mentions:
        out.print("[yellow]Still mentioned (not changed):[/] " + ", ".join(plan.mentions))
