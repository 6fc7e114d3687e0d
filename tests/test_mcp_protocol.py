"""The MCP server answers every message and keeps serving, in bounded memory.

`cardvault mcp` runs as a real process; raw bytes go to its stdin, one line each (what a broken
or hostile client can send), and its stdout is read line by line with a deadline. Every
malformed message gets a JSON-RPC error with the standard code — -32700 parse error (not JSON,
not UTF-8, a lone surrogate, nesting past the parser's depth), -32600 invalid request (JSON that
is no JSON-RPC message, a message over the size limit), -32602 invalid params — carrying the
request's id when it leads the message; a `ping` right after each is answered, and a real tool
call at the end still writes. The server's peak memory (VmHWM, read from /proc while it runs) is
asserted under 500 MB after a 60 MB line: a correctness bound (the line is never held whole),
not a timing. The SDK's own stdio client is used too: a tool call over the limit comes back as
an error instead of leaving the client waiting.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.machine import scaled
from tests.support.mcp import NOW, connected, peak_mb

DEADLINE = scaled(60.0)
INIT = {
    "jsonrpc": "2.0", "id": 0, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "raw", "version": "1"}},
}  # fmt: skip


class RawServer:
    """`cardvault mcp` with pipes on both ends, driven a line at a time."""

    def __init__(self, root: Path) -> None:
        env = {**os.environ, "CARDVAULT_NOW": NOW}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cardvault", "mcp", "--vault", str(root)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=root, env=env,
        )  # fmt: skip
        self.peak = 0.0
        self.pending = b""

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        for start in range(0, len(data), 1 << 20):  # in pieces, sampling memory on the way
            self.proc.stdin.write(data[start : start + (1 << 20)])
            self.peak = max(self.peak, peak_mb(self.proc.pid))
        self.proc.stdin.write(b"\n")
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        """The next line the server writes, parsed (fails after DEADLINE seconds)."""
        assert self.proc.stdout is not None
        out = self.proc.stdout.fileno()
        deadline = time.monotonic() + DEADLINE
        while b"\n" not in self.pending:
            self.peak = max(self.peak, peak_mb(self.proc.pid))
            left = deadline - time.monotonic()
            assert left > 0, "no answer"
            if select.select([out], [], [], min(left, 0.2))[0]:
                chunk = os.read(out, 1 << 16)
                assert chunk, "the server closed its output"
                self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def ask(self, message: dict[str, Any] | bytes) -> dict[str, Any]:
        self.send(message if isinstance(message, bytes) else json.dumps(message).encode())
        return self.answer()

    def still_serving(self, number: int) -> None:
        assert self.ask({"jsonrpc": "2.0", "id": number, "method": "ping"}) == {
            "jsonrpc": "2.0", "id": number, "result": {}
        }  # fmt: skip

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=DEADLINE)
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        return code


@pytest.fixture
def server(vault_path: Path):  # type: ignore[no-untyped-def]
    raw = RawServer(vault_path)
    try:
        assert raw.ask(INIT)["id"] == 0
        raw.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        yield raw
    finally:
        if raw.proc.poll() is None:
            raw.proc.kill()
            raw.proc.wait()
        for stream in (raw.proc.stdin, raw.proc.stdout):
            if stream is not None and not stream.closed:
                stream.close()


CALL = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read","arguments":'
CASES = [
    ("truncated JSON", b'{"jsonrpc":"2.0","id":11,"method":"ping"', -32700, 11),
    ("not JSON at all", b"hello there", -32700, None),
    ("not UTF-8", b'{"jsonrpc":"2.0","id":12,"method":"ping","x":"\xff\xfe"}', -32700, 12),
    ("a lone surrogate", CALL % 13 + b'{"name":"\\ud800"}}}', -32700, 13),
    ("a low surrogate alone", CALL % 14 + b'{"name":"a\\udc00b"}}}', -32700, 14),
    ("nested 100,000 deep", CALL % 15 + b"[" * 100_000 + b"]" * 100_000 + b"}}", -32700, 15),
    ("an array (a batch)", b"[1, 2, 3]", -32600, None),
    ("no method", b'{"jsonrpc":"2.0","id":16}', -32600, 16),
    ("wrong version", b'{"jsonrpc":"1.0","id":17,"method":"ping"}', -32600, 17),
    ("params not an object", b'{"jsonrpc":"2.0","id":18,"method":"tools/call","params":5}',
     -32602, 18),
    ("params missing the tool", b'{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{}}',
     -32602, 19),
    ("an unknown method", b'{"jsonrpc":"2.0","id":20,"method":"no/such","params":{}}',
     -32601, 20),
    ("a number that is no id", b'{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600, None),
]  # fmt: skip


def test_each_malformed_message_is_answered_with_its_code(server: RawServer) -> None:
    """One server, the cases one after another: each answered, the server still serving."""
    for name, line, code, request_id in CASES:
        reply = server.ask(line)
        assert reply["jsonrpc"] == "2.0" and reply["error"]["code"] == code, (name, reply)
        assert reply["id"] == request_id, (name, reply)
        server.still_serving(99)
    assert server.close() == 0


def test_a_60_mb_line_is_refused_in_bounded_memory_and_serving_goes_on(
    server: RawServer, vault_path: Path
) -> None:
    text = b"a" * 60_000_000
    huge = CALL.replace(b'"read"', b'"remember"') % 21 + b'{"text":"' + text + b'"}}}'
    reply = server.ask(huge)
    assert reply["id"] == 21 and reply["error"]["code"] == -32600
    assert "over the 8,388,608-byte limit" in reply["error"]["message"]
    server.still_serving(22)
    done = server.ask(CALL.replace(b'"read"', b'"remember"') % 23 + b'{"text":"still here"}}}')
    assert done["id"] == 23 and done["result"]["isError"] is False
    assert "Lesson: still here" in (vault_path / f"memory/{NOW[:10]}.md").read_text()
    assert server.peak < 500, f"peak {server.peak:.0f} MB"  # the 60 MB are never held whole
    assert server.close() == 0


def test_many_bad_lines_in_a_row_then_a_clean_close(server: RawServer) -> None:
    for number in range(200):
        assert server.ask(b"{" * (number % 7 + 1))["error"]["code"] == -32700
    server.still_serving(7)
    started = time.monotonic()
    assert server.close() == 0
    assert time.monotonic() - started < DEADLINE


def test_blank_lines_are_skipped_and_a_cut_last_line_ends_cleanly(server: RawServer) -> None:
    assert server.proc.stdin is not None
    server.proc.stdin.write(b"\n\n   \n")
    server.still_serving(31)
    server.proc.stdin.write(b'{"jsonrpc":"2.0","id":32,"method":"pi')  # the client died mid-line
    server.proc.stdin.close()
    assert server.proc.wait(timeout=DEADLINE) == 0


def test_the_sdk_client_gets_an_error_for_a_call_over_the_limit(vault_path: Path) -> None:
    from mcp.shared.exceptions import MCPError

    async def scenario() -> None:
        async with connected(vault_path) as client:
            with anyio.fail_after(DEADLINE):
                with pytest.raises(MCPError) as refused:
                    await client.call_tool("remember", {"text": "x" * 9_000_000})
            assert refused.value.error.code == -32600
            assert not (await client.call_tool("remember", {"text": "small"})).is_error

    anyio.run(scenario)
