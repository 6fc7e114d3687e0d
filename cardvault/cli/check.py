"""`cardvault check`: validate the vault, optionally repair the mechanical problems."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import report_commit, report_notes, vault_of, waiting_note

if TYPE_CHECKING:
    from cardvault.vault.layout import Vault


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
    from cardvault.check.run import run_checks

    vault = vault_of(ctx)
    if fix:
        _apply_fixes(vault)
    findings = run_checks(vault)
    errors = sum(1 for f in findings if f.severity == "error")
    if json_out:  # text stays the default when piped: `path:line:` is what editors and CI read
        render.print_json([f.to_dict() for f in findings])
    else:
        colours = {"error": "red", "warning": "yellow"}
        for finding in findings:
            colour = colours.get(finding.severity, "dim")
            render.console().print(f"[{colour}]{render.escape(finding.report())}[/]")
        warnings = sum(1 for f in findings if f.severity == "warning")
        notes = len(findings) - errors - warnings
        summary = f"{errors} error(s), {warnings} warning(s)" + (
            f", {notes} note(s)" if notes else ""
        )
        if findings:
            render.console().print(summary)
        else:
            render.success("vault is clean")
    if errors:
        raise typer.Exit(1)


def _apply_fixes(vault: Vault) -> None:
    from cardvault.check.repair import apply_fixes
    from cardvault.edits.door import door_notes

    written = apply_fixes(vault, on_wait=waiting_note)
    report_notes(door_notes(written))
    for fix in written.value:
        render.note(f"fixed {vault.rel(fix.path)}: {fix.what}")
    if written.commit is not None:
        report_commit(written.commit)
