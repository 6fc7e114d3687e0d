"""How far the search index in `.cardvault/` is behind the vault's files, checked cheaply.

The index records each file it covers with its mtime, size and content digest (the `files` table
of `search.sqlite`, see cardvault/search/index.py). This module compares that table with a stat
of the vault's Markdown files, reading a file only when its stat differs, and counts what the
next sync would add, re-read or drop. It opens the database read-only, writes nothing and never
loads the embedding model.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cardvault.errors import CardvaultError
from cardvault.vault.files import read_text
from cardvault.vault.layout import FileStat, Vault, walk

DB_NAME = "search.sqlite"


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
        return (
            self.exists
            and self.problem is None
            and not (self.added or self.changed or self.removed)
        )

    @property
    def behind(self) -> int:
        """Files the next sync must add, re-read or drop."""
        return self.added + self.changed + self.removed


def index_freshness(
    vault: Vault,
    stamps: Mapping[str, FileStat] | None = None,
    digests: Mapping[str, str] | None = None,
) -> IndexFreshness:
    """Compare the index's file records with the vault's files now. A caller that has just
    read the vault passes its stamps and digests (the read path's snapshot), so nothing is
    stat-ed or read twice."""
    path = vault.cache_dir / DB_NAME
    if not path.is_file():
        return IndexFreshness(exists=False)
    try:
        known, unembedded = _indexed_files(path)
    except sqlite3.DatabaseError as exc:
        return IndexFreshness(exists=True, problem=f"unreadable ({exc})")
    sources = stamps if stamps is not None else walk(vault).files
    added = sum(1 for rel in sources if rel not in known)
    removed = sum(1 for rel in known if rel not in sources)
    changed = 0
    for rel, source in sources.items():
        record = known.get(rel)
        if record is None or record[:2] == (source.mtime_ns, source.size):
            continue
        digest = digests.get(rel) if digests is not None else _digest(source.path)
        if digest != record[2]:
            changed += 1
    return IndexFreshness(True, len(known), added, changed, removed, unembedded)


def _indexed_files(path: Path) -> tuple[dict[str, tuple[int, int, str]], int]:
    """The `files` records (path -> mtime, size, digest) and the count of texts lacking a vector."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT path, mtime_ns, size, digest FROM files").fetchall()
        missing = conn.execute(
            "SELECT count(DISTINCT d.text_hash) FROM docs d "
            "LEFT JOIN vectors v ON v.text_hash = d.text_hash WHERE v.text_hash IS NULL"
        ).fetchone()
    finally:
        conn.close()
    return {str(r[0]): (r[1], r[2], str(r[3])) for r in rows}, int(missing[0])


def _digest(path: Path) -> str | None:
    try:
        return read_text(path).digest
    except CardvaultError:
        return None
