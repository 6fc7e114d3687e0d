"""`cardvault check`: validate the vault, optionally repair the mechanical problems."""

from __future__ import annotations

from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import opened, report_commit, session_of, waiting_note


def check(
    ctx: typer.Context,
    fix: Annotated[
        bool,
        typer.Option("--fix", help="Repair tag spelling, CRLF endings, final newlines; commit."),
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Findings as a JSON array.")] = False,
) -> None:
    """Validate cards, logs, MEMORY.md and links; report `path:line: message`.

    Checks: frontmatter schema and YAML, keys given twice, categories, tag format, card token
    budget, MEMORY.md byte budget, broken [[links]] and → card: targets, duplicate slugs, log
    entries with a bad time or another entry's id, `## 10:00 Title` lines that are no entry
    heading (no dash), non-UTF-8/binary files, files too big to read whole, symlinks, FIFOs
    and file names with control characters (never read), instruction-like text in cards and
    logs (warnings), and secrets. Exit 1 when there are errors, 0 on warnings only. Example:
    cardvault check --json
    """
    session = session_of(ctx)
    vault = opened(session.project())
    done = session.check(fix, on_wait=waiting_note)
    render.notes(done.notes)
    for repaired in done.fixed:
        render.note(f"fixed {vault.rel(repaired.path)}: {repaired.what}")
    report_commit(done.commit)
    errors = done.count("error")
    if json_out:  # text stays the default when piped: `path:line:` is what editors and CI read
        render.print_json([f.to_dict() for f in done.findings])
    else:
        colours = {"error": "red", "warning": "yellow"}
        for finding in done.findings:
            colour = colours.get(finding.severity, "dim")
            render.console().print(f"[{colour}]{render.escape(finding.report())}[/]")
        warnings = done.count("warning")
        notes = len(done.findings) - errors - warnings
        summary = f"{errors} error(s), {warnings} warning(s)" + (
            f", {notes} note(s)" if notes else ""
        )
        if done.findings:
            render.console().print(summary)
        else:
            render.success("vault is clean")
    if errors:
        raise typer.Exit(1)
