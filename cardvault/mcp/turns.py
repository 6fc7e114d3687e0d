"""The turns the tools of one MCP connection take over its app session, and its background work.

The SDK runs each synchronous tool in a worker thread, so calls can arrive at once: searches
share the session's warm handle and take turns; writes take turns inside this process and rely
on the write door's vault lock against other processes. A `CardvaultError` becomes the SDK's
`ToolError` with the CLI's message.

`close` stops the background threads (the warm-up, the indexing after a write) at their next
progress step and waits for them: a thread still inside the model's runtime when the
interpreter exits aborts the process (SIGABRT).
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

from mcp.server.mcpserver.exceptions import ToolError

from cardvault.app.served import ProgressLines, duration
from cardvault.errors import CardvaultError

if TYPE_CHECKING:
    from cardvault.app import Session
    from cardvault.search.engine import Progress

T = TypeVar("T")


class Stopped(Exception):
    """Background work given up because the server is stopping."""


class Turns:
    """One connection's turns over its app session (`app`), and its background threads."""

    def __init__(self, app: Session) -> None:
        self.app = app
        self._reading = threading.Lock()
        self._writing = threading.Lock()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []

    def search(self, action: Callable[[], T]) -> T:
        """Run a call that searches with the shared handle (one at a time)."""
        with self._reading, _as_tool_error():
            return action()

    def read(self, action: Callable[[], T]) -> T:
        """Run a read-only call that does not search (no waiting)."""
        with _as_tool_error():
            return action()

    def write(self, action: Callable[[], T]) -> T:
        """Run a writing call, one at a time in this server."""
        with self._writing, _as_tool_error():
            return action()

    def warm_up_in_background(self) -> threading.Thread:
        """Load the model and sync the index on a daemon thread; the first search waits for it."""
        return self._in_background(self._warm_up, "cardvault-warm-up", "warm-up")

    def embed_soon(self) -> threading.Thread:
        """Bring the served vault's index up to date on a daemon thread, right after a write:
        the warm model embeds the new entry (one short text) before the next search needs it.
        A search meanwhile waits for it, and finds the entry either way."""

        def embed() -> None:
            self.app.index_written(self._step())

        return self._in_background(embed, "cardvault-embed-new", "indexing the new entry")

    def close(self) -> None:
        """Stop the background work at its next step, wait for it, release the session."""
        self._stopping.set()
        for thread in self._threads:
            thread.join()
        self.app.close()

    def _in_background(self, work: Callable[[], None], name: str, what: str) -> threading.Thread:
        """Run `work` on a daemon thread, in its turn with the searches; a failure is logged
        (the next search meets and reports it again)."""

        def run() -> None:
            with self._reading:
                if self._stopping.is_set():
                    return
                try:
                    work()
                except Stopped:
                    return
                except Exception as exc:
                    _log(f"cardvault mcp: {what} failed: {exc}")

        thread = threading.Thread(target=run, name=name, daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()
        return thread

    def _step(self, report: Progress | None = None) -> Progress:
        """A progress report that stops the work once the server is closing."""

        def step(stage: str, done: int, total: int) -> None:
            if self._stopping.is_set():
                raise Stopped("the server is stopping")
            if report is not None:
                report(stage, done, total)

        return step

    def _warm_up(self) -> None:
        """Index a vault never (or not fully) indexed, saying on the server's log (stderr) that
        it does, how far it is now and then, and when it is done (it takes minutes on thousands
        of long notes); then load the model."""
        began = time.monotonic()
        lines = ProgressLines(_log, prefix="cardvault mcp")
        building = f"cardvault mcp: building the search index of {self.app.root}; searches wait"
        starting = functools.partial(_log, building + " for it")
        built = self.app.index_first(self._step(lines), starting)
        if built:
            _log(f"cardvault mcp: search index built in {duration(time.monotonic() - began)}")
        elif built is False:  # another process is building it (or the index is broken)
            _log(
                "cardvault mcp: the search index is not built yet (another cardvault is writing "
                "it, or it could not be written); searches answer from what it holds"
            )
        self.app.warm_up()


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@contextlib.contextmanager
def _as_tool_error() -> Iterator[None]:
    """A CardvaultError reaches the model as a tool error carrying the CLI's message."""
    try:
        yield
    except CardvaultError as exc:
        raise ToolError(str(exc)) from exc
