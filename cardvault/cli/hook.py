"""`cardvault hook EVENT --host HOST`: what the hooks `cardvault install` registers run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cardvault.cli import render
from cardvault.cli.common import now, session_of, waiting_note

if TYPE_CHECKING:
    from cardvault.vault.layout import Vault

#: Registered leniently: a hook must never fail on its arguments with click's usage exit code
#: 2, which Claude Code and Codex read as "block" (a Stop hook would keep the agent going).
HOOK_COMMAND: dict[str, Any] = {
    "context_settings": {"allow_extra_args": True, "ignore_unknown_options": True},
}
EVENTS = ("session-start", "pre-compact", "stop")
LABELS = {"claude-code": "Claude Code", "codex": "Codex", "cursor": "Cursor"}


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
        if event not in EVENTS:
            raise ValueError(f"unknown hook event {event!r} (one of {', '.join(EVENTS)})")
        if host not in LABELS:
            raise ValueError(f"unknown host {host!r} (one of {', '.join(LABELS)})")
        output = _run(ctx, event, host)
    except Exception as exc:  # a hook reports and exits; it never raises into its host
        render.error(f"cardvault hook {event}: {exc}")
        raise typer.Exit(1) from exc
    sys.stdout.write(output)
    sys.stdout.flush()


def _run(ctx: typer.Context, event: str, host: str) -> str:
    from cardvault.hosts.payload import MAX_INPUT, parse_input, quiet_output

    stdin = sys.stdin
    raw = b"" if stdin is None or stdin.isatty() else _read(stdin, MAX_INPUT + 1)
    payload = parse_input(raw)
    vault = _vault(ctx, payload.cwd)
    if event == "session-start":
        return _session_start(ctx, vault, host)
    if payload.transcript is None:
        render.note(f"cardvault hook {event}: no transcript in the hook input, nothing captured")
        return quiet_output(host)
    from cardvault.capture.session import capture_transcript

    via = f"{LABELS[host]} {event} hook"
    if payload.session:
        via += f", session {payload.session[:8]}"
    result = capture_transcript(vault, payload.transcript, via, now(), waiting_note)
    for line in result.notes:
        render.note(line)
    if result.logged:
        render.note(f"cardvault: logged {len(result.logged)} line(s) of this session")
    if result.dropped:
        render.warning(f"cardvault: {result.dropped} more signal line(s) not logged (limit)")
    return quiet_output(host)


def _read(stream: Any, limit: int) -> bytes:
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        return bytes(buffer.read(limit))
    return str(stream.read(limit)).encode("utf-8")


def _vault(ctx: typer.Context, cwd: Path | None) -> Vault:
    """The vault: `--vault` (user-level hooks pin it), else found from the session's folder."""
    from cardvault.vault.layout import find_vault

    session = session_of(ctx)
    return session.with_options(find_vault(session.explicit, session.env, cwd).root).project()


def _session_start(ctx: typer.Context, vault: Vault, host: str) -> str:
    from cardvault.hosts.payload import session_start_output
    from cardvault.scopes.scope import Scope

    pack = session_of(ctx).with_options(vault.root).context(scope=Scope.all)
    for notice in pack.notices:
        render.warning(notice)
    return session_start_output(host, pack.text)
