"""`cardvault hook EVENT --host HOST`: what the hooks `cardvault install` registers run."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from cardvault.cli import render
from cardvault.cli.common import session_of, waiting_note
from cardvault.limits import HOOK_INPUT, read_stream

#: Registered leniently: a hook must never fail on its arguments with click's usage exit code
#: 2, which Claude Code and Codex read as "block" (a Stop hook would keep the agent going).
HOOK_COMMAND: dict[str, Any] = {
    "context_settings": {"allow_extra_args": True, "ignore_unknown_options": True},
}


def hook(
    ctx: typer.Context,
    event: Annotated[
        str, typer.Argument(metavar="EVENT", help="session-start, pre-compact or stop.")
    ],
    host: Annotated[
        str,
        typer.Option(
            "--host", metavar="HOST", help="The host running it: claude-code, codex or cursor."
        ),
    ] = "claude-code",
) -> None:
    """Run an agent-host hook: reads the host's hook JSON on stdin.

    session-start prints the context pack for the host to add to the session (the vault is
    found from the session's folder, `cwd` in the input, unless --vault is given).
    pre-compact and stop read the session transcript (`transcript_path`) from where the last
    capture stopped and log each new Lesson:/Fix:/Gotcha:/... line of the assistant's messages
    as an entry of today's log (lines memory already holds are skipped; one commit). A hook
    never blocks its host: on any failure it says why on stderr and exits 1, which Claude
    Code, Codex and Cursor treat as a non-blocking error.
    """
    try:
        output = _run(ctx, event, host)
    except Exception as exc:  # a hook reports and exits; it never raises into its host
        render.error(f"cardvault hook {event}: {exc}")
        raise typer.Exit(1) from exc
    sys.stdout.write(output)
    sys.stdout.flush()


def _run(ctx: typer.Context, event: str, host: str) -> str:
    stdin = sys.stdin
    raw = b"" if stdin is None or stdin.isatty() else read_stream(stdin, HOOK_INPUT)
    done = session_of(ctx).hook(event, host, raw, waiting_note)
    render.warnings(done.notices)
    captured = done.captured
    if captured is None and event != "session-start":
        render.note(f"cardvault hook {event}: no transcript in the hook input, nothing captured")
    elif captured is not None:
        render.notes(captured.notes)
        if captured.logged:
            render.note(f"cardvault: logged {len(captured.logged)} line(s) of this session")
        if captured.dropped:
            render.warning(f"cardvault: {captured.dropped} more signal line(s) not logged (limit)")
    return done.output
