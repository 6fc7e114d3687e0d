"""`cardvault serve`: keep one vault's search warm in a resident process for the CLI."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import vault_of

if TYPE_CHECKING:
    from cardvault.cli.resident import Command
    from cardvault.serve.autostart import ServeSettings
    from cardvault.serve.control import ServerStatus
    from cardvault.vault.layout import Vault


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
        float | None,
        typer.Option(
            "--idle-timeout",
            min=0.05,
            metavar="MINUTES",
            help="Exit after this many minutes without a request (default: [serve] "
            "idle_minutes, 15).",
            show_default=False,
        ),
    ] = None,
    json_out: Annotated[
        bool,
        typer.Option(
            "--json", help="Print JSON: the status (--status, --background) or what --stop did."
        ),
    ] = False,
) -> None:
    """Keep this vault's search index, model and tokenizer loaded for `search` and `context`.

    While it runs, `cardvault search` and `cardvault context` in this vault are answered by it
    through a unix socket in .cardvault/ (only your user can connect) instead of loading the
    model again: same output, a fraction of the time. Without it, or if it does not answer
    properly, they run in-process as usual. Edits to the vault are seen by the next search.

    You rarely need to start it: the first `search`, `context` or `index` that loads the model
    starts it in the background by itself (off with `[serve] auto = false` in cardvault.toml
    or your own config.toml, or CARDVAULT_NO_AUTOSERVE=1), and it exits after `[serve]
    idle_minutes` (15) without a request.
    """
    from cardvault.serve.autostart import clear_stale_socket, serve_command
    from cardvault.serve.control import lock_holder, server_status, start_detached, stop_server

    vault = vault_of(ctx)
    if idle_minutes is None:
        idle_minutes = _settings(vault).idle_minutes
    if status:
        if lock_holder(vault.root) is None:
            clear_stale_socket(vault.root)
        _report_status(vault, server_status(vault.root), lock_holder(vault.root), json_out)
    elif stop:
        pid = stop_server(vault.root)
        if json_out:
            render.print_json({"stopped": pid is not None, "pid": pid, "vault": str(vault.root)})
            return
        render.success(f"stopped the server (pid {pid})" if pid else "no server was running")
    elif background:
        running = server_status(vault.root)
        if running is None:
            # isolated: it starts in this folder, maybe the vault, whose files came from a remote
            clear_stale_socket(vault.root)
            running = start_detached(vault.root, serve_command(vault.root, idle_minutes))
        if json_out:
            render.print_json(_status_json(vault, running, _settings(vault).auto))
            return
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

    why = serve_loop(vault.root, resident.answer, idle_minutes * 60, ready, vault.config.model)
    render.note(f"server stopped: {why}")


def _settings(vault: Vault) -> ServeSettings:
    from cardvault.serve.autostart import serve_settings

    return serve_settings(vault.config.serve_auto, vault.config.serve_idle_minutes)


def _report_status(
    vault: Vault, running: ServerStatus | None, holder: int | None, json_out: bool
) -> None:
    auto = _settings(vault).auto
    if json_out:  # only when asked: hooks read the line `serve --status` prints
        render.print_json(_status_json(vault, running, auto))
        if running is None:
            raise typer.Exit(1)
        return
    if running is None:
        if holder is not None:
            render.warning(f"pid {holder} holds the serve lock but does not answer")
        started = "the next search starts one" if auto else "auto-start is off"
        render.note(f"no server for {vault.root} ({started})")
        raise typer.Exit(1)
    last = "none yet" if running.last_request is None else _ago(running.last_request)
    render.success(
        f"serving {vault.root}: pid {running.pid}, model {running.model or '?'}, up "
        f"{_ago(running.started)}, {running.requests} requests (last {last}), exits after "
        f"{running.idle_left(time.time()) / 60:.1f} more idle min (timeout "
        f"{running.idle_timeout / 60:g}), socket {vault.rel(running.socket)}"
    )


def _status_json(vault: Vault, running: ServerStatus | None, auto: bool) -> dict[str, object]:
    if running is None:
        return {"running": False, "vault": str(vault.root), "auto": auto}
    return {
        "running": True, "vault": str(vault.root), "auto": auto, "pid": running.pid,
        "model": running.model, "started": running.started, "requests": running.requests,
        "last_request": running.last_request, "idle_timeout_s": running.idle_timeout,
        "idle_left_s": round(running.idle_left(time.time()), 1),
        "socket": vault.rel(running.socket),
    }  # fmt: skip


def _ago(moment: float) -> str:
    seconds = max(0.0, time.time() - moment)
    return f"{seconds:.0f} s ago" if seconds < 120 else f"{seconds / 60:.0f} min ago"
