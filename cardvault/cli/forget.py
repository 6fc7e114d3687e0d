"""`cardvault forget`: remove a topic everywhere, in one revertible commit per vault."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cardvault.app.forgetting import ForgetScope
from cardvault.cli import render
from cardvault.cli.common import report_subject, session_of, waiting_note
from cardvault.errors import CardvaultError

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
    scope: Annotated[
        ForgetScope | None,
        typer.Option(
            "--scope",
            help="project (this vault), global (the global vault) or everywhere (this vault, "
            "the global vault and every registered project). Asked when the topic is also in "
            "the global vault; default project.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Remove a topic everywhere: its cards, the daily-log lines and entries that mention it, and
    its rules in AGENTS.md. Shows what would go and asks first; then one commit per vault (daily
    logs are rewritten, and the commit says so) that `git revert` undoes, and the search index
    drops it.

    QUERY is matched as a slug or alias first, then as words in card topics, slugs and tags,
    then as words in card bodies. The plan is always shown, and exactly what it names is
    removed (a file changed since is refused). A plan that had to widen to card text is carried
    out only after a yes at the prompt, or with --yes --match-text: a rerun after the topic's
    cards are gone must not quietly take cards that merely mention it.
    Example: cardvault forget nginx-upload-size-limit
    """
    session = session_of(ctx)
    found = session.forget_plan(query, scope, on_wait=waiting_note)
    if scope is None and not yes and found.global_too and (chosen := _ask()) != "project":
        asked = session.forget_plan(query, chosen, on_wait=waiting_note)
        found = replace(asked, resumed=asked.resumed or found.resumed)
    render.warnings(found.warnings)
    for name, _, plan in found.plans:
        if len(found.plans) > 1 or name != "project":
            render.err_console().print(f"[bold underline]{render.escape(name)}[/]")
        _show_forget_plan(plan)
    if found.plans and not yes:
        _confirm()
    done = session.forget(found, match_text or not yes, on_wait=waiting_note)
    if not done:
        render.success(f"nothing more matches {found.shown_query}")
    for name, vault, result in done:
        plan = result.plan
        where = "" if name == "project" else f" in {name}"
        render.success(
            f"forgot{where} {len(plan.cards)} card(s), {plan.log_lines} log line(s) in "
            f"{len(plan.logs)} log(s), {len(plan.rules)} rule(s)"
        )
        report_subject(result.commit)
        if result.commit.recorded:
            sha = result.commit.sha[:10] if result.commit.sha else ""
            render.note(f"undo with: git -C {vault.root} revert {sha}")
        if result.index_note:
            render.note(result.index_note)


def _ask() -> ForgetScope:
    """Where to forget a topic the global vault holds too."""
    import click

    choices = click.Choice([s.value for s in ForgetScope])
    asked = "The global vault has it too. Forget it in: project, global or everywhere?"
    ask = functools.partial(typer.prompt, asked, default="project", type=choices, err=True)
    return ForgetScope(_answer(ask, "pass --scope to say where"))


def _confirm() -> None:
    """Ask before removing; no answer (stdin closed or not a terminal) removes nothing."""
    ask = functools.partial(typer.confirm, "Remove all of this?", err=True)
    if not _answer(ask, "pass --yes to remove without asking"):
        raise CardvaultError("cancelled: nothing removed")


def _answer(ask: Callable[[], Any], instead: str) -> Any:
    """`ask()`'s answer; CardvaultError saying what to pass `instead` when there is none (EOF
    on stdin, or Ctrl-C)."""
    try:
        return ask()
    except typer.Abort as exc:
        render.err_console().print()  # end the prompt's line
        raise CardvaultError(f"no answer (stdin is closed): nothing removed; {instead}") from exc


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
            why = "  (made only of entries that go)" if card.rel in plan.made_of else ""
            topic = render.escape(redact_text(card.card.topic))
            out.print(f"  [red]-[/] {card.rel}  {topic}{why}")
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
    if plan.questions:
        out.print(f"[bold]memory/review.jsonl:[/] review question(s) {', '.join(plan.questions)}")
    if plan.record is not None:
        out.print(f"[bold]{plan.record.reason}[/] (sync keeps them forgotten on every clone)")
    if plan.mentions:
        out.print("[yellow]Still mentioned (not changed):[/] " + ", ".join(plan.mentions))
