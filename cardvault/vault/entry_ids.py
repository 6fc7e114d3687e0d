"""Log entries' identities: the one builder of new entries, ids for old ones, and citations.

An entry's id ends its heading, `## 14:30 — Title <!-- id:3f9a2c -->`, and a card cites it as
`memory/2026-03-19.md#3f9a2c` whatever merges or edits do around it. A new id is random: two
clones logging the same words in the same minute make two entries. An old entry gets
`derived_id`, the same on every clone, so two clones stamping it write the same bytes. The old
positional citation (`#14:30-2`) still resolves; `cited_entry` reads it by content where it must
name the right entry (a merge may have interleaved two clones' entries of one minute).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cardvault.vault.daily import (
    ENTRY_ID,
    UNTIMED,
    LogEntry,
    appended_log_text,
    in_line_ends,
    parse_log,
)
from cardvault.words import words

ID_LENGTH = 6
#: The share of an entry's words a card must hold for a positional citation to be read as
#: naming that entry (`cited_entry`).
CONTENT_SHARE = 0.5
_ORDINAL = re.compile(r"-\d+$")
#: Ids on heading lines, found without parsing (a match inside a code block only reserves an
#: id that is then not used: harmless).
_IDS_IN_TEXT = re.compile(r"^ {0,3}##[ \t].*<!--[ \t]*id:[ \t]*([0-9a-f]{6,16})[ \t]*-->", re.M)


@dataclass(frozen=True)
class AppendedEntry:
    """A log's text with a new entry appended, the id given to it, and its citation."""

    text: str
    entry_id: str
    ref: str


def ids_in(text: str | None) -> set[str]:
    """The entry ids a log's text already uses."""
    return set(_IDS_IN_TEXT.findall(text or ""))


