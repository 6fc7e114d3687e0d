"""Merging two versions of a daily log: entry by entry, each entry once, in time order.

An entry is named across the three versions by its id (vault/entry_ids.py), else by its text.
Our entries stay where they are and in order; each entry only the other side added goes before
the first of ours with a later time. An entry one side removed (`forget`) stays removed, one
side's edit wins, and both sides' edits merge line by line. A CRLF log is merged as LF and
written back with our file's line ends, so the entries compare the same on both sides.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate, pairwise
from pathlib import Path

from cardvault.sync.merge_text import Merged, merge3, one_side
from cardvault.vault.daily import in_line_ends, parse_log


@dataclass(frozen=True)
class LogParts:
    """A log split into its preamble and its entries' texts (trailing blank lines dropped)."""

    preamble: str
    entries: tuple[str, ...]
    times: tuple[str, ...]
    ids: tuple[str | None, ...] = ()

    def keys(self) -> tuple[str, ...]:
        """What names each entry across versions: its id, else (an entry without one) its text."""
        ids = self.ids or (None,) * len(self.entries)
        pairs = zip(self.entries, ids, strict=True)
        return tuple(f"id:{i}" if i else f"text:{e}" for e, i in pairs)


def split_log(text: str, path: Path) -> LogParts:
    """The preamble and each entry's text, in file order."""
    entries = parse_log(text, path, ())
    lines = text.split("\n")
    if not entries:
        return LogParts(text, (), ())
    starts = [entry.line - 1 for entry in entries] + [len(lines)]
    preamble = "\n".join(lines[: starts[0]])
    chunks = tuple("\n".join(lines[a:b]).rstrip() for a, b in pairwise(starts))
    # an untimed entry (`## Summary`) goes with the time of the entry above it
    times = tuple(accumulate((entry.time for entry in entries), _time_or_above))
    return LogParts(preamble, chunks, times, tuple(entry.entry_id for entry in entries))


def _time_or_above(above: str, time: str) -> str:
    return time or above


def merge_log(base: str, ours: str, theirs: str, path: Path) -> Merged:
    """`ours` and `theirs` merged against `base` (see the module docstring)."""
    if (same := one_side(base, ours, theirs)) is not None:
        return Merged(same)
    if "\r\n" in base + ours + theirs:  # merged as LF, written with our file's line ends
        lf = "\n"
        merged = merge_log(
            base.replace("\r\n", lf), ours.replace("\r\n", lf), theirs.replace("\r\n", lf), path
        )
        return Merged(in_line_ends(merged.text, ours), merged.conflicts)
    b, o, t = split_log(base, path), split_log(ours, path), split_log(theirs, path)
    based = dict(zip(b.keys(), b.entries, strict=True))
    theirs_by_key = dict(zip(t.keys(), t.entries, strict=True))
    conflicts = 0
    kept: list[tuple[str, str]] = []
    for key, entry, time in zip(o.keys(), o.entries, o.times, strict=True):
        was = based.get(key)
        other = theirs_by_key.get(key)
        if was is not None and other is None and entry == was:
            continue  # they removed it (forget), we left it as it was
        if was is not None and other is not None and other != entry:
            merged = merge3(was, entry, other)  # one side's edit wins; both: a conflict
            entry, conflicts = merged.text, conflicts + merged.conflicts
        kept.append((entry, time))
    ours_keys = dict(zip(o.keys(), o.entries, strict=True))
    latest = list(accumulate((time for _, time in kept), max))  # the latest time up to each
    for key, entry, time in zip(t.keys(), t.entries, t.times, strict=True):
        if key in ours_keys and (key in based or ours_keys[key] == entry):
            continue  # merged above, or the same new entry on both sides
        if key in based and entry == based[key]:
            continue  # we removed it; they left it as it was
        at = bisect_right(latest, time)  # the first entry kept with a later time
        kept.insert(at, (entry, time))  # theirs alone (or two new entries of one id: both)
        latest.insert(at, time)  # every latest time before `at` is `time` or earlier
    preamble = merge3(b.preamble, o.preamble, t.preamble)
    head = preamble.text.rstrip("\n")
    body = "\n\n".join(entry for entry, _ in kept)
    text = f"{head}\n\n{body}\n" if head and body else (head or body) + "\n"
    return Merged(text, preamble.conflicts + conflicts)
