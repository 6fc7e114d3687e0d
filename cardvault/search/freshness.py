"""How far the search index in `.cardvault/` is behind the vault's files, checked cheaply, and
which files changed since a warm search last looked (`ChangeWatcher`).

`index_freshness` compares the index's `files` table with a stat of the vault's files through
vault/changes.py, reading a file only when its signature differs or was ambiguous. It opens the
database read-only, writes nothing and never loads the embedding model.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardvault.errors import CardvaultError
from cardvault.search.index import DB_NAME
from cardvault.vault.changes import Seen, changed_since
from cardvault.vault.derived_store import connect
from cardvault.vault.files import read_text
from cardvault.vault.layout import FileStat, Vault, walk


@dataclass(frozen=True)
class IndexFreshness:
    """Files the index covers and how many changed since: added, edited, deleted."""

    exists: bool
    indexed: int = 0
    added: int = 0
    changed: int = 0
    removed: int = 0
    unembedded: int = 0  # indexed texts with no vector yet (keyword search still finds them)
    problem: str | None = None  # the index could not be read (the next search rebuilds it)

    @property
    def fresh(self) -> bool:
        """Whether a search right now would find the index up to date."""
        return self.exists and self.problem is None and not self.behind

    @property
    def behind(self) -> int:
        """Files the next sync must add, re-read or drop."""
        return self.added + self.changed + self.removed


def index_freshness(
    vault: Vault,
    stamps: Mapping[str, FileStat] | None = None,
    digests: Mapping[str, str] | None = None,
) -> IndexFreshness:
    """Compare the index's file records with the vault's files now (`stamps` and `digests`:
    a caller's snapshot of the vault just read, so nothing is stat-ed or read twice)."""
    path = vault.index_dir / DB_NAME
    if not path.is_file():
        return IndexFreshness(exists=False)
    try:
        known, unembedded = _indexed_files(path)
    except sqlite3.DatabaseError as exc:
        return IndexFreshness(exists=True, problem=f"unreadable ({exc})")
    sources = stamps if stamps is not None else walk(vault).files
    changes = changed_since(sources, known)
    added = sum(1 for rel in changes.stale if rel not in known)
    changed = 0
    for rel, source in changes.stale.items():
        if rel not in known:
            continue
        digest = digests.get(rel) if digests is not None else _digest(vault.root, source.path)
        if digest != known[rel].digest:
            changed += 1
    return IndexFreshness(True, len(known), added, changed, len(changes.gone), unembedded)


def _indexed_files(path: Path) -> tuple[dict[str, Seen], int]:
    from cardvault.search.embed_sync import count_unembedded
    from cardvault.search.index import recorded_files

    with contextlib.closing(connect(path, read_only=True)) as conn:
        return recorded_files(conn), count_unembedded(conn)


def _digest(root: Path, path: Path) -> str | None:
    try:
        return read_text(path, root).digest
    except (CardvaultError, OSError):
        return None


class ChangeWatcher:
    """Which vault files changed since the last look, from the OS's file events (inotify and
    the like, through watchfiles), so a warm search on an unchanged vault stats nothing.

    A change made before `changes()` is called is always reported by it: the OS delivers events
    in order but on another thread, so `changes()` touches a marker file in `.cardvault/` and
    collects events until the marker's own arrives. When it cannot say (None), the caller
    compares every file.
    """

    MARKER = "watch-marker"
    #: How long to wait for the marker's event before comparing every file instead.
    PATIENCE_MS = 200

    def __init__(self, vault: Vault) -> None:
        self._vault = vault
        self._marker = vault.index_dir / self.MARKER
        self._notify: Any = None
        self._started = False
        try:
            from watchfiles._rust_notify import RustNotify

            vault.index_dir.mkdir(parents=True, exist_ok=True)
            folders = [str(vault.memory_dir), str(vault.index_dir)]
            self._notify = RustNotify(folders, False, False, 0, True, True)
        except Exception:  # no watchfiles, no memory/ folder, no inotify: compare files
            self._notify = None

    def changes(self) -> set[str] | None:
        """Vault-relative paths changed since the last call (None: compare everything)."""
        if self._notify is None:
            return None
        events = self._drain()
        if events is None or not self._started:
            self._started = events is not None
            return None  # before the first full comparison, events say nothing
        return self._relative(events)

    def _drain(self) -> set[str] | None:
        """Every event up to now (waiting for the marker's), or None when that failed."""
        try:
            self._marker.write_bytes(b"")
        except OSError:
            return None
        marker = str(self._marker)
        found: set[str] = set()
        waited = 0
        while marker not in found:
            try:
                # step 0: return the moment events are there (a 1 ms step cost ~2 ms a query)
                batch = self._notify.watch(0, 0, self.PATIENCE_MS - waited, None)
            except Exception:  # the watcher died: compare every file from now on
                self.stop()
                return None
            if not isinstance(batch, set):
                return None  # "timeout" (or a signal) before the marker came back
            found.update(path for _, path in batch)
            waited += 1
            if waited >= self.PATIENCE_MS:
                return None
        return found

    def _relative(self, paths: set[str]) -> set[str] | None:
        prefix = str(self._vault.root) + os.sep
        cache = str(self._vault.index_dir) + os.sep
        out = set()
        for path in paths:
            if path.startswith(cache):
                continue  # the index's own files and the marker
            if not path.startswith(prefix) or not path.endswith(".md") or os.path.isdir(path):
                return None  # a folder moved or something unexpected: compare everything
            out.add(path[len(prefix) :].replace(os.sep, "/"))
        return out

    def stop(self) -> None:
        """Stop watching (later `changes()` return None)."""
        if self._notify is not None:
            with contextlib.suppress(Exception):
                self._notify.close()
            self._notify = None
