"""Merging two versions of a daily log: entry by entry, each entry once, in time order.

A log is a preamble (the `# YYYY-MM-DD` title) and `## HH:MM — Title` entries (found by
vault/daily.py, so a `##` inside a code block is not an entry). Two clones that both appended to
the same day's log keep every entry of both, once: our file's entries stay where they are and in
their order, and each entry only the other side added goes before the first of ours with a later
time. An entry one side removed (`forget` rewrites logs) stays removed; an entry one side edited
is the edited one. Only the preamble can conflict (both sides retitled the log).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from cardvault.sync.merge_text import Merged, merge3
from cardvault.vault.daily import parse_log


@dataclass(frozen=True)
class LogParts:
    """A log split into its preamble and its entries' texts (trailing blank lines dropped)."""

    preamble: str
    entries: tuple[str, ...]
    times: tuple[str, ...]


def split_log(text: str, path: Path) -> LogParts:
    """The preamble and each entry's text, in file order."""
    entries = parse_log(text, path, ())
    lines = text.split("\n")
    if not entries:
        return LogParts(text, (), ())
    starts = [entry.line - 1 for entry in entries] + [len(lines)]
    preamble = "\n".join(lines[: starts[0]])
    chunks = tuple("\n".join(lines[a:b]).rstrip() for a, b in pairwise(starts))
    return LogParts(preamble, chunks, tuple(entry.time for entry in entries))


def merge_log(base: str, ours: str, theirs: str, path: Path) -> Merged:
    """`ours` and `theirs` merged against `base` (see the module docstring)."""
    if ours == theirs or theirs == base:
        return Merged(ours)
    if ours == base:
        return Merged(theirs)
    b, o, t = split_log(base, path), split_log(ours, path), split_log(theirs, path)
    removed_by_theirs = set(b.entries) - set(t.entries)
    kept = [
        (e, time) for e, time in zip(o.entries, o.times, strict=True) if e not in removed_by_theirs
    ]
    known = set(b.entries) | set(o.entries)
    for entry, time in zip(t.entries, t.times, strict=True):
        if entry not in known:
            at = next((i for i, (_, other) in enumerate(kept) if other > time), len(kept))
            kept.insert(at, (entry, time))
            known.add(entry)
    preamble = merge3(b.preamble, o.preamble, t.preamble)
    head = preamble.text.rstrip("\n")
    body = "\n\n".join(entry for entry, _ in kept)
    text = f"{head}\n\n{body}\n" if head and body else (head or body) + "\n"
    return Merged(text, preamble.conflicts)
