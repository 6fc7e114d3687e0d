"""`cardvault serve`: keep one vault's search warm in a resident process for the CLI."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import vault_of

if TYPE_CHECKING:
    from cardvault.cli.resident import Command
    from cardvault.serve.control import ServerStatus
    from cardvault.vault.layout import Vault

DEFAULT_IDLE_MINUTES = 30.0


def serve(
    ctx: typer.Context,
    status: Annotated[
        bool,
        typer.Option("--status", help="Say whether a server runs for this vault (exit 1 if not)."),
    ] = False,
    stop: Annotated[bool, typer.Option("--stop", help="Stop this vault's server.")] = False,
    background: Annotated[
        bool,
        typer.Option(
            "--background", "-d", help="Start it detached (log: .cardvault/serve.log) and return."
        ),
    ] = False,
    idle_minutes: Annotated[
        float,
        typer.Option(
            "--idle-timeout",
            min=0.05,
            metavar="MINUTES",
            help="Exit after this many minutes without a request.",
        ),
    ] = DEFAULT_IDLE_MINUTES,
) -> None:
    """Keep this vault's search index, model and tokenizer loaded for `search` and `context`.

    While it runs, `cardvault search` and `cardvault context` in this vault are answered by it
    through a unix socket in .cardvault/ (only your user can connect) instead of loading the
    model again: same output, a fraction of the time. Without it, or if it does not answer
    properly, they run in-process as usual. Edits to the vault are seen by the next search.
    """
    from cardvault.serve.control import lock_holder, server_status, start_detached, stop_server

    vault = vault_of(ctx)
    if status:
        _report_status(vault, server_status(vault.root), lock_holder(vault.root))
    elif stop:
        pid = stop_server(vault.root)
        render.success(f"stopped the server (pid {pid})" if pid else "no server was running")
    elif background:
        running = server_status(vault.root)
        if running is None:
            from cardvault.launch import python_command

            # isolated: it starts in this folder, maybe the vault, whose files came from a remote
            where, idle = str(vault.root), str(idle_minutes)
            command = python_command("cardvault", "--vault", where, "serve", "--idle-timeout", idle)
            running = start_detached(vault.root, command)
        render.success(f"serving {vault.root} (pid {running.pid}); stop: cardvault serve --stop")
    else:
        _serve_here(vault, idle_minutes, ctx.find_root().command)


def _serve_here(vault: Vault, idle_minutes: float, command: Command) -> None:
    """Serve `command` (the whole `cardvault` group) for this vault until idle or stopped."""
    from cardvault.cli.resident import ResidentCli
    from cardvault.serve.server import serve as serve_loop

    resident = ResidentCli(vault.root, command)
    for notice in resident.warm_up():
        render.warning(notice)

    def ready() -> None:
        render.note(
            f"serving {vault.root} on .cardvault/serve.sock; exits after {idle_minutes:g} "
            "idle minutes or on `cardvault serve --stop`"
        )

    why = serve_loop(vault.root, resident.answer, idle_minutes * 60, ready)
    render.note(f"server stopped: {why}")


def _report_status(vault: Vault, running: ServerStatus | None, holder: int | None) -> None:
    if running is None:
        if holder is not None:
            render.warning(f"pid {holder} holds the serve lock but does not answer")
        render.note(f"no server for {vault.root}")
        raise typer.Exit(1)
    last = "none yet" if running.last_request is None else _ago(running.last_request)
    render.success(
        f"serving {vault.root}: pid {running.pid}, up {_ago(running.started)}, "
        f"{running.requests} requests (last {last}), idle timeout "
        f"{running.idle_timeout / 60:g} min, socket {vault.rel(running.socket)}"
    )


def _ago(moment: float) -> str:
    seconds = max(0.0, time.time() - moment)
    return f"{seconds:.0f} s ago" if seconds < 120 else f"{seconds / 60:.0f} min ago"
