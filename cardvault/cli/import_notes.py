"""`cardvault import FOLDER`: plan a folder of notes as cards, show it, import it in one commit."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardvault.cli import render
from cardvault.cli.common import report_subject, waiting_note

if TYPE_CHECKING:
    from cardvault.app import Session
    from cardvault.portable.folder import FolderPlan


def import_folder(
    session: Session,
    source: Path,
    dry_run: bool,
    partial: bool,
    redact: bool,
    category: str | None,
    json_out: bool,
) -> None:
    """Plan, show and (unless `dry_run`) carry out the import of the notes in `source`."""
    as_json = render.wants_json(json_out)
    options = (dry_run, partial, redact, category)
    if as_json:
        done = session.import_notes(source, *options, on_wait=waiting_note)
    else:
        with render.IndexProgress() as progress:
            done = session.import_notes(source, *options, progress, waiting_note)
    render.notes(done.notes)
    folder, commit = done.folder, done.commit
    problems = folder.plan.problems
    if as_json:
        render.print_json(done.to_dict())
    else:
        _show(folder, dry_run, partial)
    if commit is not None:
        report_subject(commit)
    elif not dry_run and problems:
        render.note(
            f"nothing new to import (no commit): {len(problems)} note(s) left out for the "
            "problems above; the vault already has every other note"
        )
    elif not dry_run:
        render.note("nothing to import: the vault already has every note (no commit)")


def _show(folder: FolderPlan, dry_run: bool, partial: bool) -> None:
    outcomes = {o.index: o for o in folder.plan.outcomes}
    rows = []
    for index, card in enumerate(folder.cards, start=1):
        outcome = outcomes.get(index)
        dates = f"{card.dates.created} – {card.dates.updated} ({card.dates.source})"
        shown = f"{outcome.kind}: {outcome.detail}" if outcome else "not imported"
        rows.append((card.note, card.rel, f"{card.category} ({card.category_from})", dates, shown))
    title = ("would import" if dry_run else "imported") + f" from {folder.source.name} "
    title += f"({folder.kind}, {folder.notes} notes): {folder.plan.summary()}"
    render.table(["note", "card", "category", "dates", "outcome"], rows, title=title)
    _show_links(folder, every=dry_run)
    if folder.plan.logs:
        entries = render.counted(folder.plan.log_entries, "entry", "entries")
        render.note(
            f"{'would keep' if dry_run else 'kept'} {folder.plan.logs} daily log(s) as logs, at "
            f"their paths under memory/ ({entries})"
        )
    for skip in folder.skipped:
        render.note(f"left out {skip.rel}: {skip.why}")
    for report in folder.plan.reports:
        render.warning(report.message)
    for problem in folder.plan.problems:
        render.warning(f"not imported: {problem}")
    if dry_run and folder.plan.problems and not partial:
        render.note(
            f"without --partial the import stops on these {len(folder.plan.problems)} "
            "problem(s) and writes nothing"
        )


def _show_links(folder: FolderPlan, every: bool) -> None:
    """Every link (a dry run), else those that need a look: unresolved or ambiguous."""
    counts = folder.link_counts()
    links = [link for link in folder.links if every or link.kind == "unresolved" or link.detail]
    if links:
        render.table(
            ["note:line", "link", "became", "detail"],
            [
                (f"{link.note}:{link.line}", link.written, _became(link), link.detail)
                for link in links
            ],
            title="links",
        )
    render.note(
        f"links: {counts['note']} to imported notes, {counts['card']} to vault cards, "
        f"{counts['attachment']} to attachments, {counts['unresolved']} unresolved"
    )


def _became(link: Any) -> str:
    if link.kind in ("note", "card"):
        return f"[[{link.target}]]"
    if link.kind == "attachment":
        return f"file {link.target}"
    return "(no link)"
