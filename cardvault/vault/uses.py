"""The use ledger: which cards were read for a task, recorded locally at no commit (DESIGN §10).

Reading memory for a task appends `2026-12-01<TAB>slug<TAB>how` to `.cardvault/uses.log` with
one `os.write` on an `O_APPEND` descriptor: POSIX appends a write under `PIPE_BUF` whole, so
processes record without a lock (a longer line is not recorded); recording never fails a read.
`maintain` folds the lines past the clone's watermark (`.cardvault/uses.folded`: offset and
inode) into the cards' `last_used` and `uses`; the card merge driver adds both sides' new uses,
so no use is counted twice.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from cardvault.limits import USES_LEDGER
from cardvault.vault.layout import Vault

LEDGER = "uses.log"
WATERMARK = "uses.folded"
FOLD_LOCK = "uses.lock"
#: The longest line one append writes whole (POSIX's smallest PIPE_BUF).
LINE_LIMIT = 512
_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
_READ = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_LOCK_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
HOWS = frozenset({"context", "read", "show", "cited"})


@dataclass(frozen=True)
class Use:
    """What the ledger holds for one card past the watermark: how many uses, and the last."""

    count: int
    last: dt.date


@dataclass(frozen=True)
class Unfolded:
    """The ledger past this clone's watermark: slug -> its uses, and where the read ended."""

    uses: dict[str, Use] = field(default_factory=dict)
    end: int = 0
    inode: int = 0

    def of(self, names: Iterable[str]) -> Use | None:
        """The uses recorded under any of `names` (a card's slug and aliases), merged."""
        found = [self.uses[name] for name in dict.fromkeys(names) if name in self.uses]
        if not found:
            return None
        return Use(sum(u.count for u in found), max(u.last for u in found))


def cited_cards(text: str) -> list[str]:
    """The card names a log entry's text cites: wiki-links outside code, `→ card: slug` lines
    and card paths (`memory/cards/x.md`), each once, in order."""
    from cardvault.vault.daily import CARD_LINK
    from cardvault.vault.links import cited_paths, link_key, wiki_links

    names = [link.key for link in wiki_links(text)]
    names += [link_key(m.group("slug")) for m in CARD_LINK.finditer(text)]
    names += [link_key(path) for path in cited_paths(text)]
    return list(dict.fromkeys(name for name in names if name))


def ledger_path(vault: Vault) -> Path:
    return vault.cache_dir / LEDGER


def record_uses(vault: Vault, slugs: Iterable[str], how: str, day: dt.date) -> int:
    """Append one line per slug (each once); how many were recorded. Never raises OSError."""
    lines = [
        line
        for slug in dict.fromkeys(slugs)
        if slug and "\t" not in slug and "\n" not in slug
        if len(line := f"{day.isoformat()}\t{slug}\t{how}\n".encode()) <= LINE_LIMIT
    ]
    if not lines:
        return 0
    try:
        vault.cache_dir.mkdir(mode=0o700, exist_ok=True)
        descriptor = os.open(ledger_path(vault), _FLAGS, 0o600)
    except OSError:
        return 0
    written = 0
    try:
        for line in lines:  # one write per line: each is appended whole
            if os.write(descriptor, line) == len(line):
                written += 1
    except OSError:
        pass
    finally:
        os.close(descriptor)
    return written


def read_unfolded(vault: Vault) -> Unfolded:
    """The uses recorded since this clone's last fold (none when there is no ledger)."""
    try:
        descriptor = os.open(ledger_path(vault), _READ)
    except OSError:
        return Unfolded()
    try:
        info = os.fstat(descriptor)
        start = _watermark(vault, info.st_ino, info.st_size)
        os.lseek(descriptor, start, os.SEEK_SET)
        data = os.read(descriptor, min(info.st_size - start, USES_LEDGER)) if info.st_size else b""
    except OSError:
        return Unfolded()
    finally:
        os.close(descriptor)
    whole = data[: data.rfind(b"\n") + 1]
    return Unfolded(_parse(whole), start + len(whole), info.st_ino)


def _parse(data: bytes) -> dict[str, Use]:
    uses: dict[str, Use] = {}
    for raw in data.decode("utf-8", "replace").splitlines():
        parts = raw.split("\t")
        if len(parts) != 3 or parts[2] not in HOWS or not parts[1]:
            continue
        try:
            day = dt.date.fromisoformat(parts[0])
        except ValueError:
            continue
        before = uses.get(parts[1])
        uses[parts[1]] = Use(before.count + 1, max(before.last, day)) if before else Use(1, day)
    return uses


def _watermark(vault: Vault, inode: int, size: int) -> int:
    """Where the last fold ended in this ledger (0 for a new or replaced ledger)."""
    try:
        mark = json.loads((vault.cache_dir / WATERMARK).read_text(encoding="utf-8"))
        offset, seen = int(mark["offset"]), int(mark["inode"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0
    return offset if seen == inode and 0 <= offset <= size else 0


def mark_folded(vault: Vault, folded: Unfolded) -> bool:
    """Move the watermark past what `folded` read (atomic; after the fold's commit); False when
    it could not be written (the next fold would count those uses again)."""
    if not folded.end:
        return True
    target = vault.cache_dir / WATERMARK
    temporary = target.with_name(f".{WATERMARK}.{os.getpid()}")
    try:
        temporary.write_text(json.dumps({"offset": folded.end, "inode": folded.inode}))
        os.replace(temporary, target)
    except OSError:
        temporary.unlink(missing_ok=True)
        return False
    return True


@contextlib.contextmanager
def folding(vault: Vault) -> Iterator[None]:
    """Held by a maintenance run from reading the ledger to moving the watermark, so a second
    run waiting for the vault lock cannot read the old watermark and fold the same uses again
    (`.cardvault/uses.lock`, an advisory `flock`; taken before the vault lock, never after)."""
    try:
        import fcntl
    except ImportError:  # no flock here: the vault lock alone orders the runs
        yield
        return
    try:
        vault.cache_dir.mkdir(mode=0o700, exist_ok=True)
        descriptor = os.open(vault.cache_dir / FOLD_LOCK, _LOCK_FLAGS, 0o600)
    except OSError:
        yield
        return
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)
