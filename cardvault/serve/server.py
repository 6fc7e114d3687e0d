"""The resident process's loop: hold the vault's serve lock, listen, answer, exit when idle.

One server per vault: it holds an exclusive `flock` on `.cardvault/serve.lock` for its whole
life (the system drops it however the process dies), so a second server refuses to start and a
socket left by a killed one is known to be stale. The socket is mode 0600 and only a peer of
the same user is answered. Requests are answered one at a time (a warm search takes
milliseconds, and answering redirects the process's stdout).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cardvault import __version__
from cardvault.errors import CardvaultError
from cardvault.limits import SERVE_REQUEST
from cardvault.serve.control import ServerStatus
from cardvault.serve.protocol import (
    PROTOCOL,
    RESIDENT_COMMANDS,
    ProtocolError,
    RunRequest,
    RunResult,
    address,
    decode,
    encode,
    foreign_peer,
    install,
    lock_path,
    receive,
    run_request,
    socket_path,
)
from cardvault.vault.root import CONFIG_FILE

#: Runs one CLI command for a client (supplied by the CLI, which owns the commands).
Answer = Callable[[RunRequest], RunResult]
#: How often an idle server looks whether its vault and socket are still there.
WAKE_SECONDS = 5.0
#: How long a client may take to send its request.
REQUEST_SECONDS = 5.0


class AlreadyServingError(CardvaultError):
    """Another process already serves this vault."""


class _Terminated(Exception):
    """SIGTERM arrived."""


def serve(
    root: Path,
    answer: Answer,
    idle_timeout: float,
    ready: Callable[[], None] | None = None,
    model: str = "",
) -> str:
    """Serve the vault at `root` (resolved) until idle, stopped, or the vault or socket is gone;
    return why it stopped."""
    state = ServerStatus(
        pid=os.getpid(), started=time.time(), requests=0, last_request=None,
        idle_timeout=idle_timeout, socket=socket_path(root), model=model,
    )  # fmt: skip
    with _held_lock(root), _listening(socket_path(root)) as (listener, inode), _on_sigterm():
        if ready is not None:
            ready()
        try:
            return _loop(root, listener, inode, state, answer)
        except _Terminated:
            return "terminated"
        except KeyboardInterrupt:
            return "interrupted"


def _loop(
    root: Path, listener: socket.socket, inode: int, state: ServerStatus, answer: Answer
) -> str:
    deadline = time.monotonic() + state.idle_timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return "idle"
        gone = _gone(root, inode)
        if gone:
            return gone
        listener.settimeout(min(left, WAKE_SECONDS))
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        with conn:
            try:
                stop = _serve_one(root, conn, state, answer)
            except Exception:  # one bad exchange never ends the server
                traceback.print_exc(file=sys.stderr)
                stop = False
        deadline = time.monotonic() + state.idle_timeout
        if stop:
            return "stopped"


def _serve_one(root: Path, conn: socket.socket, state: ServerStatus, answer: Answer) -> bool:
    """Answer one connection; True when it asked the server to stop."""
    conn.settimeout(REQUEST_SECONDS)
    try:
        if foreign_peer(conn):
            return False
        message = decode(receive(conn, SERVE_REQUEST))
    except (OSError, ProtocolError):
        return False
    header = {
        "v": PROTOCOL, "id": message["id"], "root": str(root), "version": __version__,
        "install": install(),
    }  # fmt: skip
    reply: dict[str, Any] = dict(header)
    op = message.get("op")
    if message.get("root") != str(root):
        reply.update(ok=False, error="this server serves another vault")
    elif op in ("status", "stop"):
        reply.update(ok=True, **state.to_dict())
    elif op == "run":
        state.requests += 1
        state.last_request = time.time()
        reply.update(_run(message, answer))
    else:
        reply.update(ok=False, error=f"unknown request {op!r}")
    try:
        data = encode(reply)
    except (TypeError, ValueError) as exc:
        data = encode({**header, "ok": False, "error": f"unsendable answer: {exc}"})
        reply["ok"] = False
    with contextlib.suppress(OSError):
        conn.sendall(data)
    return op == "stop" and reply["ok"] is True


def _run(message: dict[str, Any], answer: Answer) -> dict[str, Any]:
    try:
        request = run_request(message)
    except ProtocolError as exc:
        return {"ok": False, "error": str(exc)}
    if not request.argv or request.argv[0] not in RESIDENT_COMMANDS:
        return {"ok": False, "error": "only search and context are answered here"}
    try:
        result = answer(request)
    except Exception as exc:  # the client runs the command itself and shows the real error
        traceback.print_exc(file=sys.stderr)
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"ok": True, "code": result.code, "output": [list(chunk) for chunk in result.output]}


def _gone(root: Path, inode: int) -> str | None:
    if not (root / CONFIG_FILE).is_file():
        return "vault gone"
    try:
        if os.lstat(socket_path(root)).st_ino != inode:
            return "socket replaced"
    except OSError:
        return "socket removed"
    return None


@contextlib.contextmanager
def _held_lock(root: Path) -> Iterator[None]:
    """Hold the serve lock, with this pid inside; AlreadyServingError when it is held."""
    try:
        import fcntl
    except ImportError as exc:  # pragma: no cover - Windows
        raise CardvaultError("cardvault serve needs flock and unix sockets (POSIX)") from exc

    path = lock_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            raise AlreadyServingError(f"already served by pid {holder}", root) from exc
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def _listening(path: Path) -> Iterator[tuple[socket.socket, int]]:
    """A listening socket at `path`, mode 0600 from the start, in a folder made 0700; removed on
    the way out. (The caller holds the serve lock: a socket already there is a dead server's.)"""
    os.chmod(path.parent, 0o700)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)
    try:
        with address(path) as where:
            listener.bind(where)
    finally:
        os.umask(old_mask)
    os.chmod(path, 0o600)
    inode = os.lstat(path).st_ino
    listener.listen(16)
    try:
        yield listener, inode
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            if os.lstat(path).st_ino == inode:
                path.unlink()


@contextlib.contextmanager
def _on_sigterm() -> Iterator[None]:
    """Turn SIGTERM into a clean stop (where it can be: on the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(_signum: int, _frame: Any) -> None:
        raise _Terminated

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
