"""`cardvault capture`: run a command as if run directly, and describe it when it fails.

The command inherits stdin and stdout; its stderr goes through a pipe a reader thread copies
to ours live while keeping the tail to log. The exit code is its own (128 + N for signal N,
127 / 126 when it cannot start, as a shell reports). Signal dispositions are never reset, so a
background job keeps the signals its shell ignored (docs/agents.md). Nothing here touches the
vault or imports anything heavy: a command that succeeds costs only the process start.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from cardvault.capture import failure
from cardvault.limits import CAPTURE_TAIL

TAIL_LINES = 20
#: What one logged line of a failure may hold (the error line, each tail line), and the command
#: line: a capture's entry stays far inside `[write] max_entry_bytes` however long they were.
LINE_CHARS = 1000
COMMAND_CHARS = 2000
#: How long to wait for stderr to drain once the command has exited (a background child it left
#: behind may hold the pipe open forever).
DRAIN_SECONDS = 2.0
#: Ctrl-C ends a run the user chose to stop; it is not a failure worth a log entry.
NOT_FAILURES = frozenset({128 + signal.SIGINT})
#: The signals a terminal or a session sends to a whole job: their dispositions at start are
#: reported (`ignored_at_start`) and kept.
JOB_SIGNALS = ("SIGINT", "SIGQUIT", "SIGHUP", "SIGTERM")
#: Left to the command while it runs (the terminal sends them to cardvault too).
LEFT_TO_COMMAND = ("SIGINT", "SIGQUIT")
#: Passed on to the command while it runs, unless ignored at start.
PASSED_ON = ("SIGTERM", "SIGHUP")


@dataclass(frozen=True)
class RunResult:
    """How a command ended: exit code (128+N for signal N), the signal that killed it, the tail
    of its stderr, and the job signals it inherited ignored."""

    argv: tuple[str, ...]
    cwd: str
    exit_code: int
    stderr: str
    killed_by: str | None = None  # "SIGTERM" when a signal ended it
    ignored: tuple[str, ...] = ()  # e.g. ("SIGINT", "SIGQUIT") for `cardvault capture ... &`

    @property
    def failed(self) -> bool:
        """Whether this run should be captured (non-zero, and not stopped with Ctrl-C)."""
        return self.exit_code != 0 and self.exit_code not in NOT_FAILURES


@dataclass(frozen=True)
class Failure:
    """A failed run described for memory; every text field has passed the secret guard."""

    command: str
    cwd: str
    exit_code: int
    category: str
    signature: str
    message: str  # the normalised error line the signature is computed from
    error: str  # the error line as the command wrote it
    tail: str  # the last TAIL_LINES lines of stderr
    killed_by: str | None = None
    ignored: tuple[str, ...] = ()


def ignored_at_start() -> tuple[str, ...]:
    """The JOB_SIGNALS this process ignores, which a command it starts inherits (a background
    job of a script, `nohup`). Read before `_signals_to` changes anything."""
    found = []
    for name in JOB_SIGNALS:
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) == signal.SIG_IGN:
            found.append(name)
    return tuple(found)


def signal_name(number: int) -> str:
    """The name of signal `number`: SIGTERM for 15, "signal 99" for a number without one."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def run_command(argv: Sequence[str], echo: BinaryIO | None, cwd: Path | None = None) -> RunResult:
    """Run `argv`, copying its stderr to `echo` live; return its exit code and stderr tail."""
    where = str(cwd or Path.cwd())
    ignored = ignored_at_start()
    try:
        proc = subprocess.Popen(list(argv), stderr=subprocess.PIPE, cwd=cwd)
    except FileNotFoundError:
        return _not_started(argv, where, 127, "command not found", echo, ignored)
    except OSError as exc:
        return _not_started(argv, where, 126, exc.strerror or "cannot execute", echo, ignored)
    assert proc.stderr is not None
    tail = bytearray()
    reader = threading.Thread(target=_pump, args=(proc.stderr, echo, tail), daemon=True)
    reader.start()
    with _signals_to(proc):
        code = proc.wait()
    reader.join(DRAIN_SECONDS)
    exit_code = 128 - code if code < 0 else code
    killed_by = signal_name(-code) if code < 0 else None
    text = bytes(tail).decode("utf-8", "replace")
    return RunResult(tuple(argv), where, exit_code, text, killed_by, ignored)


def _not_started(
    argv: Sequence[str],
    cwd: str,
    code: int,
    why: str,
    echo: BinaryIO | None,
    ignored: tuple[str, ...],
) -> RunResult:
    message = f"cardvault capture: {argv[0]}: {why}\n"
    if echo is not None:
        echo.write(message.encode())
        echo.flush()
    return RunResult(tuple(argv), cwd, code, message, ignored=ignored)


def _pump(pipe: BinaryIO, echo: BinaryIO | None, tail: bytearray) -> None:
    """Copy `pipe` to `echo` as data arrives, keeping the last CAPTURE_TAIL in `tail`."""
    fd = pipe.fileno()
    while chunk := os.read(fd, 65536):
        if echo is not None:
            try:
                echo.write(chunk)
                echo.flush()
            except (OSError, ValueError):
                echo = None  # our stderr went away; keep draining so the command never blocks
        tail.extend(chunk)
        if len(tail) > CAPTURE_TAIL:
            del tail[: len(tail) - CAPTURE_TAIL]
    pipe.close()


@contextmanager
def _signals_to(proc: subprocess.Popen[bytes]) -> Iterator[None]:
    """While the command runs: ignore SIGINT and SIGQUIT here, pass SIGTERM and SIGHUP on to it
    (not one that was ignored at start: under `nohup` a hangup reaches neither)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def forward(signum: int, _frame: object) -> None:
        if proc.poll() is None:
            proc.send_signal(signum)

    saved: dict[int, Any] = {}
    for names, handler in ((LEFT_TO_COMMAND, signal.SIG_IGN), (PASSED_ON, forward)):
        for name in names:
            number = getattr(signal, name, None)
            if number is not None and signal.getsignal(number) != signal.SIG_IGN:
                saved[number] = signal.signal(number, handler)
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


def describe_failure(run: RunResult) -> Failure:
    """Category, signature and redacted texts of a failed run (loads the secret guard).

    The whole stderr is redacted before its tail and error line are taken (a key block cut by
    the tail is no longer recognisable), and the command line both argument by argument (shell
    quoting hides a quoted value's shape) and joined (`mysql ... -pX` needs the whole line).
    """
    from cardvault.guard import redact_text

    stderr = redact_text(failure.clean(run.stderr))
    lines = stderr.splitlines()
    tail = "\n".join(_cut(line, LINE_CHARS) for line in lines[-TAIL_LINES:]).strip("\n")
    error = failure.error_line(stderr, run.exit_code, run.argv[0], run.killed_by)
    message = failure.normalise(error)
    command = redact_text(shlex.join(redact_text(arg) for arg in run.argv))
    return Failure(
        command=_cut(command, COMMAND_CHARS),
        cwd=run.cwd,
        exit_code=run.exit_code,
        category=failure.categorize(error, run.stderr, run.exit_code),
        signature=failure.signature(message),
        message=message,
        error=_cut(error, LINE_CHARS),
        tail=tail,
        killed_by=run.killed_by,
        ignored=run.ignored,
    )


def _cut(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, saying so (cut after redaction: no half secret)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … ({len(text) - limit:,} characters cut)"
