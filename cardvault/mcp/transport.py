"""The MCP server's stdio transport: the SDK's own pieces, with every message bounded and answered.

The SDK's `stdio_server` reads each line whole however long it is, drops a line that is not a
JSON-RPC message without an answer (the client waits forever), and dies with its writer task
when an answer cannot be encoded. This transport keeps the SDK's message types, adapter and
memory streams and changes only the two ends:

- the reader keeps at most `MCP_MESSAGE` of a line (a longer one is skipped to its newline
  and answered -32600), and answers a line that is not UTF-8 or JSON -32700, JSON that is not
  JSON-RPC -32600 (-32602 when only its `params` are wrong), with the request's id when it
  can be read, else `null`, as JSON-RPC 2.0 says;
- the writer turns an answer it cannot encode into a -32603 error for that request;
- at the end of stdin the reader waits until every request it passed on is answered
  (`Unanswered`), so a client that writes a request and closes its end still gets the answer.

While serving, fd 0 reads /dev/null and fd 1 writes to stderr, so no process a tool starts can
read the requests or write into the answers.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp.types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from cardvault.app.served import json_loads
from cardvault.limits import MCP_MESSAGE

CHUNK = 1 << 16
_SKIP_CHUNK = 1 << 20
#: An id written first (as the SDK's clients write it): read from an oversized message's head.
_LEADING_ID = re.compile(
    rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")'
)

Incoming = SessionMessage | Exception


@dataclass(frozen=True)
class Oversized:
    """A line longer than the limit, skipped: its size and its first bytes (for its id)."""

    size: int
    head: bytes


class BoundedLines:
    """The lines of a file descriptor, each at most `limit` bytes kept in memory."""

    def __init__(self, fd: int, limit: int = MCP_MESSAGE) -> None:
        self.fd, self.limit = fd, limit
        self.buffer = bytearray()
        self.scanned = 0  # bytes of the buffer known to hold no newline
        self.eof = False

    async def _read(self, size: int) -> bytes:
        return await anyio.to_thread.run_sync(os.read, self.fd, size, abandon_on_cancel=True)

    async def next(self) -> bytes | Oversized | None:
        """The next line (without its newline), an Oversized, or None at the end."""
        while True:
            newline = self.buffer.find(b"\n", self.scanned)
            if newline >= 0:
                line = bytes(self.buffer[:newline])
                del self.buffer[: newline + 1]
                self.scanned = 0
                return line
            self.scanned = len(self.buffer)
            if len(self.buffer) > self.limit:
                return await self._skip()
            if self.eof:
                line, self.buffer, self.scanned = bytes(self.buffer), bytearray(), 0
                return line or None
            chunk = await self._read(CHUNK)
            if chunk:
                self.buffer += chunk
            else:
                self.eof = True

    async def _skip(self) -> Oversized:
        """Drop the rest of the current line, reading (not keeping) up to its newline."""
        size, head = len(self.buffer), bytes(self.buffer[:4096])
        self.buffer, self.scanned = bytearray(), 0
        while True:
            chunk = await self._read(_SKIP_CHUNK)
            if not chunk:
                self.eof = True
                return Oversized(size, head)
            newline = chunk.find(b"\n")
            if newline >= 0:
                self.buffer += chunk[newline + 1 :]
                return Oversized(size + newline, head)
            size += len(chunk)


class Unanswered:
    """The ids of the requests passed to the server and not answered yet."""

    def __init__(self) -> None:
        self.ids: Counter[str | int] = Counter()

    def asked(self, message: SessionMessage) -> None:
        """Count a request passed on; a cancellation (no answer follows it) settles its id."""
        inner = message.message
        if isinstance(inner, JSONRPCRequest):
            self.ids[inner.id] += 1
        elif isinstance(inner, JSONRPCNotification) and inner.method == "notifications/cancelled":
            self._settle((inner.params or {}).get("requestId"))

    def answered(self, message: SessionMessage) -> None:
        """Settle the request an answer is for."""
        inner = message.message
        if isinstance(inner, JSONRPCResponse | JSONRPCError):
            self._settle(inner.id)

    def _settle(self, request_id: object) -> None:
        if isinstance(request_id, str | int) and self.ids.get(request_id):
            self.ids[request_id] -= 1
            self.ids += Counter()  # drops the ids at zero

    async def all_answered(self) -> None:
        """Return once every request counted has its answer."""
        while self.ids:
            await anyio.sleep(0.05)


def read_message(line: bytes | Oversized) -> SessionMessage | JSONRPCError | None:
    """What one line of the wire is: a message for the server, the error answering it, or
    None (a blank line)."""
    if isinstance(line, Oversized):
        limit = f"{MCP_MESSAGE:,}"
        why = f"Invalid Request: message is over the {limit}-byte limit"
        return _error(leading_id(line.head), INVALID_REQUEST, why)
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return _error(leading_id(line), PARSE_ERROR, "Parse error: the message is not UTF-8 text")
    if not text.strip():
        return None
    try:
        message = jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as exc:
        return _invalid(text, exc)
    if isinstance(message, JSONRPCNotification) and '"id"' in text and "id" in _object(text):
        # an id that is neither text nor a number (`true`, an object): the SDK would take
        # the request for a notification and never answer it
        return _error(None, INVALID_REQUEST, "Invalid Request: id must be a string or a number")
    return SessionMessage(message)


def _object(text: str) -> dict[str, Any]:
    """`text` as a JSON object, else {} (JSON the SDK's parser read is shallow enough for this
    one)."""
    try:
        data = json_loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _invalid(text: str, exc: ValidationError) -> JSONRPCError:
    """The answer to a line that is not a valid JSON-RPC message."""
    errors = exc.errors(include_url=False, include_input=False)
    if any(error["type"] == "json_invalid" for error in errors):
        reason = str(errors[0].get("msg", "invalid JSON"))[:200]
        return _error(leading_id(text.encode()), PARSE_ERROR, f"Parse error: {reason}")
    data = _object(text)
    request_id = data.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        request_id = None
    if request_id is not None and isinstance(data.get("method"), str):
        request_locs = [e["loc"] for e in errors if e["loc"][:1] == ("JSONRPCRequest",)]
        if request_locs and all(loc[1:2] == ("params",) for loc in request_locs):
            return _error(request_id, INVALID_PARAMS, "Invalid params: must be an object")
    return _error(request_id, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")


def leading_id(head: bytes) -> str | int | None:
    """The id of a message that cannot be parsed, when it is written first (`{"jsonrpc": "2.0",
    "id": 7, ...`, as the SDK's clients write it): the client's request then gets its answer
    instead of waiting. None when it is not there (JSON-RPC's `"id": null`)."""
    match = _LEADING_ID.match(head[:4096])
    if match is None:
        return None
    try:
        value = json.loads(match.group(1))
    except ValueError:
        return None
    return value if isinstance(value, str | int) else None


def _error(request_id: str | int | None, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))


def encode(message: SessionMessage) -> bytes:
    """One line of the wire for `message`; an answer that cannot be encoded becomes an
    INTERNAL_ERROR for its request (b"" for anything else: nothing is sent)."""
    try:
        text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
    except (ValueError, UnicodeError) as exc:  # PydanticSerializationError is a ValueError
        inner = message.message
        if not isinstance(inner, JSONRPCResponse | JSONRPCError) or inner.id is None:
            print(f"cardvault mcp: a message could not be encoded: {exc}", file=sys.stderr)
            return b""
        failed = _error(
            inner.id, INTERNAL_ERROR, "the answer could not be encoded (text not valid Unicode)"
        )
        text = failed.model_dump_json(by_alias=True, exclude_unset=True)
    return text.encode("utf-8") + b"\n"


@contextlib.asynccontextmanager
async def bounded_stdio() -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[Incoming], MemoryObjectSendStream[SessionMessage]]
]:
    """The (read, write) streams the SDK's server loop serves over the process's stdin and
    stdout (see the module docstring)."""
    with _claimed(0, os.O_RDONLY) as wire_in, _claimed(1, os.O_WRONLY) as wire_out:
        read_send, read_recv = anyio.create_memory_object_stream[Incoming](0)
        write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
        answers = write_send.clone()  # the reader's own answers to what it cannot pass on
        unanswered = Unanswered()

        async def reader() -> None:
            lines = BoundedLines(wire_in)
            async with read_send, answers:
                while (line := await lines.next()) is not None:
                    outcome = read_message(line)
                    if isinstance(outcome, JSONRPCError):
                        await answers.send(SessionMessage(outcome))
                    elif outcome is not None:
                        unanswered.asked(outcome)
                        await read_send.send(outcome)
                await unanswered.all_answered()

        async def writer() -> None:
            async with write_recv:
                async for message in write_recv:
                    unanswered.answered(message)
                    data = encode(message)
                    if data:
                        await anyio.to_thread.run_sync(_write_all, wire_out, data)

        async with anyio.create_task_group() as group:
            group.start_soon(reader)
            group.start_soon(writer)
            yield read_recv, write_send


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


@contextlib.contextmanager
def _claimed(fd: int, mode: int) -> Iterator[int]:
    """A private copy of the standard descriptor `fd` for the wire, with `fd` itself pointed
    at /dev/null (stdin) or stderr (stdout) until the server stops."""
    private = os.dup(fd)
    try:
        os.set_inheritable(private, False)
        diversion = os.open(os.devnull, mode) if fd == 0 else os.dup(2)
        os.dup2(diversion, fd)
        os.close(diversion)
    except OSError:
        os.close(private)
        yield fd  # cannot divert here: serve the descriptor in place
        return
    try:
        yield private
    finally:
        os.dup2(private, fd)
        if fd != 0:  # a reader thread may still block on the copy of stdin: never reuse it
            os.close(private)
