"""How `cardvault serve` answers a CLI request: the real command, in a session lent by the server.

The command runs in the server as it would in the caller's process: the same typer app, with
stdout and stderr captured as the caller's terminal would take them (tty, encoding, width and
colour variables), in a session the server lends (the caller's environment, the server's warm
handles) in place of the one the root callback would have made.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from cardvault.app import Session
    from cardvault.serve.protocol import RunRequest


class Command(Protocol):
    """The `cardvault` command group as click runs it (`ctx.find_root().command`)."""

    def main(self, *args: Any, **extra: Any) -> Any: ...


def answer(
    command: Command, request: RunRequest, session: Session
) -> tuple[int, list[tuple[int, str]]]:
    """Run `request.argv` with `command` (the `cardvault` group) in `session`: its exit code
    and what it printed, as (stream number, text) pieces."""
    from contextlib import redirect_stderr, redirect_stdout

    from cardvault.cli import render

    output: list[tuple[int, str]] = []
    out = _CapturedStream(1, output, request.stdout_tty, request.encoding)
    err = _CapturedStream(2, output, request.stderr_tty, request.encoding)
    with render.environment(session.env), redirect_stdout(out), redirect_stderr(err):
        try:
            command.main(
                args=request.argv, prog_name=request.prog, obj=session, standalone_mode=True,
                terminal_width=_columns(session.env),
            )  # fmt: skip
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return code, output


def _columns(env: Mapping[str, str]) -> int | None:
    """The caller's $COLUMNS for help text, or None (click's default)."""
    try:
        columns = int(env.get("COLUMNS", ""))
    except ValueError:
        return None
    return columns if columns > 0 else None  # 0: a pseudo-terminal that knows no size


class _CapturedStream(io.TextIOBase):
    """A text stream that records what is written to it, posing as the caller's stream."""

    def __init__(self, number: int, log: list[tuple[int, str]], tty: bool, encoding: str):
        super().__init__()
        self._number = number
        self._log = log
        self._tty = tty
        self._encoding = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding

    @property
    def errors(self) -> str:  # type: ignore[override]
        return "strict"

    def isatty(self) -> bool:
        return self._tty

    def writable(self) -> bool:  # io.TextIOBase says False; click and rich may ask
        return True

    def write(self, text: str | bytes) -> int:
        """Record `text` (bytes, which click writes at times, decoded as the caller would)."""
        if isinstance(text, bytes):
            text = text.decode(self._encoding, "replace")
        if text:
            self._log.append((self._number, text))
        return len(text)
