"""`cardvault maintain` and the by-hand steps: `promote`, `demote`, `archive`."""

from __future__ import annotations

import datetime as dt
import functools
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import (
    AgentOption,
    opened,
    reading,
    report_commit,
    report_registration,
    report_subject,
    session_of,
    waiting_note,
)
from cardvault.errors import CardvaultError

if TYPE_CHECKING:
    from cardvault.maintain.by_hand import HandResult
    from cardvault.maintain.plan import Plan
    from cardvault.maintain.run import RunResult


def maintain(
    ctx: typer.Context,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", "-n", help="Print the plan and the diff; write nothing.")
    ] = False,
    review: Annotated[
        bool,
        typer.Option(
            "--review", help="Commit on a new branch; leave this branch and files as they are."
        ),
    ] = False,
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only",
            help="Steps to run, comma-separated: distill,merge,verify,promote,uses,archive,index.",
        ),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option("--since", help="Distill only log entries from this date (YYYY-MM-DD) on."),
    ] = None,
    commit_pending: Annotated[
        bool,
        typer.Option("--commit-pending", help="Commit uncommitted edits first, as 'hand edits'."),
    ] = False,
    json_out: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print the outcome as JSON (also when piped; a piped --dry-run prints its diff).",
        ),
    ] = False,
    across: Annotated[
        bool,
        typer.Option(
            "--global",
            help="Look across the registered projects instead: a lesson found in several "
            "becomes a global card and rule in the global vault.",
        ),
    ] = False,
    agent: AgentOption = None,
) -> None:
    """The maintenance pass: distill new log lessons into cards, merge duplicate cards, promote
    recurring lessons (or lessons several agents learned) to AGENTS.md, fold the uses this
    clone recorded (cards read by context, MCP read, an agent's show) into `uses`/`last_used`,
    mark cards the project no longer bears out as stale (as `cardvault verify`; a mark goes once
    the card no longer names what it cites), archive cards neither updated nor used for [archive]
    days, regenerate MEMORY.md's table.

    One git commit records the run (nothing is committed when nothing changed). Refuses to run on
    uncommitted edits unless --commit-pending. The project registers with the global vault.
    With --global: cross-project promotion in the global vault (docs/scopes.md).
    Example: cardvault maintain --dry-run
    """
    if across:
        _maintain_global(ctx, agent, dry_run, render.wants_json(json_out))
        return
    session = session_of(ctx, agent)
    opened(session.project())
    run = functools.partial(
        session.maintain, dry_run=dry_run, review=review, only=only, since=_date(since),
        commit_pending=commit_pending, on_wait=waiting_note,
    )  # fmt: skip
    # piped, a dry run's output is its diff (a patch to read or apply), the rest on stderr
    as_patch = dry_run and not json_out and render.wants_json(False)
    as_json = render.wants_json(json_out) and not as_patch
    if as_json or as_patch:
        done = run()
    else:
        with render.IndexProgress() as progress:
            done = run(progress=progress)
    report_registration(done)
    result, judged = done.run, done.judged
    if as_json:
        render.warnings(result.notices)
        if result.commit is not None and result.commit.note:  # files git ignores, say
            render.warning(result.commit.note)
        render.print_json(done.to_json())
        return
    if as_patch:
        _show_patch(result)
    else:
        _show(result, dry_run)
    render.warnings(done.set_aside)
    if judged is not None:
        render.warnings(judged.messages)
        for item in judged.settled:
            render.success(f"judge: {item.id} {item.status} ({item.reason or 'no reason given'})")
    pending = done.pending
    if dry_run:  # its questions are not in the queue: say what a real run would ask
        asked = len(result.asked)
        pending -= asked
        if asked:
            render.warning(
                f"a real run would ask {render.counted(asked, 'question')}: "
                "`cardvault maintain`, then `cardvault review`"
            )
    if pending:
        render.warning(f"{render.counted(pending, 'memory decision')} pending: cardvault review")


