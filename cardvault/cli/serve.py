"""`cardvault serve`: keep one vault's search warm in a resident process for the CLI."""

from __future__ import annotations

import functools
import time
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import session_of

if TYPE_CHECKING:
    from cardvault.app import Session
    from cardvault.app.resident import Serving
    from cardvault.cli.resident import Command


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
    session = session_of(ctx)
    if status:
        _report_status(session.serve_status(), json_out)
    elif stop:
        pid = session.serve_stop()
        if json_out:
            render.print_json({"stopped": pid is not None, "pid": pid, "vault": str(session.root)})
            return
        render.success(f"stopped the server (pid {pid})" if pid else "no server was running")
    elif background:
        serving = session.serve_background(idle_minutes)
        if json_out:
            render.print_json(_status_json(serving))
            return
        running = serving.running
        assert running is not None  # started, or it raised
        root = serving.vault.root
        render.success(f"serving {root} (pid {running.pid}); stop: cardvault serve --stop")
    else:
        _serve_here(session, idle_minutes, ctx.find_root().command)


def _serve_here(session: Session, idle_minutes: float | None, command: Command) -> None:
    """Serve `command` (the whole `cardvault` group) for this vault until idle or stopped."""
    from cardvault.cli import resident

    def ready(notices: tuple[str, ...], minutes: float) -> None:
        render.warnings(notices)
        render.note(
            f"serving {session.root} on .cardvault/serve.sock; exits after {minutes:g} "
            "idle minutes or on `cardvault serve --stop`"
        )

    why = session.serve(functools.partial(resident.answer, command), idle_minutes, ready)
    render.note(f"server stopped: {why}")


def _report_status(serving: Serving, json_out: bool) -> None:
    running, root = serving.running, serving.vault.root
    if json_out:  # only when asked: hooks read the line `serve --status` prints
        render.print_json(_status_json(serving))
        if running is None:
            raise typer.Exit(1)
        return
    if running is None:
        if serving.holder is not None:
            render.warning(f"pid {serving.holder} holds the serve lock but does not answer")
        started = "the next search starts one" if serving.auto else "auto-start is off"
        render.note(f"no server for {root} ({started})")
        raise typer.Exit(1)
    last = "none yet" if running.last_request is None else _ago(running.last_request)
    render.success(
        f"serving {root}: pid {running.pid}, model {running.model or '?'}, up "
        f"{_ago(running.started)}, {running.requests} requests (last {last}), exits after "
        f"{running.idle_left(time.time()) / 60:.1f} more idle min (timeout "
        f"{running.idle_timeout / 60:g}), socket {serving.vault.rel(running.socket)}"
    )


def _status_json(serving: Serving) -> dict[str, object]:
    running, vault = serving.running, serving.vault
    if running is None:
        return {"running": False, "vault": str(vault.root), "auto": serving.auto}
    return {
        "running": True, "vault": str(vault.root), "auto": serving.auto, "pid": running.pid,
        "model": running.model, "started": running.started, "requests": running.requests,
        "last_request": running.last_request, "idle_timeout_s": running.idle_timeout,
        "idle_left_s": round(running.idle_left(time.time()), 1),
        "socket": vault.rel(running.socket),
    }  # fmt: skip


def _ago(moment: float) -> str:
    seconds = max(0.0, time.time() - moment)
    return f"{seconds:.0f} s ago" if seconds < 120 else f"{seconds / 60:.0f} min ago"
