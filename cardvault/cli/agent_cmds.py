"""Commands made for agents: `context` (the session-start pack) and `capture` (failed commands)."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, BinaryIO

import typer

from cardvault.cli import render
from cardvault.cli.common import now, vault_of

if TYPE_CHECKING:
    from cardvault.capture import RunResult
    from cardvault.capture_log import KnownFix
    from cardvault.context import ContextPack

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


class PackFormat(StrEnum):
    """Output formats of `context`."""

    markdown = "markdown"
    json = "json"


def context(
    ctx: typer.Context,
    task: Annotated[
        str | None,
        typer.Option(
            "--task", "-t", help="What the session is about; ranks cards by relevance to it."
        ),
    ] = None,
    budget: Annotated[
        int | None,
        typer.Option(
            "--budget",
            "-b",
            min=1,
            help="Token budget (default: [context] token_budget, 2000).",
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[
        PackFormat,
        typer.Option(
            "--format",
            "-f",
            help="markdown (the pack itself) or json (the pack plus what is in and out).",
        ),
    ] = PackFormat.markdown,
    explain: Annotated[
        bool, typer.Option("--explain", help="Also say on stderr why each item is in or out.")
    ] = False,
) -> None:
    """Print the memory to load at session start: MEMORY.md, learned rules, the best cards.

    Never more than the token budget (cardvault's token rule); what did not fit is named at the
    end. With --task, cards are ranked by a hybrid search for the task mixed with their value
    (seen × impact × recency); without, by value alone. Read-only.
    """
    from cardvault.context import build_context

    pack = build_context(vault_of(ctx), task, budget, now().date())
    for notice in pack.notices:
        render.warning(notice)
    if fmt is PackFormat.json:
        render.print_json(pack.to_dict())
    else:
        sys.stdout.write(pack.text)
        sys.stdout.flush()
    if explain:
        _explain(pack)


def _explain(pack: ContextPack) -> None:
    """Why each item is in or out, on stderr (stdout stays the pack)."""
    task = f' · task "{pack.task}"' if pack.task else " · no task: most valuable first"
    lines = [f"context: {pack.tokens} of {pack.budget} tokens · ranking: {pack.ranking}{task}"]
    for decision in pack.decisions:
        item = decision.item
        mark = "IN " if decision.included else "OUT"
        lines.append(f"  {mark} {item.kind:<6} {item.name:<36} {decision.reason} · {item.why}")
    if pack.not_considered:
        lines.append(f"  ... {pack.not_considered} lower-ranked cards not considered")
    listed = len(pack.listed)
    if listed < len(pack.omitted):
        lines.append(f"  'Not included' names {listed} of the {len(pack.omitted)} left out")
    typer.echo("\n".join(lines), err=True)


def capture(ctx: typer.Context) -> None:
    """Run a command; when it fails, log the failure and show the fixes the vault knows.

    Usage: cardvault capture -- CMD [ARGS...]. Output passes through live and the exit code is
    the command's own (128+N when killed by signal N). A failure is logged to today's daily log
    (command, exit code, directory, stderr tail with secrets redacted, category, signature);
    the same signature again adds a short "failed again" entry and bumps the count. If the vault
    cannot be written, a warning is printed and the exit code is still the command's.
    """
    from cardvault.capture import run_command

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
    from cardvault.capture import describe_failure
    from cardvault.capture_log import known_fixes, record_failure

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
        recorded = record_failure(vault, failure, now())
    except Exception as exc:
        render.warning(
            f"failure not logged ({failure.category}, signature {failure.signature}): {exc}"
        )
    else:
        again = f", seen {recorded.seen}×" if recorded.seen > 1 else ""
        render.note(
            f"cardvault: {failure.category} failure logged → {recorded.ref} "
            f"(signature {failure.signature}{again})"
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
