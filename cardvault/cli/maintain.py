"""`cardvault maintain` and the by-hand steps: `promote`, `demote`, `archive`."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cardvault.cli import render
from cardvault.cli.common import (
    AgentOption,
    now,
    opened,
    register_project,
    report_commit,
    report_notes,
    report_registration,
    report_subject,
    session_of,
    vault_of,
    waiting_note,
)

if TYPE_CHECKING:
    from cardvault.maintain.run import RunResult
    from cardvault.review.judge import JudgeOutcome


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
    from cardvault.maintain.run import RunOptions

    if across:
        _maintain_global(ctx, agent, dry_run, render.wants_json(json_out))
        return
    session = session_of(ctx, agent)
    vault = opened(session.project())
    options = RunOptions(
        session.now(), tuple(only) if only else None, _date(since), dry_run, review,
        commit_pending,
    )  # fmt: skip
    # piped, a dry run's output is its diff (a patch to read or apply), the rest on stderr
    as_patch = dry_run and not json_out and render.wants_json(False)
    as_json = render.wants_json(json_out) and not as_patch
    if as_json or as_patch:
        done = session.maintain(options, on_wait=waiting_note)
    else:
        with render.IndexProgress() as progress:
            done = session.maintain(options, progress, on_wait=waiting_note)
    report_registration(done.registered, done.unregistered)
    result, judged = done.run, done.judged
    set_aside = _set_aside_judge(vault, result)
    if as_json:
        for notice in result.notices:
            render.warning(notice)
        if result.commit is not None and result.commit.note:  # files git ignores, say
            render.warning(result.commit.note)
        data = result_json(result, dry_run)
        if judged is not None:
            data["judge"] = _judged_json(judged)
            data["review_pending"] = judged.pending
        if set_aside:
            data["ignored"] = [
                item.to_json() for item in vault.ignored if item.setting.key == "maintain.judge"
            ]
        render.print_json(data)
        return
    if as_patch:
        _show_patch(result)
    else:
        _show(result, dry_run)
    for note in set_aside:
        render.warning(note)
    pending = result.review_pending
    if judged is not None:
        for line in judged.messages:
            render.warning(line)
        for item in judged.settled:
            render.success(f"judge: {item.id} {item.status} ({item.reason or 'no reason given'})")
        pending = judged.pending
    if dry_run:  # its questions are not in the queue: say what a real run would ask
        asked = len(result.asked)
        pending -= asked
        if asked:
            render.warning(
                f"a real run would ask {asked} question{'s' if asked != 1 else ''}: "
                "`cardvault maintain`, then `cardvault review`"
            )
    if pending:
        render.warning(
            f"{pending} memory decision{'s' if pending != 1 else ''} pending: cardvault review"
        )


def _set_aside_judge(vault: Any, result: RunResult) -> list[str]:
    """The note on the vault's own judge, set aside until approved, when it had questions."""
    if vault.config.judge or not result.review_pending:
        return []
    return list(vault.ignored_notes("maintain.judge"))


def _judged_json(judged: JudgeOutcome) -> dict[str, Any]:
    done = judged.result
    return {
        "settled": [item.to_json() for item in judged.settled],
        "messages": list(judged.messages),
        "commit": done.commit.sha if done and done.commit else None,
    }


def _maintain_global(ctx: typer.Context, agent: str | None, dry_run: bool, as_json: bool) -> None:
    import contextlib

    from cardvault.errors import VaultNotFoundError

    with contextlib.suppress(VaultNotFoundError):  # run inside a project, it registers first
        register_project(ctx, vault_of(ctx, agent))
    vault_of(ctx, agent, to_global=True)
    result = session_of(ctx, agent).maintain_global(dry_run)
    plan = result.plan
    if as_json:
        render.print_json(
            {"dry_run": dry_run, "projects": list(plan.projects), "promoted": plan.promoted,
             "changes": plan.lines, "notices": list(plan.notices),
             "review": list(plan.questions),
             "commit": result.commit.sha if result.commit else None}
        )  # fmt: skip
        return
    for notice in plan.notices:
        render.warning(notice)
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
    from cardvault.errors import CardvaultError

    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise CardvaultError(f"--since needs a date as YYYY-MM-DD, got {text!r}") from exc


