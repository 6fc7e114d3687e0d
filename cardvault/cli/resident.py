"""How `cardvault serve` answers a CLI request: the real command, run on a warm `VaultHandle`.

The command runs in the server exactly as it would in the caller's process: the same typer app
and argument parsing, with stdout and stderr captured as the caller's terminal would take them
(whether each is a terminal, the encoding, the caller's width and colour variables) and the
caller's CARDVAULT_NOW. The only difference is that `vault_of` gives the server's vault and the
commands search through the server's handle, whose model and tokenizer stay loaded; the index
is brought up to date by every search as usual, so an edited card is found by the next one.
A changed cardvault.toml (another model, other categories) opens the vault afresh.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cardvault.api import WarmHandles
from cardvault.serve.protocol import CLIENT_ENV, RunRequest, RunResult

WARM_UP_QUERY = "warm up the search index and model"


class ResidentCli:
    """The CLI commands of one vault, answered in this long-lived process."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.warm = WarmHandles()
        from typer.main import get_command

        from cardvault.cli.app import app

        self._command = get_command(app)

    def warm_up(self) -> tuple[str, ...]:
        """Sync the index and load the model now, not at the first request, for this vault and
        the global vault (a default `--scope all` search reads both); notices to show."""
        from cardvault.scopes.home import global_vault

        notices = self.warm.handle(self.root).query(WARM_UP_QUERY, k=1).notices
        shared = global_vault()
        if shared is not None and shared.root != self.root:
            self.warm.handle(shared.root).query(WARM_UP_QUERY, k=1)
        # What is loaded now lives as long as the process: keep it out of the garbage
        # collector's scans, which otherwise cost a share of every request.
        gc.freeze()
        return notices

    def answer(self, request: RunRequest) -> RunResult:
        """Run `request.argv` as `cardvault <argv>` would in the caller's process."""
        output: list[tuple[int, str]] = []
        out = _CapturedStream(1, output, request.stdout_tty, request.encoding)
        err = _CapturedStream(2, output, request.stderr_tty, request.encoding)
        with (
            _caller_env(request.env),
            _fresh_consoles(),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            code = self._invoke(request.argv, request.prog)
        return RunResult(code, output)

    def _invoke(self, argv: list[str], prog: str) -> int:
        try:
            self._command.main(
                args=argv, prog_name=prog, obj={"served": self.root, "handles": self.warm},
                standalone_mode=True,
            )  # fmt: skip
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        return 0


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


@contextlib.contextmanager
def _caller_env(env: dict[str, str]) -> Iterator[None]:
    """The caller's values of CLIENT_ENV (set or unset) for the duration of one command."""
    saved = {name: os.environ.get(name) for name in CLIENT_ENV}
    try:
        for name in CLIENT_ENV:
            _set_env(name, env.get(name))
        yield
    finally:
        for name, value in saved.items():
            _set_env(name, value)


def _set_env(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


@contextlib.contextmanager
def _fresh_consoles() -> Iterator[Any]:
    """rich consoles made for this command's streams and environment, dropped afterwards."""
    from cardvault.cli import render

    render.console.cache_clear()
    render.err_console.cache_clear()
    try:
        yield
    finally:
        render.console.cache_clear()
        render.err_console.cache_clear()
