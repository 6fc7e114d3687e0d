"""`cardvault capture`: run a command, log its failure, show known fixes."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, BinaryIO

import typer

from cardvault.cli import render
from cardvault.cli.common import now, report_notes, vault_of, waiting_note

if TYPE_CHECKING:
    from cardvault.capture.record import KnownFix
    from cardvault.capture.run import RunResult

#: How `capture` is registered: it takes the command's own arguments unparsed
#: (`cardvault capture -- CMD [ARGS...]`), flags included.
CAPTURE_COMMAND: dict[str, Any] = {
    "context_settings": {
        "allow_extra_args": True,
        "ignore_unknown_options": True,
        "allow_interspersed_args": False,
    },
    "options_metavar": "[OPTIONS] -- CMD [ARGS]...",
}


def capture(ctx: typer.Context) -> None:
    """Run a command; when it fails, log the failure and show the fixes the vault knows.

    Usage: cardvault capture -- CMD [ARGS...]. Output passes through live and the exit code is
    the command's own (128+N when killed by signal N). The command starts with the signal
    dispositions cardvault started with (a background job of a script ignores Ctrl-C; so does
    its command), and a failure's entry says so. A failure is logged to today's daily log
    (command, exit code, directory, stderr tail with secrets redacted, category, signature);
    the same signature again adds a short "failed again" entry and bumps the count. If the vault
    cannot be written, a warning is printed and the exit code is still the command's.
    """
    from cardvault.capture.run import run_command

    argv = list(ctx.args)
    if not argv:
        raise typer.BadParameter("name a command to run: cardvault capture -- CMD [ARGS...]")
    run = run_command(argv, _stderr_bytes())
    if run.failed:
        _capture_failure(ctx, run)
    raise typer.Exit(run.exit_code)


def _stderr_bytes() -> BinaryIO | None:
    sys.stderr.flush()
    return getattr(sys.stderr, "buffer", None)


def _capture_failure(ctx: typer.Context, run: RunResult) -> None:
    """Log the failure and print known fixes; any problem becomes a warning, never an error."""
    from cardvault.capture.record import ignored_note, known_fixes, record_failure
    from cardvault.capture.run import describe_failure

    try:
        failure = describe_failure(run)
        vault = vault_of(ctx)
    except Exception as exc:  # capturing must never change how the command ended
        render.warning(f"failure not captured: {exc}")
        return
    try:
        fixes = known_fixes(vault, failure)
    except Exception as exc:
        fixes = []
        render.warning(f"could not look up known fixes: {exc}")
    try:
        recorded = record_failure(vault, failure, now(), on_wait=waiting_note)
    except Exception as exc:
        render.warning(
            f"failure not logged ({failure.category}, signature {failure.signature}): {exc}"
        )
    else:
        report_notes(recorded.notes)
        again = f", seen {recorded.seen}×" if recorded.seen > 1 else ""
        render.note(
            f"cardvault: {failure.category} failure logged → {recorded.ref} "
            f"(signature {failure.signature}{again})"
        )
    if run.ignored:
        render.note(
            f"cardvault: the command ran with these signals ignored: {ignored_note(run.ignored)}"
        )
    _print_fixes(fixes, failure.signature)


def _print_fixes(fixes: list[KnownFix], signature: str) -> None:
    if not fixes:
        hint = f'cardvault log "Fix: ... (signature {signature})"'
        render.note(f"cardvault: no known fix yet; once solved: {hint}")
        return
    err = render.err_console()
    err.print("[bold]cardvault: known fixes[/]")
    for fix in fixes:
        err.print(f"  • {render.escape(fix.text)} [dim]({render.escape(fix.source)})[/]")
