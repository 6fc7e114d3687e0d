"""Helpers for the MCP tests: `cardvault mcp` started as a real subprocess, driven by the SDK's
own stdio client."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.support.machine import scaled

NOW = "2026-11-30T09:00"


def server_params(root: Path, command: Sequence[str] | None = None) -> StdioServerParameters:
    """How the client starts the server: `python -m cardvault mcp --vault ROOT` by default."""
    argv = list(command or [sys.executable, "-m", "cardvault", "mcp", "--vault", str(root)])
    env = {**os.environ, "CARDVAULT_NOW": NOW}
    return StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=str(root))


@contextlib.asynccontextmanager
async def connected(
    root: Path, command: Sequence[str] | None = None
) -> AsyncIterator[ClientSession]:
    """An initialized client session with a fresh server process for the vault at `root`."""
    errlog = (root.parent / "mcp-server.log").open("a")
    try:
        async with (
            stdio_client(server_params(root, command), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session
    finally:
        errlog.close()


def text_of(result: Any) -> str:
    """The text of a tool result's first content block."""
    return str(result.content[0].text)


def server_pids(root: Path) -> list[int]:
    """Pids of running `cardvault mcp` processes serving `root` (read from /proc)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"mcp" in argv and os.fsencode(root) in argv:
            pids.append(int(entry.name))
    return pids


def peak_mb(pid: int) -> float:
    """The peak resident memory (VmHWM) of process `pid` so far, in MB; 0 once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def mapped_files(pid: int, suffix: str) -> list[str]:
    """The distinct memory mappings of files ending in `suffix` in process `pid`."""
    lines = Path(f"/proc/{pid}/maps").read_text().splitlines()
    return [line for line in lines if line.endswith(suffix)]


def initialize_lines() -> list[dict[str, Any]]:
    """The handshake a client opens a session with: `initialize`, then `initialized`."""
    hello = {"protocolVersion": "2025-06-18", "capabilities": {},
             "clientInfo": {"name": "tests", "version": "1"}}  # fmt: skip
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]


def tool_call(request_id: int, name: str, **arguments: Any) -> dict[str, Any]:
    """A `tools/call` request."""
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def served_at_once(root: Path, messages: Sequence[dict[str, Any]]) -> tuple[int, list[Any]]:
    """`cardvault mcp` fed `messages` as lines, its stdin closed right after them, as a client
    that sends its last request and hangs up: the exit code and every answer it wrote."""
    import json
    import subprocess

    data = "".join(json.dumps(message) + "\n" for message in messages)
    params = server_params(root)
    done = subprocess.run(
        [params.command, *params.args], input=data.encode(), capture_output=True,
        env=params.env, cwd=params.cwd, timeout=scaled(300),
    )  # fmt: skip
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines() if line]