def fresh_id(taken: Iterable[str]) -> str:
    """A random id no entry of `taken` has."""
    used = set(taken)
    while True:
        candidate = secrets.token_hex(ID_LENGTH // 2)
        if candidate not in used:
            return candidate


def with_id(entry_text: str, entry_id: str) -> str:
    """`entry_text` (format_entry's Markdown) with `entry_id` at the end of its heading line;
    an id already there is replaced."""
    heading, newline, rest = entry_text.partition("\n")
    ending = "\r" if heading.endswith("\r") else ""  # a CRLF log's heading keeps its line end
    heading = heading.removesuffix("\r")
    marked = ENTRY_ID.search(heading)
    heading = heading[: marked.start()] if marked else heading.rstrip()
    return f"{heading} <!-- id:{entry_id} -->{ending}{newline}{rest}"


def append_entry(current: str | None, day: dt.date, entry_text: str) -> AppendedEntry:
    """The log's new text with `entry_text` (format_entry's Markdown, without an id, or with
    one it keeps when no entry of the day has it: an imported entry) appended under an id of
    its own. Call under the vault lock, with the log as it is now."""
    entry_id = _own_id(entry_text, ids_in(current))
    text = appended_log_text(current, day, with_id(entry_text, entry_id))
    return AppendedEntry(text, entry_id, f"memory/{day.isoformat()}.md#{entry_id}")


def append_entries(current: str | None, day: dt.date, entry_texts: Iterable[str]) -> str:
    """`append_entry` of each of `entry_texts` in turn (import's entries of one day), in time
    linear in them: the blocks a log leaves open are looked for in its last entry only, as
    everything before it was closed when that entry was appended."""
    text = current
    taken = ids_in(current)
    start = 0  # where the last entry appended starts in `text` (0: look at all of it)
    for entry_text in entry_texts:
        entry = with_id(entry_text, _own_id(entry_text, taken))
        taken |= ids_in(entry)
        head, basis = (text[:start], text[start:]) if text is not None else ("", None)
        text = head + appended_log_text(basis, day, entry)
        start = len(text) - len(in_line_ends(entry, basis))
    return text or ""


def _own_id(entry_text: str, taken: set[str]) -> str:
    """The id on `entry_text`'s heading when no entry of the day has it, else a fresh one."""
    marked = ENTRY_ID.search(entry_text.partition("\n")[0])
    kept = marked.group("id") if marked and marked.group("id") not in taken else None
    return kept or fresh_id(taken)


def derived_id(entry: LogEntry, taken: set[str], occurrence: int = 0) -> str:
    """An id for an entry written without one, from its day, time, title, body and which
    occurrence of that same text in the day it is: the same on every clone. Lengthened while
    another entry of the day has it."""
    material = f"{entry.day.isoformat()}\n{entry.time}\n{entry.title}\n{entry.body}\n{occurrence}"
    digest = hashlib.sha256(material.encode("utf-8", "surrogateescape")).hexdigest()
    length = ID_LENGTH
    while digest[:length] in taken and length < 16:
        length += 2
    return digest[:length]


@dataclass(frozen=True)
class StampedLog:
    """A log with an id on every entry, and what each old citation of it now reads."""

    text: str
    renamed: dict[str, str]  # positional ref -> id ref, for every entry of the log
    stamped: int  # entries that got an id


def stamped_log(text: str, path: Path) -> StampedLog:
    """`text` with `derived_id`s added to the headings of entries that have none, or whose id an
    earlier entry already has (a copied heading); every other byte stays. `renamed` maps each
    entry's positional citation to its id citation. An entry whose heading holds a secret
    (guard.scan_text) gets no id: rewriting that line would copy the secret into a new commit,
    out of reach of a purge of the one that brought it."""
    from cardvault.guard import scan_text

    entries = parse_log(text, path, ())
    taken = {e.entry_id for e in entries if e.entry_id} | ids_in(text)
    lines = text.split("\n")
    renamed: dict[str, str] = {}
    seen: dict[tuple[str, str, str], int] = {}
    kept: set[str] = set()
    stamped = 0
    for entry in entries:
        key = (entry.time, entry.title, entry.body)
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        entry_id = entry.entry_id if entry.entry_id not in kept else None
        if entry_id is None:
            if scan_text(lines[entry.line - 1]):
                continue
            entry_id = derived_id(entry, taken, occurrence)
            taken.add(entry_id)
            index = entry.line - 1
            lines[index] = with_id(lines[index], entry_id)
            stamped += 1
        kept.add(entry_id)
        renamed[entry.position_ref] = f"{entry.log}#{entry_id}"
    return StampedLog("\n".join(lines), renamed, stamped)


def clone_refs(entries: Sequence[LogEntry], text: str, path: Path) -> dict[str, str]:
    """Each of `entries` (parsed from `text`) by its positional citation -> the id citation it has
    on every clone: its own when every entry holds a distinct id, else the one `stamped_log`
    gives it, as maintain does (an entry left without one is left out)."""
    ids = [entry.entry_id for entry in entries]
    if None not in ids and len(set(ids)) == len(ids):
        return {entry.position_ref: entry.ref for entry in entries}
    return stamped_log(text, path).renamed


def entries_by_ref(entries: Iterable[LogEntry]) -> dict[str, LogEntry]:
    """Every citation that names an entry -> the entry: its id ref, and its old positional
    ref (an id ref and a positional one never look alike: an id has no colon)."""
    entries = list(entries)
    found = {entry.ref: entry for entry in reversed(entries)}  # a repeated id: the first
    for entry in entries:
        found.setdefault(entry.position_ref, entry)
    return found


def is_positional(ref: str) -> bool:
    """Whether a citation names a log entry by its position (`memory/D.md#14:30-2`, an
    untimed one's `memory/D.md#untimed-2`)."""
    _, hash_mark, anchor = ref.partition("#")
    positional = ":" in anchor or anchor.partition("-")[0] == UNTIMED
    return bool(hash_mark) and ref.startswith("memory/") and positional


def cited_entry(ref: str, entries: Sequence[LogEntry], text: str) -> LogEntry | None:
    """The entry of `entries` that `ref`, cited by `text` (the card's topic and body), names: by
    id, that entry; by position, the only entry of its minute, else the one whose words (of more
    than two letters) `text` holds the largest share of, at least CONTENT_SHARE and more than any
    other's; None when no entry clearly is it."""
    if not is_positional(ref):
        return entries_by_ref(entries).get(ref)
    minute = _ORDINAL.sub("", ref)
    same = [entry for entry in entries if _ORDINAL.sub("", entry.position_ref) == minute]
    if len(same) == 1 and same[0].position_ref == ref:
        return same[0]
    held = set(words(text))
    scored = sorted(((_share(entry, held), n) for n, entry in enumerate(same)), reverse=True)
    if not scored or scored[0][0] < CONTENT_SHARE:
        return None
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    return same[scored[0][1]]


def _share(entry: LogEntry, held: set[str]) -> float:
    """The share of `entry`'s words (title and body, of more than two letters) in `held`."""
    own = {word for word in words(f"{entry.title}\n{entry.body}") if len(word) > 2}
    return len(own & held) / len(own) if own else 0.0
