"""One vault served to one MCP client: the vault, its warm search handle, and the locks.

The SDK runs each synchronous tool in a worker thread, so calls can arrive at once. Searches
share one `VaultHandle` (its ONNX session is loaded once, by a warm-up on a background thread
started with the server, so the handshake never waits for it) and take turns; writes take
turns inside this process, and rely on the write services' own vault lock against
other processes. A `CardvaultError` becomes the SDK's `ToolError` with the CLI's message.

Background work (the warm-up, the indexing after a write) runs on threads the session keeps:
`close` stops them at their next progress step and waits for them, since a thread still inside
the model's runtime when the interpreter exits aborts the process (SIGABRT, "terminate called
without an active exception").
"""

from __future__ import annotations

import contextlib
import datetime as dt
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from mcp.server.mcpserver.exceptions import ToolError

from cardvault.app import Session
from cardvault.errors import CardvaultError
from cardvault.search.engine import SEARCH_WAIT, Searcher
from cardvault.search.warm import VaultHandle, WarmHandles
from cardvault.vault.layout import Vault
from cardvault.vault.progress import Progress, ProgressLines, duration

T = TypeVar("T")


class Stopped(Exception):
    """Background work given up because the server is stopping."""


class VaultSession:
    """The served vault and what its tools share: the app session, and the turns they take."""

    def __init__(self, vault: Vault, clock: Callable[[], dt.datetime] | None = None) -> None:
        self.root: Path = vault.root
        self.warm = WarmHandles()
        self.app = Session(vault.root, clock=clock, handles=self.warm)
        self.clock = self.app.now
        self._reading = threading.Lock()
        self._writing = threading.Lock()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []

    @property
    def handle(self) -> VaultHandle:
        """The served vault's warm search handle (reopened when cardvault.toml changes)."""
        return self.app.handle

    @property
    def vault(self) -> Vault:
        """The served vault with its current settings."""
        return self.app.project()

    def searcher(self, vault: Vault) -> Searcher:
        """The warm search service for any vault a scope covers (this one, the global vault)."""
        return self.app.searcher(vault)

    def warm_up_in_background(self) -> threading.Thread:
        """Load the model and sync the index on a daemon thread; the first search waits for it."""
        return self._in_background(self._warm_up, "cardvault-warm-up")

    def close(self) -> None:
        """Stop the background work at its next step and wait for it (module docstring)."""
        self._stopping.set()
        for thread in self._threads:
            thread.join()

    def _in_background(self, work: Callable[[], None], name: str) -> threading.Thread:
        thread = threading.Thread(target=work, name=name, daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()
        return thread

    def _step(self, report: Progress | None = None) -> Progress:
        """A progress report that stops the work once the session is closing."""

        def step(stage: str, done: int, total: int) -> None:
            if self._stopping.is_set():
                raise Stopped("the server is stopping")
            if report is not None:
                report(stage, done, total)

        return step

    def _warm_up(self) -> None:
        with self._reading:
            if self._stopping.is_set():
                return
            try:
                self._first_index()
                self.app.warm_up()
            except Stopped:
                return
            except Exception as exc:  # the first real search reports the problem to the model
                print(f"cardvault mcp: warm-up failed: {exc}", file=sys.stderr)

    def _first_index(self) -> None:
        """A vault never indexed (or whose index was interrupted) is indexed first: minutes on
        thousands of long notes, so the server's log (stderr) says so, how far it is every
        `LINE_EVERY` seconds, and when it is done."""
        searcher = self.handle.searcher
        if searcher.indexed:
            return
        _log(f"cardvault mcp: building the search index of {self.root}; searches wait for it")
        began = time.monotonic()
        if searcher.first_index(self._step(ProgressLines(_log, prefix="cardvault mcp"))):
            _log(f"cardvault mcp: search index built in {duration(time.monotonic() - began)}")
        else:  # another process is building it (or the index is broken: a search says what)
            _log(
                "cardvault mcp: the search index is not built yet (another cardvault is writing "
                "it, or it could not be written); searches answer from what it holds"
            )

    def embed_soon(self) -> threading.Thread:
        """Bring the served vault's index up to date on a daemon thread, right after a write:
        the warm model embeds the new entry (one short text) before the next search needs it.
        A search meanwhile waits for it, and finds the entry either way."""

        def sync() -> None:
            with self._reading:
                if self._stopping.is_set():
                    return
                try:
                    searcher = self.handle.searcher
                    embedding = searcher.model.embedding()
                    searcher.synced(embedding, [], self._step(), wait=SEARCH_WAIT)
                except Stopped:
                    return
                except Exception as exc:  # the next search syncs (and reports) it again
                    print(f"cardvault mcp: indexing the new entry failed: {exc}", file=sys.stderr)

        return self._in_background(sync, "cardvault-embed-new")

    def search(self, action: Callable[[], T]) -> T:
        """Run a call that searches with the shared handle (one at a time)."""
        with self._reading, _as_tool_error():
            return action()

    def read(self, action: Callable[[], T]) -> T:
        """Run a read-only call that does not search (no waiting)."""
        with _as_tool_error():
            return action()

    def write(self, action: Callable[[], T]) -> T:
        """Run a writing service call, one at a time in this server."""
        with self._writing, _as_tool_error():
            return action()


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@contextlib.contextmanager
def _as_tool_error() -> Iterator[None]:
    """A CardvaultError reaches the model as a tool error carrying the CLI's message."""
    try:
        yield
    except CardvaultError as exc:
        raise ToolError(str(exc)) from exc