def result_json(result: RunResult, dry_run: bool) -> dict[str, Any]:
    """The run as plain data (what --json prints)."""
    vault = result.plan.before.vault
    data: dict[str, Any] = {
        "dry_run": dry_run,
        "counts": result.plan.counts(),
        "changes": [
            {
                "step": c.step,
                "kind": type(c).__name__,
                "paths": [vault.rel(p) for p in _paths(c)],
                "reason": c.reason,
            }
            for c in result.plan.file_changes
        ],
        "conflicts": [_report_json(vault, r) for r in result.plan.reports if r.kind == "conflict"],
        "flags": [_report_json(vault, r) for r in result.plan.reports if r.kind != "conflict"],
        "problems": list(result.plan.before.problems),
        "notices": list(result.notices),
        "review_pending": result.review_pending,
        "asked": result.asked,
        "commit": result.commit.sha if result.commit else None,
        "branch": result.branch,
        "pending_commit": result.pending.sha if result.pending else None,
        "ids_commit": result.ids.sha if result.ids else None,
        "timings": {k: round(v, 3) for k, v in result.timings.items()},
    }
    if dry_run:
        data["diff"] = result.plan.diff()
        data["message"] = result.plan.commit_message() if not result.plan.empty else None
    return data


def _paths(change: Any) -> tuple[Any, ...]:
    from cardvault.edits.changes import touched_paths

    return touched_paths(change)


def _report_json(vault: Any, report: Any) -> dict[str, Any]:
    return {
        "kind": report.kind,
        "step": report.step,
        "message": report.message,
        "paths": [vault.rel(p) for p in report.paths],
        "texts": list(report.texts),
    }


def _show(result: RunResult, dry_run: bool) -> None:
    plan = result.plan
    for problem in (*plan.before.problems, *result.notices):
        render.warning(problem)
    if result.pending is not None:
        report_commit(result.pending)
    if result.ids is not None:
        report_subject(result.ids)
    rows = []
    for outcome in plan.steps:
        files = len({p for c in outcome.files for p in _paths(c)})
        notes = ", ".join(sorted({r.kind for r in outcome.reports})) or ""
        rows.append((outcome.name, outcome.count, files, notes))
    render.table(("step", "actions", "files", "reported"), rows, title="maintenance")
    for line in _reason_lines(plan):
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


def _reason_lines(plan: Any) -> list[str]:
    from cardvault.edits.changes import reason_lines

    return reason_lines(plan.changes)


def _show_dry_run(plan: Any) -> None:
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
    for problem in (*plan.before.problems, *result.notices):
        render.warning(problem)
    for line in _reason_lines(plan):
        render.note(line)
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
    from cardvault.maintain.by_hand import promote_card

    _hand_result(promote_card(vault_of(ctx), slug, now().date(), rule))


def demote(
    ctx: typer.Context,
    slug: Annotated[str, typer.Argument(help="The promoted card's slug (or an alias).")],
) -> None:
    """Take a card's rule back out of AGENTS.md (it is not promoted again automatically)."""
    from cardvault.maintain.by_hand import demote_card

    _hand_result(demote_card(vault_of(ctx), slug, now().date()))


def archive(
    ctx: typer.Context,
    slug: Annotated[str, typer.Argument(help="The card's slug (or an alias).")],
) -> None:
    """Move a card to memory/archive/ now (kept, searchable with --archived); one commit."""
    from cardvault.maintain.by_hand import archive_card

    _hand_result(archive_card(vault_of(ctx), slug, now().date()))


def _hand_result(result: Any) -> None:
    from cardvault.edits.changes import reason_lines, reports

    for report in reports(list(result.changes)):
        render.warning(report.message)
    lines = reason_lines(list(result.changes))
    report_notes(result.notes)
    if result.commit is None:
        render.success("nothing to change")
        return
    for line in lines:
        render.success(line)
    report_commit(result.commit)
