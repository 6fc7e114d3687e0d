"""`cardvault check`: validate the vault, optionally repair the mechanical problems."""

from __future__ import annotations

from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import report_commit, vault_of


def check(
    ctx: typer.Context,
    fix: Annotated[
        bool,
        typer.Option("--fix", help="Repair tag spelling, CRLF endings, final newlines; commit."),
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Findings as a JSON array.")] = False,
) -> None:
    """Validate cards, logs, MEMORY.md and links; report `path:line: message`.

    Checks: frontmatter schema and YAML, categories, tag format, card token budget, MEMORY.md byte
    budget, broken [[links]] and → card: targets, duplicate slugs, non-UTF-8/binary files,
    symlinks leaving the vault, and secrets. Exit 1 when there are errors, 0 on warnings only.
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
        for finding in findings:
            colour = "red" if finding.severity == "error" else "yellow"
            render.console().print(f"[{colour}]{render.escape(str(finding))}[/]")
        warnings = len(findings) - errors
        summary = f"{errors} error(s), {warnings} warning(s)"
        if findings:
            render.console().print(summary)
        else:
            render.success("vault is clean")
    if errors:
        raise typer.Exit(1)


def _apply_fixes(vault: object) -> None:
    from cardvault import history
    from cardvault.check.fixes import plan_fixes
    from cardvault.edits.atomic import atomic_write
    from cardvault.vault.layout import Vault

    assert isinstance(vault, Vault)
    fixes = plan_fixes(vault)
    for fix in fixes:
        atomic_write(fix.path, fix.text, fix.expected)
        render.note(f"fixed {vault.rel(fix.path)}: {fix.what}")
    if fixes:
        message = f"check: fix {len(fixes)} file(s)\n\n" + "\n".join(
            f"{vault.rel(f.path)}: {f.what}" for f in fixes
        )
        report_commit(history.commit(vault, message, [f.path for f in fixes]))
