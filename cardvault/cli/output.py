"""`--json` and `--quiet` on every command, given in one place (not per command).

`add_output_options` gives each command, when the app's group first resolves it, what it lacks:
- `--quiet`: nothing on stdout, and only errors on stderr; the exit code is the command's own;
- `--json`: what the command would have said, as one JSON object on stdout: `{"ok": true,
  "messages": [{"level": "success", "text": ...}], "output": "text it printed"}`. A command
  with its own `--json` that fails before printing anything prints the same object, `ok`
  false with its error, and so does a command line click refuses (exit 2), so a script
  reading stdout gets one shape of failure from every command.
`session` holds the mode for one invocation (the resident process runs many in turn).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import typer
from typer.core import TyperOption

from cardvault.errors import CardvaultError


@dataclass
class OutputMode:
    """How the running command's output goes out."""

    quiet: bool = False
    collect: bool = False
    #: the command's own `--json` was given (its output is its own; only a failure is ours)
    own_json: bool = False
    #: whether the command wrote to stdout (tracked under its own `--json`)
    wrote: bool = False
    messages: list[dict[str, str]] = field(default_factory=list)
    captured: io.StringIO | None = None
    #: a command line asking for `--json` was refused before the command ran (`usage_failed`)
    usage_error: bool = False


#: The exit code of a command line click refuses (typer's vendored click: UsageError).
USAGE_ERROR = 2
#: The mode of the command running now (reset by `session`).
mode = OutputMode()


def collected(level: str, text: str) -> None:
    """Keep a line for the JSON object (under a command's own `--json`, errors only)."""
    if mode.collect or (mode.own_json and level == "error"):
        mode.messages.append({"level": level, "text": text})


def silenced(level: str, text: str) -> bool:
    """Whether a `level` line (note, warning, success) is kept from the terminal (quiet, or
    collected for the JSON object)."""
    if mode.quiet:
        return True
    collected(level, text)
    return mode.collect


def usage_failed(argv: list[str], exc: typer.TyperException, at_once: bool = False) -> None:
    """A command line click refused (exit 2): the failure object when it asked for `--json`,
    which click may never have read (the words after a `--` are the command's, never ours);
    printed `at_once` when it was refused before any command ran (no session yet)."""
    if getattr(exc, "exit_code", None) != USAGE_ERROR or not _asks_json(argv):
        return
    failed = {"level": "error", "text": exc.format_message()}
    if at_once:
        _print_collected(OutputMode(messages=[failed]), USAGE_ERROR)
    else:
        mode.usage_error = True
        mode.messages.append(failed)


def _asks_json(argv: list[str]) -> bool:
    options = argv[: argv.index("--")] if "--" in argv else argv
    return "--json" in options and "--quiet" not in options


#: The mark of a command given its options already (resolving it again gives none twice).
_GIVEN = "cardvault_output_options"


def add_output_options(command: Any) -> None:
    """Give `command` and every command under it (a group too when it runs on its own)
    `--quiet`, and `--json` where it has none; once each."""
    if getattr(command, _GIVEN, False):
        return
    setattr(command, _GIVEN, True)
    if hasattr(command, "commands"):  # a group (typer vendors its own click)
        for sub in command.commands.values():
            add_output_options(sub)
        if not getattr(command, "invoke_without_command", False):
            return
    names = {opt for param in command.params for opt in getattr(param, "opts", ())}
    for param in command.params:
        if "--json" in getattr(param, "opts", ()):
            param.callback = _own_json(param.callback)
    if "--quiet" not in names:
        command.params.append(
            TyperOption(
                param_decls=["--quiet", "-q"] if "-q" not in names else ["--quiet"], is_flag=True,
                expose_value=False, callback=_quiet, is_eager=True,
                help="Print nothing on success (errors still go to stderr; same exit code).",
            )
        )  # fmt: skip
    if "--json" not in names:
        command.params.append(
            TyperOption(
                param_decls=["--json"], is_flag=True, expose_value=False, callback=_collect,
                help="Print what the command says as one JSON object.",
            )
        )  # fmt: skip


def _quiet(ctx: Any, _param: Any, value: bool) -> None:
    if value:
        mode.quiet = True
        ctx.with_resource(_stdout_dropped())


def _collect(ctx: Any, _param: Any, value: bool) -> None:
    if value and not mode.quiet:
        mode.collect = True
        mode.captured = io.StringIO()
        ctx.with_resource(contextlib.redirect_stdout(mode.captured))


def _own_json(callback: Any) -> Any:
    """A command's own `--json` callback that also notes the flag and whether the command
    wrote to stdout (for a failure's object)."""

    def noted(ctx: Any, param: Any, value: Any) -> Any:
        if value and not mode.quiet and not mode.own_json:
            mode.own_json = True
            ctx.with_resource(contextlib.redirect_stdout(_Tracked(sys.stdout)))
        return callback(ctx, param, value) if callback is not None else value

    return noted


class _Tracked(io.TextIOBase):
    """stdout, noting in `mode` whether anything was written."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if text:
            mode.wrote = True
        return self._stream.write(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return bool(self._stream.isatty())

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self._stream, "encoding", "utf-8"))


@contextlib.contextmanager
def _stdout_dropped() -> Iterator[None]:
    with open(os.devnull, "w", encoding="utf-8") as sink, contextlib.redirect_stdout(sink):
        yield


@contextlib.contextmanager
def session() -> Iterator[None]:
    """One command's output mode: fresh on the way in; in collecting mode, the JSON object
    printed on the way out (after the command's stdout is restored)."""
    global mode
    mode = OutputMode()
    code = 0
    stdout = sys.stdout
    try:
        yield
    except typer.Exit as exc:
        code = exc.exit_code
        raise
    except typer.TyperException as exc:  # click's own errors (a usage error: exit 2)
        code = getattr(exc, "exit_code", 1)
        raise
    except Exception as exc:
        code = 1
        if mode.collect and isinstance(exc, CardvaultError):  # also on stderr, as ever
            from cardvault.guard import redact_text

            collected("error", redact_text(str(exc)))
        raise
    finally:
        done, mode = mode, OutputMode()
        # a command line click refused leaves the redirection of a `--json` it had read in
        # place (its context is never closed): stdout is the command's own again either way
        sys.stdout = stdout
        failed_silently = done.own_json and code != 0 and done.messages and not done.wrote
        if done.collect or failed_silently or done.usage_error:
            _print_collected(done, code)


def _print_collected(done: OutputMode, code: int) -> None:
    """The collected object on stdout, as compact JSON (render imports this module)."""
    import json

    text = done.captured.getvalue() if done.captured is not None else ""
    result: dict[str, Any] = {"ok": code == 0, "messages": done.messages}
    if text:
        result["output"] = text
    sys.stdout.write(json.dumps(result, ensure_ascii=False, default=str) + "\n")
