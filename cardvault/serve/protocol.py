"""The resident process's socket and messages: where they live and what a valid one is.

Standard library only, and none of its slow-to-import parts (dataclasses, secrets): the CLI's
fast path imports this before anything else.

One exchange per connection: the client sends one JSON object and half-closes, the server
answers one and closes. Every message carries the protocol version `v` and the request's random
`id`; an answer is accepted only if both match and it names the vault asked about and comes
from the same install, so a stale or foreign process can never pass off a wrong answer.

Requests (`op`): `run` (a `RunRequest`'s fields: run one CLI command), `status`, `stop`.
Answers: `{"ok": true, ...}` with `code` and `output` for `run` (what the command wrote, as
`[stream, text]` pairs in the order written: 1 stdout, 2 stderr), or
`{"ok": false, "error": "..."}`.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from cardvault.vault.confine import read_upto

PROTOCOL = 1
SOCKET_NAME = "serve.sock"
LOCK_NAME = "serve.lock"
LOG_NAME = "serve.log"
#: Commands the resident process answers; everything else runs in the calling process.
RESIDENT_COMMANDS = frozenset({"search", "context"})
#: Environment variables a command's output depends on, passed with each request.
CLIENT_ENV = (
    "CARDVAULT_NOW", "CARDVAULT_AGENT", "CARDVAULT_HOME", "HOME", "XDG_DATA_HOME",
    "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE",
    "COLUMNS", "LINES",
)  # fmt: skip
#: The longest socket path bind/connect accept (sun_path is 108 bytes on Linux, 104 on macOS).
_MAX_ADDRESS = 100


def install() -> str:
    """This install of cardvault (package folder and Python environment): two installs of one
    version answer only themselves."""
    return f"{Path(__file__).resolve().parents[1]}|{sys.prefix}"


class ProtocolError(Exception):
    """A message that is not JSON of the expected shape."""


class RunRequest(NamedTuple):
    """One CLI command for the resident process: argv without global options, the client's
    CLIENT_ENV, its streams, and the program name usage lines show."""

    argv: list[str]
    env: dict[str, str]
    stdout_tty: bool
    stderr_tty: bool
    encoding: str
    prog: str = "cardvault"


class RunResult(NamedTuple):
    """The command's exit code and what it wrote: (1 for stdout or 2 for stderr, text) pairs."""

    code: int
    output: list[tuple[int, str]]

    def text(self, stream: int) -> str:
        """Everything written to `stream` (1 or 2)."""
        return "".join(text for number, text in self.output if number == stream)


def cache_dir(root: Path) -> Path:
    """The vault's derived-files folder (`.cardvault/`)."""
    return root / ".cardvault"


def socket_path(root: Path) -> Path:
    """Where the vault's resident process listens."""
    return cache_dir(root) / SOCKET_NAME


def lock_path(root: Path) -> Path:
    """The file a running server holds locked, its pid inside."""
    return cache_dir(root) / LOCK_NAME


def new_id() -> str:
    """A fresh random request id (os.urandom: the `secrets` module costs 9 ms to import)."""
    return os.urandom(8).hex()


def encode(message: dict[str, Any]) -> bytes:
    """One message as a line on the wire."""
    return json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n"


def decode(data: bytes) -> dict[str, Any]:
    """A message from the wire; ProtocolError unless it is a JSON object of this protocol."""
    try:
        message = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError(f"not JSON: {exc}") from exc
    if not isinstance(message, dict) or message.get("v") != PROTOCOL:
        raise ProtocolError("not a cardvault serve message of this version")
    if not isinstance(message.get("id"), str):
        raise ProtocolError("message without an id")
    return message


def receive(conn: socket.socket, limit: int) -> bytes:
    """Everything the peer sends until it closes its side (ProtocolError past `limit` bytes)."""
    data = read_upto(conn.recv, limit)
    if len(data) > limit:
        raise ProtocolError(f"message longer than {limit} bytes")
    return data


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _text_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(item, str) for item in value.values())


#: The fields of a `run` message, in RunRequest's order, each with the test its value passes.
_RUN_FIELDS = {
    "argv": _strings, "env": _text_map,
    "stdout_tty": lambda value: isinstance(value, bool),
    "stderr_tty": lambda value: isinstance(value, bool),
    "encoding": lambda value: isinstance(value, str), "prog": lambda value: isinstance(value, str),
}  # fmt: skip


def run_request(message: dict[str, Any]) -> RunRequest:
    """The RunRequest inside a `run` message (ProtocolError when a field has the wrong type)."""
    for name, valid in _RUN_FIELDS.items():
        if not valid(message.get(name)):
            raise ProtocolError(f"{name} has the wrong type")
    request = RunRequest(**{name: message[name] for name in _RUN_FIELDS})
    return request._replace(env={k: v for k, v in request.env.items() if k in CLIENT_ENV})


def run_result(answer: dict[str, Any]) -> RunResult:
    """The RunResult inside an answer (ProtocolError when a field has the wrong type)."""
    code, output = answer.get("code"), answer.get("output")
    if type(code) is not int or not isinstance(output, list):
        raise ProtocolError("a run answer needs an integer code and an output list")
    chunks: list[tuple[int, str]] = []
    for chunk in output:
        if not (isinstance(chunk, list) and len(chunk) == 2 and chunk[0] in (1, 2)):
            raise ProtocolError("output chunks are [1 or 2, text]")
        if not isinstance(chunk[1], str):
            raise ProtocolError("output text must be a string")
        chunks.append((chunk[0], chunk[1]))
    return RunResult(code, chunks)


def foreign_peer(conn: socket.socket) -> bool:
    """Whether the process at the other end runs as another user (Linux's SO_PEERCRED; False
    where the system cannot tell)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return False
    import struct

    creds = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1] != os.getuid()


@contextlib.contextmanager
def address(path: Path) -> Iterator[str]:
    """A path bind/connect accept for `path`: itself, or through /proc/self/fd when too long."""
    text = os.fsencode(path)
    if len(text) <= _MAX_ADDRESS:
        yield str(path)
        return
    if not sys.platform.startswith("linux"):
        raise OSError(f"socket path too long: {path}")
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{fd}/{path.name}"
    finally:
        os.close(fd)