def _maintain_global(ctx: typer.Context, agent: str | None, dry_run: bool, as_json: bool) -> None:
    session = session_of(ctx, agent)
    done = session.maintain_global(dry_run)
    opened(session.vault_for(to_global=True))
    report_registration(done)
    result = done.result
    plan = result.plan
    if as_json:
        render.print_json(
            {"dry_run": dry_run, "projects": list(plan.projects), "promoted": plan.promoted,
             "changes": plan.lines, "notices": list(plan.notices),
             "review": list(plan.questions),
             "commit": result.commit.sha if result.commit else None}
        )  # fmt: skip
        return
    render.warnings(plan.notices)
    render.note(f"read {len(plan.projects)} project(s): {', '.join(plan.projects) or 'none'}")
    for line in plan.lines:
        render.console().print(f"  {render.escape(line)}")
    for question in plan.questions:
        render.warning(f"review: {question}")
    if plan.questions:
        render.note("answer with `cardvault review --global accept|reject ID`")
    if dry_run:
        render.note("dry run: nothing was written")
    elif result.commit is None:
        render.success("nothing to do: the global vault is up to date")
    else:
        report_commit(result.commit)


def _date(text: str | None) -> dt.date | None:
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise CardvaultError(f"--since needs a date as YYYY-MM-DD, got {text!r}") from exc


def _show(result: RunResult, dry_run: bool) -> None:
    plan = result.plan
    render.warnings((*plan.before.problems, *result.notices))
    report_commit(result.pending)
    report_subject(result.ids)
    rows = result.step_rows()
    render.table(("step", "actions", "files", "reported"), rows, title="maintenance")
    for line in result.reasons:
        render.console().print(f"  {render.escape(line)}")
    for report in plan.reports:
        render.warning(f"{report.kind}: {report.message}")
        for text in report.texts:
            render.console().print(f"    [dim]│[/] {render.escape(text)}")
    if dry_run:
        _show_dry_run(plan)
    elif plan.empty:
        render.success("nothing to do: the vault is already maintained")
    elif result.branch:
        _show_review(result)
    else:
        report_commit(result.commit)


def _show_dry_run(plan: Plan) -> None:
    if plan.empty:
        render.success("dry run: nothing to do")
        return
    render.plain_text("\n" + plan.diff())
    render.note("dry run: nothing was written; the commit message would be:")
    render.note(plan.commit_message().rstrip())


def _show_patch(result: RunResult) -> None:
    """A dry run piped: the unified diff alone on stdout (empty when there is nothing to do),
    what the run would do and why on stderr."""
    plan = result.plan
    render.warnings((*plan.before.problems, *result.notices))
    render.notes(result.reasons)
    for report in plan.reports:
        render.warning(f"{report.kind}: {report.message}")
    render.diff(plan.diff())
    render.note("dry run: nothing was written" if not plan.empty else "dry run: nothing to do")


def _show_review(result: RunResult) -> None:
    assert result.commit is not None and result.branch is not None
    sha = (result.commit.sha or "")[:10]
    render.success(f"committed {sha} on branch {result.branch}; your files are unchanged")
    render.console().print(f"  look at it:  git show {result.branch}")
    render.console().print(f"  take it:     git merge {result.branch}")
    render.console().print(f"  drop it:     git branch -D {result.branch}")


def promote(
    ctx: typer.Context,
    slug: Annotated[str, typer.Argument(help="The card's slug (or an alias).")],
    rule: Annotated[
        str | None,
        typer.Option(
            "--rule", help="The one-line rule (default: the card's `rule`, else its lesson)."
        ),
    ] = None,
) -> None:
    """Promote a card by hand: its rule goes into AGENTS.md's learned rules; one commit."""
    _hand_result(reading(ctx).promote(slug, rule))


def demote(
    ctx: typer.Context,
    slug: Annotated[str, typer.Argument(help="The promoted card's slug (or an alias).")],
) -> None:
    """Take a card's rule back out of AGENTS.md (it is not promoted again automatically)."""
    _hand_result(reading(ctx).demote(slug))


def archive(
    ctx: typer.Context,
    slug: Annotated[str, typer.Argument(help="The card's slug (or an alias).")],
) -> None:
    """Move a card to memory/archive/ now (kept, searchable with --archived); one commit."""
    _hand_result(reading(ctx).archive(slug))


def _hand_result(result: HandResult) -> None:
    for report in result.reports:
        render.warning(report.message)
    render.notes(result.notes)
    if result.commit is None:
        render.success("nothing to change")
        return
    for line in result.reasons:
        render.success(line)
    report_commit(result.commit)
