"""Helpers for the resident-process tests: the CLI as a subprocess, a running `cardvault serve`,
a fake server that answers what a test tells it to, and a pseudo-terminal runner."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cardvault.serve.control import ServerStatus, server_status
from cardvault.serve.protocol import address, socket_path
from tests.support.machine import scaled

NOW = "2026-11-30T09:00"


def cli_env(**extra: str) -> dict[str, str]:
    """The test's environment with the clock pinned."""
    return {**os.environ, "CARDVAULT_NOW": NOW, **extra}


def cli(root: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`cardvault --vault ROOT ARGS` in a fresh interpreter (through the console entry point)."""
    return subprocess.run(
        [sys.executable, "-m", "cardvault", "--vault", str(root), *args],
        capture_output=True, text=True, env=cli_env(), cwd=cwd, timeout=scaled(300),
    )  # fmt: skip


def outcome(done: subprocess.CompletedProcess[str]) -> tuple[int, str, str]:
    """What a command showed: exit code, stdout, stderr."""
    return done.returncode, done.stdout, done.stderr


@contextlib.contextmanager
def running_server(root: Path, idle_minutes: float = 10) -> Iterator[subprocess.Popen[bytes]]:
    """`cardvault serve` in the foreground as a child process, once it answers; stopped after."""
    log = (root.parent / f"serve-{time.monotonic_ns()}.log").open("wb")
    command = [sys.executable, "-m", "cardvault", "--vault", str(root), "serve"]
    process = subprocess.Popen(
        [*command, "--idle-timeout", str(idle_minutes)], stdout=log, stderr=log, env=cli_env()
    )
    try:
        wait_for_status(root, process)
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(scaled(20))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()


def wait_for_status(root: Path, process: subprocess.Popen[bytes] | None = None) -> ServerStatus:
    """The server's status once it answers (fails if the process ends first)."""
    deadline = time.monotonic() + scaled(180)
    while time.monotonic() < deadline:
        status = server_status(root)
        if status is not None:
            return status
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the server exited with {process.returncode}")
        time.sleep(0.05)
    raise AssertionError("the server never answered")


def requests_served(root: Path) -> int:
    """How many commands the running server has answered."""
    status = server_status(root)
    assert status is not None
    return status.requests


@contextlib.contextmanager
def fake_server(root: Path, reply: Callable[[dict[str, Any]], bytes]) -> Iterator[list[dict]]:
    """A socket at the vault's serve path, owned by this user, mode 0600, answering every
    request with `reply(request)`; yields the requests it received."""
    path = socket_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)  # the server's rule: a private socket in a private folder
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with address(path) as where:
        listener.bind(where)
    os.chmod(path, 0o600)
    listener.listen(4)
    received: list[dict[str, Any]] = []

    def loop() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                data = b""
                while chunk := conn.recv(65536):
                    data += chunk
                request = json.loads(data)
                received.append(request)
                with contextlib.suppress(OSError):
                    conn.sendall(reply(request))

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield received
    finally:
        listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        thread.join(5)
        path.unlink(missing_ok=True)


def run_in_terminal(
    argv: list[str], cwd: Path, columns: int = 120, typed: bytes = b""
) -> tuple[int, bytes]:
    """Run `argv` with stdin, stdout and stderr on a pseudo-terminal, `typed` written to it as a
    person would type; exit code and bytes shown."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = cli_env(TERM="xterm-256color")
    for name in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "COLORTERM"):
        env.pop(name, None)
    process = subprocess.Popen(argv, cwd=cwd, stdin=follower, stdout=follower, stderr=follower,
                               env=env)  # fmt: skip
    os.close(follower)
    os.write(leader, typed)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return process.wait(scaled(60)), shown
