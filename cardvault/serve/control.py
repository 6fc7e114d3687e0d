"""Managing a vault's resident process from outside: is it running, stop it, start it detached.

A server is running when something holds `.cardvault/serve.lock` (the system releases the
lock when the process dies, so a killed server is never mistaken for a live one) and answers a
`status` request on the socket.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardvault.errors import CardvaultError
from cardvault.serve.client import exchange
from cardvault.serve.protocol import LOG_NAME, cache_dir, lock_path, socket_path

STATUS_TIMEOUT = 5.0


@dataclass
class ServerStatus:
    """A running server as it describes itself; the server keeps its own up to date."""

    pid: int
    started: float
    requests: int
    last_request: float | None
    idle_timeout: float
    socket: Path
    model: str = ""

    def idle_left(self, now: float) -> float:
        """Seconds until the server exits for want of a request."""
        since = self.started if self.last_request is None else self.last_request
        return max(0.0, self.idle_timeout - (now - since))

    def to_dict(self) -> dict[str, Any]:
        """The fields a `status` answer carries (the client knows where the socket is)."""
        return {name: getattr(self, name) for name in _STATUS_FIELDS}


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


#: The fields of a `status` answer, each with how the client reads it back.
_STATUS_FIELDS: dict[str, Callable[[Any], Any]] = {
    "pid": int, "started": float, "requests": int, "last_request": _optional_float,
    "idle_timeout": float, "model": str,
}  # fmt: skip


def clear_stale_socket(root: Path) -> bool:
    """Remove the socket of a server that died without removing it (nobody holds the lock)."""
    path = socket_path(root)
    if lock_holder(root) is not None or not os.path.lexists(path):
        return False
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    return True


def lock_holder(root: Path) -> int | None:
    """The pid of the process holding the vault's serve lock, or None when nobody holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no server can run
        return None

    try:
        fd = os.open(lock_path(root), os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            return int(text) if text.isdigit() else -1
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def server_status(root: Path) -> ServerStatus | None:
    """The running server's own account of itself, or None when none answers."""
    answer = exchange(root, {"op": "status"}, STATUS_TIMEOUT)
    if answer is None or answer.get("ok") is not True:
        return None
    try:
        fields = {name: read(answer[name]) for name, read in _STATUS_FIELDS.items()}
    except (KeyError, TypeError, ValueError):
        return None
    return ServerStatus(**fields, socket=socket_path(root))


def stop_server(root: Path, wait: float = 10.0) -> int | None:
    """Stop the vault's server (a `stop` request, else SIGTERM to the lock holder); its pid, or
    None when none was running. Raises CardvaultError if it is still running after `wait`."""
    answer = exchange(root, {"op": "stop"}, STATUS_TIMEOUT)
    pid = lock_holder(root)
    if answer is not None and answer.get("ok") is True:
        pid = int(answer["pid"])
    elif pid is None:
        return None
    elif pid > 0:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait
    while lock_holder(root) is not None:
        if time.monotonic() > deadline:
            raise CardvaultError(f"the server (pid {pid}) did not stop within {wait:.0f} s", root)
        time.sleep(0.02)
    return pid


def spawn_detached(root: Path, command: Sequence[str]) -> int:
    """Start `command` (a foreground `cardvault serve`) detached in a new session, logging to
    `.cardvault/serve.log`; its pid, at once."""
    folder = cache_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / LOG_NAME
    append = os.O_WRONLY | os.O_CREAT | os.O_APPEND
    return os.posix_spawn(
        command[0], list(command), dict(os.environ),
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, str(log), append, 0o600),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ],
        setsid=True,
    )  # fmt: skip


def start_detached(root: Path, command: Sequence[str], wait: float = 120.0) -> ServerStatus:
    """`spawn_detached`, then the new server's status once it answers."""
    log = cache_dir(root) / LOG_NAME
    pid = spawn_detached(root, command)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        status = server_status(root)
        if status is not None:
            return status
        ended, code = os.waitpid(pid, os.WNOHANG)
        if ended:
            tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
            detail = " / ".join(tail) or f"exit status {os.waitstatus_to_exitcode(code)}"
            raise CardvaultError(f"the server did not start: {detail}", log)
        time.sleep(0.05)
    raise CardvaultError(f"the server did not answer within {wait:.0f} s", log)
