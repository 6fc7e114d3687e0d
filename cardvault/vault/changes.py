"""Which vault files changed since a recorded state: the one change detection.

The catalog (refresh.py) and the search index's sync, freshness check and watcher (search/)
each record per file the stat they last saw; all ask `changed_since`, so they never disagree
about an edit. A file's signature is its size, mtime, ctime and inode: an edit that set the old
mtime back still moves the ctime, a rename gives a new inode. A signature taken within the
filesystem's timestamp granularity of the file's last change is `racy` (git's "racily clean"):
the file is read again, by digest, on every look until the signature is old enough to trust.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from operator import attrgetter
from typing import NamedTuple, Protocol

from cardvault.vault.layout import FileStat

#: How close to a file's last change a signature is ambiguous. Filesystem timestamps tick at
#: up to 2 s (FAT), 1 s (ext3, HFS+), or the kernel's clock tick (ext4, tmpfs, APFS).
RACY_NS = 2_000_000_000


class Recorded(Protocol):
    """What a look at a file recorded: its stat signature and whether it was ambiguous. The
    catalog's `Row` and the search index's `Seen` both have these fields."""

    @property
    def size(self) -> int: ...
    @property
    def mtime_ns(self) -> int: ...
    @property
    def ctime_ns(self) -> int: ...
    @property
    def inode(self) -> int: ...
    @property
    def racy(self) -> bool: ...


class Seen(NamedTuple):
    """A file as a look recorded it, with the digest of the bytes read then."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    racy: bool
    digest: str


class Changes(NamedTuple):
    """Files to read again (new, or their signature differs or was ambiguous) and the relative
    paths of recorded files that are gone."""

    stale: dict[str, FileStat]
    gone: list[str]


#: A file's stat signature (see the module docstring), of a `FileStat` or a `Recorded`.
SIGNATURE = attrgetter("size", "mtime_ns", "ctime_ns", "inode")


def changed_since(files: Mapping[str, FileStat], recorded: Mapping[str, Recorded]) -> Changes:
    """Which of `files` (the walk's, or a watcher's few) may differ from `recorded` (a file is
    unchanged when recorded unambiguously with the same signature), and which recorded files
    are no longer among them. One pass, no call per file: it runs over every file each look."""
    stale = {
        rel: stat
        for rel, stat in files.items()
        if (seen := recorded.get(rel)) is None or seen.racy or SIGNATURE(seen) != SIGNATURE(stat)
    }
    gone = [rel for rel in recorded if rel not in files]
    return Changes(stale, gone)


def racy(stat: FileStat, now_ns: int | None = None) -> bool:
    """Whether a signature of `stat` taken now is ambiguous (see the module docstring)."""
    now = now_ns if now_ns is not None else time.time_ns()
    return now - max(stat.mtime_ns, stat.ctime_ns) < RACY_NS
