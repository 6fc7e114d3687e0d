"""`cardvault import`: merge an export into this vault, or import a folder of notes
(cli/import_notes.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import JsonOption, reading, report_subject, waiting_note
from cardvault.cli.import_notes import import_folder
from cardvault.errors import CardvaultError

if TYPE_CHECKING:
    from cardvault.app import Session
    from cardvault.history import CommitResult
    from cardvault.portable.importer import ImportPlan


def import_(
    ctx: typer.Context,
    path: Annotated[
        Path,
        typer.Argument(
            help="An export file (from `cardvault export`), or a folder of Markdown notes.",
            show_default=False,
        ),
    ],
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Show every card and link it would write; write nothing."),
    ] = False,
    partial: Annotated[
        bool, typer.Option("--partial", help="Import the valid part when some items have problems.")
    ] = False,
    redact: Annotated[
        bool, typer.Option("--redact", help="Replace secrets instead of refusing the card.")
    ] = False,
    category: Annotated[
        str | None,
        typer.Option(
            "--category",
            "-c",
            help="Notes: the category of a note whose frontmatter, type, folders and tags name "
            "none of the vault's (default: lessons).",
            show_default=False,
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Bring memory in: an export of another vault, or a folder of Markdown notes (plain notes,
    an Obsidian vault, Claude Code's auto-memory folder, basic-memory notes). One commit.

    An export is merged the way maintenance merges cards: exact duplicates skipped, near
    duplicates folded into their card, contradictions reported and not imported, the rest added
    byte for byte.

    A folder becomes one card per note (docs/import.md): frontmatter, aliases and #tags kept,
    [[links]], embeds and links to notes turned into vault links, attachments linked where they
    are, dates from the frontmatter, else git, else the file, categories from the frontmatter,
    folders or tags. The folder is only read. --dry-run shows every card and every link.

    The secret guard screens every text. Items with problems (bad frontmatter, not UTF-8, too
    big, secrets) are listed and nothing is written; --partial imports the rest.
    Example: cardvault import ~/notes --dry-run
    """
    folder = path.is_dir()
    if category is not None and not folder:
        raise CardvaultError("--category is for a folder of notes; an export keeps its categories")
    session = reading(ctx)
    if folder:
        import_folder(session, path, dry_run, partial, redact, category, json_out)
    else:
        _import_export(session, path, dry_run, partial, redact, json_out)


def _import_export(
    session: Session, file: Path, dry_run: bool, partial: bool, redact: bool, json_out: bool
) -> None:
    done = session.import_export(file, dry_run, partial, redact, on_wait=waiting_note)
    render.notes(done.notes)
    if render.wants_json(json_out):
        render.print_json(import_json(done.plan, dry_run, done.commit))
    else:
        _show_import(done.plan, dry_run)
    if done.commit is not None:
        report_subject(done.commit)
    elif not dry_run:
        nothing_imported(file, done.plan)


def nothing_imported(file: Path, plan: ImportPlan) -> None:
    """Say why an import wrote nothing: an error when no item of the file was valid."""
    if plan.problems and not plan.outcomes and not plan.log_entries:
        raise CardvaultError(
            f"nothing imported: no item in {file.name} is valid ({len(plan.problems)} problem(s) "
            "listed above)"
        )
    invalid = f"; {len(plan.problems)} invalid item(s) skipped" if plan.problems else ""
    render.note(f"nothing to import: the vault already has every valid item{invalid} (no commit)")


def import_json(plan: ImportPlan, dry_run: bool, result: CommitResult | None) -> dict[str, object]:
    return {
        "counts": plan.counts(),
        "outcomes": [vars(o) for o in plan.outcomes],
        "problems": [str(p) for p in plan.problems],
        "dry_run": dry_run,
        "commit": result.sha if result else None,
    }


def _show_import(plan: ImportPlan, dry_run: bool) -> None:
    render.table(
        ["#", "card", "outcome", "detail"],
        [(o.index, o.rel, o.kind, o.detail) for o in plan.outcomes],
        title=("would import: " if dry_run else "imported: ") + plan.summary(),
    )
    for report in plan.reports:
        render.warning(report.message)
        for sentence in report.texts:
            render.err_console().print(f"    {render.escape(sentence)}")
    for problem in plan.problems:
        render.warning(f"not imported: {problem}")
    if plan.log_entries:
        entries = render.counted(plan.log_entries, "daily-log entry", "daily-log entries")
        render.note(f"{entries} added")
