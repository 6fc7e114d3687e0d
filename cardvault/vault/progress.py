"""`Progress`, the one shape of a progress report: `progress(stage, done, total)`.

Services that take a while (maintenance, the search index's sync, embedding, an import of
notes) call it as they go; the front ends render it (a bar, an MCP progress notification) and
services never print. `total` 0 means the stage has no known size (loading the model).
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: progress(stage, done, total): what is being done, how far it got, out of how much.
Progress = Callable[[str, int, int], None]
#: How often a plain progress line is written (none for work that ends sooner).
LINE_EVERY = 10.0


class ProgressLines:
    """A `Progress` as plain lines where no bar can be drawn (a piped stderr, an MCP server's log):
    one line every `every` seconds, with the stage's rate and the time left, so a long first
    index is not taken for a hang. `write` takes each line (no newline)."""

    def __init__(
        self, write: Callable[[str], None], prefix: str = "cardvault", every: float = LINE_EVERY
    ) -> None:
        self._write = write
        self._prefix = prefix
        self._every = every
        self._said = time.monotonic()  # when a line was last written
        self._began: dict[str, tuple[float, int]] = {}  # stage -> (when, done) it started

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        began, first = self._began.setdefault(stage, (now, done))
        if now - self._said < self._every:
            return
        self._said = now
        rate = (done - first) / (now - began) if now > began else 0.0
        left = f", about {duration((total - done) / rate)} left" if rate and total else ""
        count = f" {done:,}/{total:,}" if total else f" {done:,}" if done else ""
        self._write(f"{self._prefix}: {stage}{count}{left}")


def duration(seconds: float) -> str:
    """A time to wait, as a person says it ("40 s", "3 min")."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"
