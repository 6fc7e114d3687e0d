"""Commands that take memory out of the vault or bring it in: forget, export, import."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import now, report_commit, vault_of

if TYPE_CHECKING:
    from cardvault.forget import ForgetPlan
    from cardvault.history import CommitResult
    from cardvault.portable_import import ImportPlan


def forget(
    ctx: typer.Context,
    query: Annotated[
        str, typer.Argument(help="A card's slug or alias, or words naming the topic.")
    ],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask before removing.")] = False,
) -> None:
    """Remove a topic everywhere: its cards, the daily-log lines and entries that mention it, and
    its rules in AGENTS.md. Shows what would go and asks first; then one commit (daily logs are
    rewritten, and the commit says so) that `git revert` undoes, and the search index drops it.

    QUERY is matched as a slug or alias first, then as words in card topics, slugs and tags,
    then as words in card bodies. Example: cardvault forget nginx-upload-size-limit
    """
    from cardvault.errors import NotFoundError
    from cardvault.forget import apply_forget, plan_forget

    vault = vault_of(ctx)
    plan = plan_forget(vault, query)
    if plan.empty:
        raise NotFoundError(f"nothing in the vault matches '{plan.query}'")
    _show_forget_plan(plan)
    if not yes:
        typer.confirm("Remove all of this?", abort=True, err=True)
    result = apply_forget(vault, plan)
    render.success(
        f"forgot {len(plan.cards)} card(s), {plan.log_lines} log line(s) in {len(plan.logs)} "
        f"log(s), {len(plan.rules)} rule(s)"
    )
    _report(result.commit)
    if result.commit.recorded:
        render.note(f"undo with: git revert {result.commit.sha[:10] if result.commit.sha else ''}")
    if result.index_note:
        render.note(result.index_note)


def _show_forget_plan(plan: ForgetPlan) -> None:
    out = render.err_console()
    how = {"slug": "slug or alias", "topic": "topic, slug or tags", "body": "card text"}
    if plan.cards:
        out.print(f"[bold]Cards[/] (matched by {how.get(plan.matched_by, plan.matched_by)}):")
        for card in plan.cards:
            out.print(f"  [red]-[/] {card.rel}  {render.escape(card.card.topic)}")
    for cut in plan.logs:
        whole = f" (entries {', '.join(cut.entries)} whole)" if cut.entries else ""
        gone = " (the whole file)" if cut.new_text is None else whole
        out.print(f"[bold]{cut.rel}[/]{gone}:")
        for number, line in cut.removed_lines():
            out.print(f"  [red]{number:>4}[/] {render.escape(line)}")
    for rule in plan.rules:
        out.print(f"[bold]AGENTS.md rule:[/] {render.escape(rule)}")
    if plan.memory is not None:
        out.print("[bold]MEMORY.md:[/] categories table regenerated without these cards")
    if plan.mentions:
        out.print("[yellow]Still mentioned (not changed):[/] " + ", ".join(plan.mentions))


def export(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Where to write the JSON ('-' for stdout).")],
    logs: Annotated[bool, typer.Option("--logs", help="Include the daily logs.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite FILE if it exists.")] = False,
) -> None:
    """Write the vault's cards (exact file texts, frontmatter and body), AGENTS.md rules and,
    with --logs, daily logs to a portable JSON file (format cardvault-export, version 1)."""
    from cardvault.errors import CardvaultError
    from cardvault.fsio import ABSENT, atomic_write, current_digest
    from cardvault.portable import export_data, export_text

    vault = vault_of(ctx)
    data = export_data(vault, now(), logs=logs)
    text = export_text(data)
    if str(file) == "-":
        sys.stdout.write(text)
        return
    expected = current_digest(file)
    if expected != ABSENT and not force:
        raise CardvaultError("exists; pass --force to overwrite it", file)
    atomic_write(file, text, expected)
    extra = f", {len(data['logs'])} daily log(s)" if logs else ""
    render.success(
        f"exported {len(data['cards'])} card(s), {len(data['rules'])} rule(s){extra} → {file}"
    )


def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="An export file (from `cardvault export`).")],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would happen; write nothing.")
    ] = False,
    partial: Annotated[
        bool, typer.Option("--partial", help="Import the valid part of a file with problems.")
    ] = False,
    redact: Annotated[
        bool, typer.Option("--redact", help="Replace secrets instead of refusing the card.")
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the outcome as JSON.")] = False,
) -> None:
    """Merge an export into this vault the way maintenance merges cards: exact duplicates are
    skipped, near duplicates folded into their card, contradictions reported and not imported,
    the rest added byte for byte; the secret guard screens every text; one commit.

    A file with problems (wrong format or version, cards without text, bad frontmatter,
    secrets) is refused with the list of what is wrong; --partial imports the valid part.
    """
    from cardvault.portable import load_export, read_export
    from cardvault.portable_import import apply_import, plan_import

    vault = vault_of(ctx)
    export_file = read_export(load_export(file), vault)
    if export_file.problems and not partial:
        _refuse(file, export_file.problems, len(export_file.cards))
    plan = plan_import(vault, export_file, now().date(), redact=redact)
    if plan.problems and not partial:
        _refuse(file, plan.problems, len(plan.outcomes))
    result = None if dry_run else apply_import(vault, plan, file.name)
    if render.wants_json(json_out):
        render.print_json(_import_json(plan, dry_run, result))
    else:
        _show_import(plan, dry_run)
    if result is not None:
        _report(result)
    elif not dry_run:
        render.note("nothing to import: the vault already has all of it (no commit)")


def _import_json(plan: ImportPlan, dry_run: bool, result: CommitResult | None) -> dict[str, object]:
    return {
        "counts": plan.counts(),
        "outcomes": [vars(o) for o in plan.outcomes],
        "problems": [str(p) for p in plan.problems],
        "dry_run": dry_run,
        "commit": result.sha if result else None,
    }


def _refuse(file: Path, problems: Sequence[object], usable: int) -> None:
    from cardvault.errors import CardvaultError

    listing = "\n".join(f"  - {p}" for p in problems)
    hint = (
        f"--partial imports the {usable} valid card(s)"
        if usable > 0
        else "nothing in it is importable"
    )
    raise CardvaultError(f"cannot import {file}:\n{listing}\n({hint})")


def _show_import(plan: ImportPlan, dry_run: bool) -> None:
    from cardvault.maintain.changes import reports

    render.table(
        ["#", "card", "outcome", "detail"],
        [(o.index, o.rel, o.kind, o.detail) for o in plan.outcomes],
        title=("would import: " if dry_run else "imported: ") + plan.summary(),
    )
    for report in reports(list(plan.changes)):
        render.warning(report.message)
        for sentence in report.texts:
            render.err_console().print(f"    {render.escape(sentence)}")
    for problem in plan.problems:
        render.warning(f"not imported: {problem}")
    if plan.log_entries:
        render.note(
            f"{plan.log_entries} daily-log entr{'y' if plan.log_entries == 1 else 'ies'} added"
        )


def _report(result: CommitResult) -> None:
    """Like report_commit, with the subject line only (these commits have long bodies)."""
    subject = result.message.split("\n", 1)[0]
    report_commit(replace(result, message=subject))
