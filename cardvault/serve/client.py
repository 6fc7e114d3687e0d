"""Asking a vault's resident process a question, and trusting the answer only when it is ours.

The socket must be this user's and closed to everyone else, the process behind it must run as
this user (SO_PEERCRED where the system has it), and the answer must carry this request's id,
this vault's root, this cardvault's version and install. Anything else (no socket, a dead
server, a foreign or garbled answer, a timeout) gives None: the caller runs the command itself.
"""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path
from typing import Any

from cardvault import __version__
from cardvault.limits import SERVE_ANSWER
from cardvault.serve.protocol import (
    PROTOCOL,
    ProtocolError,
    RunRequest,
    RunResult,
    address,
    decode,
    encode,
    foreign_peer,
    install,
    new_id,
    receive,
    run_result,
    socket_path,
)

CONNECT_TIMEOUT = 1.0
#: A search that must first embed many changed cards can take a while; past this, run locally.
ANSWER_TIMEOUT = 60.0


def trusted(path: Path) -> bool:
    """Whether `path` is a socket (not a link to one) owned by this user, closed to others, in
    a folder that is this user's and closed to others too (nobody else can swap it)."""
    try:
        info, folder = os.lstat(path), os.lstat(path.parent)
    except OSError:
        return False
    mine = info.st_uid == folder.st_uid == os.getuid()
    closed = not (info.st_mode | folder.st_mode) & 0o077
    return stat.S_ISSOCK(info.st_mode) and stat.S_ISDIR(folder.st_mode) and mine and closed


def exchange(
    root: Path, message: dict[str, Any], timeout: float = ANSWER_TIMEOUT
) -> dict[str, Any] | None:
    """Send `message` to the server of the vault at `root` (resolved); its answer, or None."""
    path = socket_path(root)
    if not trusted(path):
        return None
    request = {"v": PROTOCOL, "id": new_id(), "root": str(root), **message}
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(CONNECT_TIMEOUT)
            with address(path) as where:
                conn.connect(where)
            if foreign_peer(conn):
                return None
            conn.settimeout(timeout)
            conn.sendall(encode(request))
            conn.shutdown(socket.SHUT_WR)
            answer = decode(receive(conn, SERVE_ANSWER))
    except (OSError, ProtocolError):
        return None
    genuine = (
        answer["id"] == request["id"]
        and answer.get("root") == str(root)
        and answer.get("version") == __version__
        and answer.get("install") == install()
    )
    return answer if genuine else None


def run(root: Path, request: RunRequest, timeout: float = ANSWER_TIMEOUT) -> RunResult | None:
    """Have the resident process run one CLI command; None when it cannot be trusted to."""
    answer = exchange(root, {"op": "run", **request._asdict()}, timeout)
    if answer is None or answer.get("ok") is not True:
        return None
    try:
        return run_result(answer)
    except ProtocolError:
        return None
