"""`cardvault capture`: run a command as if run directly, and describe it when it fails.

The command inherits stdin and stdout (a terminal stays a terminal). Its stderr goes through a
pipe that a reader thread copies to our stderr chunk by chunk as it arrives (live) while keeping
the last 64 KB, so the failure's tail can be logged. Consequence: the command sees a pipe, not a
terminal, on stderr, and some tools drop colours there.

The exit code is the command's own; a command killed by signal N gives 128 + N, as shells report
it. While the command runs, Ctrl-C is left to it (the terminal sends SIGINT to both; cardvault
ignores it and reports whatever the command does), and SIGTERM / SIGHUP sent to cardvault are
passed on to it. A program that cannot be started gives 127 (not found) or 126 (not executable),
as a shell would.

Nothing here touches the vault or imports anything heavy: a command that succeeds costs only the
process start. `describe_failure` turns a failed run into a `Failure` — redacted by the secret
guard — that `capture.record` records and looks up.
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
from typing import BinaryIO

from cardvault.capture import failure

TAIL_BYTES = 64 * 1024
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


@dataclass(frozen=True)
class RunResult:
    """How a command ended: exit code (128+N for signal N) and the tail of its stderr."""

    argv: tuple[str, ...]
    cwd: str
    exit_code: int
    stderr: str
    launched: bool = True

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


def run_command(argv: Sequence[str], echo: BinaryIO | None, cwd: Path | None = None) -> RunResult:
    """Run `argv`, copying its stderr to `echo` live; return its exit code and stderr tail."""
    where = str(cwd or Path.cwd())
    try:
        proc = subprocess.Popen(list(argv), stderr=subprocess.PIPE, cwd=cwd)
    except FileNotFoundError:
        return _not_started(argv, where, 127, "command not found", echo)
    except OSError as exc:
        return _not_started(argv, where, 126, exc.strerror or "cannot execute", echo)
    assert proc.stderr is not None
    tail = bytearray()
    reader = threading.Thread(target=_pump, args=(proc.stderr, echo, tail), daemon=True)
    reader.start()
    with _signals_to(proc):
        code = proc.wait()
    reader.join(DRAIN_SECONDS)
    exit_code = 128 - code if code < 0 else code
    return RunResult(tuple(argv), where, exit_code, bytes(tail).decode("utf-8", "replace"))


def _not_started(
    argv: Sequence[str], cwd: str, code: int, why: str, echo: BinaryIO | None
) -> RunResult:
    message = f"cardvault capture: {argv[0]}: {why}\n"
    if echo is not None:
        echo.write(message.encode())
        echo.flush()
    return RunResult(tuple(argv), cwd, code, message, launched=False)


def _pump(pipe: BinaryIO, echo: BinaryIO | None, tail: bytearray) -> None:
    """Copy `pipe` to `echo` as data arrives, keeping the last TAIL_BYTES in `tail`."""
    fd = pipe.fileno()
    while chunk := os.read(fd, 65536):
        if echo is not None:
            try:
                echo.write(chunk)
                echo.flush()
            except (OSError, ValueError):
                echo = None  # our stderr went away; keep draining so the command never blocks
        tail.extend(chunk)
        if len(tail) > TAIL_BYTES:
            del tail[: len(tail) - TAIL_BYTES]
    pipe.close()


@contextmanager
def _signals_to(proc: subprocess.Popen[bytes]) -> Iterator[None]:
    """While the command runs: ignore SIGINT here, pass SIGTERM and SIGHUP on to it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def forward(signum: int, _frame: object) -> None:
        if proc.poll() is None:
            proc.send_signal(signum)

    saved = {signal.SIGINT: signal.signal(signal.SIGINT, signal.SIG_IGN)}
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            number = getattr(signal, name)
            saved[number] = signal.signal(number, forward)
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
    error = failure.error_line(stderr, run.exit_code, run.argv[0])
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
    )


def _cut(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, saying so (cut after redaction: no half secret)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … ({len(text) - limit:,} characters cut)"
