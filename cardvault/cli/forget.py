"""`cardvault forget`: remove a topic everywhere, in one revertible commit per vault."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import report_subject, session_of, vault_of, waiting_note

if TYPE_CHECKING:
    from cardvault.forget.plan import ForgetPlan
    from cardvault.vault.layout import Vault


class ForgetScope(StrEnum):
    """Where `forget` removes a topic."""

    project = "project"
    global_ = "global"
    everywhere = "everywhere"


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
    from cardvault.errors import NotFoundError
    from cardvault.forget.plan import apply_forget, shown_query

    plans, resumed = _plans(ctx, query, scope, yes)
    if not plans and resumed:
        render.success(f"nothing more matches {shown_query(query)}")
        return
    if not plans:
        raise NotFoundError(f"nothing in the vault matches {shown_query(query)}")
    for name, _, plan in plans:
        if len(plans) > 1 or name != "project":
            render.err_console().print(f"[bold underline]{render.escape(name)}[/]")
        _show_forget_plan(plan)
    widened = sum(len(plan.cards) for _, _, plan in plans if plan.matched_by == "body")
    if not yes:
        _confirm()
    elif widened and not match_text:
        raise NotFoundError(
            f"no card's slug, topic or tags match {shown_query(query)}; the {widened} card(s) "
            "above only mention it in their text. Nothing removed: to remove them, run again "
            "with --yes --match-text (or without --yes, and answer the prompt)"
        )
    for name, vault, plan in plans:
        result = apply_forget(vault, plan, on_wait=waiting_note)
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


def _plans(
    ctx: typer.Context, query: str, scope: ForgetScope | None, yes: bool
) -> tuple[list[tuple[str, Vault, ForgetPlan]], bool]:
    """The non-empty plans of the vaults in scope (asking the scope when it matters), and
    whether an interrupted forget was finished first: a write a killed process left is
    finished before the plan is made (and says so), so the plan shown is of the vault as it
    is, never of half-written files."""
    from cardvault.edits.door import finish_interrupted
    from cardvault.errors import VaultNotFoundError
    from cardvault.forget.plan import plan_forget, resumed_forget
    from cardvault.scopes.home import global_vault

    home = global_vault()
    try:
        project: Vault | None = vault_of(ctx)
    except VaultNotFoundError:
        if home is None or scope is ForgetScope.project:
            raise
        project = None
    if project is not None and home is not None and project.root == home.root:
        project = None
    if scope is None:
        scope = _ask(query, home, yes) if project is not None else ForgetScope.global_
    vaults: list[tuple[str, Vault]] = []
    if project is not None and scope is not ForgetScope.global_:
        vaults.append(("project", project))
    if home is not None and scope is not ForgetScope.project:
        vaults.append(("global", home))
    if home is not None and scope is ForgetScope.everywhere:
        from cardvault.scopes.registry import open_projects

        found, notices = open_projects(home)
        for notice in notices:
            render.warning(notice)
        seen = {v.root for _, v in vaults}
        vaults += [(key, v) for key, v in found if v.root not in seen]
    recoveries = [finish_interrupted(vault, waiting_note) for _, vault in vaults]
    today = session_of(ctx).now().date()  # the record's name, as every write's date
    plans = [(name, vault, plan_forget(vault, query, today)) for name, vault in vaults]
    for _, _, plan in plans:
        for problem in plan.unreadable:
            render.warning(f"not searched (unreadable): {problem}")
    matching = [(name, vault, plan) for name, vault, plan in plans if not plan.empty]
    return matching, any(resumed_forget(recovery, query) for recovery in recoveries)


def _ask(query: str, home: Vault | None, yes: bool) -> ForgetScope:
    """The scope, asked when the global vault holds the topic too (project otherwise)."""
    import click

    from cardvault.errors import CardvaultError
    from cardvault.forget.plan import plan_forget

    if yes or home is None or plan_forget(home, query).empty:
        return ForgetScope.project
    try:
        answer = typer.prompt(
            "The global vault has it too. Forget it in: project, global or everywhere?",
            default="project",
            type=click.Choice([s.value for s in ForgetScope]),
            err=True,
        )
    except typer.Abort as exc:  # EOF on stdin, or Ctrl-C
        render.err_console().print()  # end the prompt's line
        raise CardvaultError(
            "no answer (stdin is closed): nothing removed; pass --scope to say where"
        ) from exc
    return ForgetScope(answer)


def _confirm() -> None:
    """Ask before removing; no answer (stdin closed or not a terminal) removes nothing."""
    from cardvault.errors import CardvaultError

    try:
        answer = typer.confirm("Remove all of this?", err=True)
    except typer.Abort as exc:  # EOF on stdin, or Ctrl-C
        render.err_console().print()  # end the prompt's line
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
