"""How `cardvault serve` answers a CLI request: the real command, in a session lent by the server.

The command runs in the server exactly as it would in the caller's process: the same typer app
and argument parsing, with stdout and stderr captured as the caller's terminal would take them
(whether each is a terminal, the encoding, the caller's width and colour variables). The
session it runs in (`cardvault.app.Session`) reads the caller's environment (CARDVAULT_NOW, the
agent, where the global vault is) from the request, never from this process's `os.environ`, and
searches through the server's warm handles, whose model and tokenizer stay loaded; the index is
brought up to date by every search as usual, so an edited card is found by the next one. A
changed cardvault.toml (another model, other categories) opens the vault afresh.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from cardvault.app import Session
from cardvault.search.warm import WarmHandles
from cardvault.serve.protocol import CLIENT_ENV, RunRequest, RunResult


class Command(Protocol):
    """The `cardvault` command group as click runs it (`ctx.find_root().command`)."""

    def main(self, *args: Any, **extra: Any) -> Any: ...


class ResidentCli:
    """The CLI commands of one vault, answered in this long-lived process."""

    def __init__(self, root: Path, command: Command) -> None:
        self.root = root
        self.warm = WarmHandles()
        self._command = command  # the `cardvault` group, as the caller's process would run it

    def session(self, env: dict[str, str]) -> Session:
        """The session one request runs in: the caller's environment, the server's handles."""
        caller = {k: v for k, v in os.environ.items() if k not in CLIENT_ENV} | env
        return Session(self.root, env=caller, handles=self.warm)

    def warm_up(self) -> tuple[str, ...]:
        """Sync the index and load the model now, not at the first request (`Session.warm_up`)."""
        return self.session(dict(os.environ)).warm_up()

    def answer(self, request: RunRequest) -> RunResult:
        """Run `request.argv` as `cardvault <argv>` would in the caller's process."""
        from contextlib import redirect_stderr, redirect_stdout

        from cardvault.cli import render

        output: list[tuple[int, str]] = []
        out = _CapturedStream(1, output, request.stdout_tty, request.encoding)
        err = _CapturedStream(2, output, request.stderr_tty, request.encoding)
        session = self.session(request.env)
        with render.environment(session.env), redirect_stdout(out), redirect_stderr(err):
            code = self._invoke(request, session)
        return RunResult(code, output)

    def _invoke(self, request: RunRequest, session: Session) -> int:
        try:
            self._command.main(
                args=request.argv, prog_name=request.prog, obj=session, standalone_mode=True,
                terminal_width=_columns(session.env),
            )  # fmt: skip
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        return 0


def _columns(env: Mapping[str, str]) -> int | None:
    """The caller's terminal width for help text ($COLUMNS), or None: click's default."""
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

    def writable(self) -> bool:
        return True

    def write(self, text: str | bytes) -> int:
        """Record `text` (bytes, which click writes at times, are decoded as the caller would)."""
        if isinstance(text, bytes):
            text = text.decode(self._encoding, "replace")
        if text:
            self._log.append((self._number, text))
        return len(text)
