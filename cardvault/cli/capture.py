"""`cardvault capture`: run a command, log its failure, show known fixes."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, BinaryIO

import typer

from cardvault.cli import render
from cardvault.cli.common import session_of, waiting_note

if TYPE_CHECKING:
    from cardvault.app.vaults import Captured
    from cardvault.capture.record import KnownFix
    from cardvault.capture.run import Failure

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
    argv = list(ctx.args)
    if not argv:
        raise typer.BadParameter("name a command to run: cardvault capture -- CMD [ARGS...]")
    done = session_of(ctx).capture(argv, _stderr_bytes(), on_wait=waiting_note)
    render.warnings(done.warnings)  # what could not be captured: the exit code stays the same
    if done.failure is not None:
        _report(done, done.failure)
    raise typer.Exit(done.run.exit_code)


def _stderr_bytes() -> BinaryIO | None:
    sys.stderr.flush()
    return getattr(sys.stderr, "buffer", None)


def _report(done: Captured, failure: Failure) -> None:
    """Where the failure was logged, and the fixes the vault knows."""
    if done.recorded is not None:
        render.notes(done.recorded.notes)
        again = f", seen {done.recorded.seen}×" if done.recorded.seen > 1 else ""
        render.note(
            f"cardvault: {failure.category} failure logged → {done.recorded.ref} "
            f"(signature {failure.signature}{again})"
        )
    if done.ignored:
        render.note(f"cardvault: the command ran with these signals ignored: {done.ignored}")
    _print_fixes(done.fixes, failure.signature)


def _print_fixes(fixes: Sequence[KnownFix], signature: str) -> None:
    if not fixes:
        hint = f'cardvault log "Fix: ... (signature {signature})"'
        render.note(f"cardvault: no known fix yet; once solved: {hint}")
        return
    err = render.err_console()
    err.print("[bold]cardvault: known fixes[/]")
    for fix in fixes:
        err.print(f"  • {render.escape(fix.text)} [dim]({render.escape(fix.source)})[/]")
