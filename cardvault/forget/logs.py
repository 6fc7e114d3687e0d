"""Which daily-log lines `forget` removes, and the logs' text without them.

A line mentions the topic when it holds a forgotten card's slug, alias or topic as a phrase, or
every word of a keyword query (`Needles`). An entry goes whole when a forgotten card cites it,
it links to one, its heading mentions the topic, or only blank lines would be left of it; else
only its mentioning lines go. Entries are known by the id they have on every clone
(vault/entry_ids.py). Every other byte stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from cardvault.vault.card import Card
from cardvault.vault.daily import UNTIMED, LogEntry
from cardvault.vault.entry_ids import cited_entry, clone_refs, is_positional, with_id
from cardvault.vault.files import FileText
from cardvault.vault.links import link_key
from cardvault.vault.read import VaultSnapshot

_WORD = re.compile(r"\w+")


def words(text: str) -> set[str]:
    """Lower-case whole words of `text` (hyphenated names split into their words)."""
    return {w.lower() for w in _WORD.findall(text)}


def _phrases(texts: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern matching any of `texts` as a whole phrase (lower case, any run of spaces
    between words); longest first, so a topic wins over a slug it contains."""
    alternatives = sorted(
        {r"\s+".join(re.escape(part) for part in t.lower().split()) for t in texts if t.strip()},
        key=lambda alt: (-len(alt), alt),
    )
    if not alternatives:
        return None
    return re.compile(r"(?<![\w-])(?:" + "|".join(alternatives) + r")(?![\w-])")


@dataclass(frozen=True)
class Needles:
    """What mentions the forgotten topic."""

    phrases: re.Pattern[str] | None  # slugs, aliases and topics of the forgotten cards
    slugs: frozenset[str]  # slugs and aliases, for `→ card:` links
    sources: frozenset[str]  # log entries the forgotten cards cite
    query_words: frozenset[str]  # all of them on one line is a mention (keyword queries)

    @classmethod
    def of(
        cls,
        query: str,
        cards: Iterable[Card],
        exact: bool,
        sources: Iterable[str] | None = None,
    ) -> Needles:
        """What mentions `query` and the `cards`; `sources`: the entries they cite, when not
        their `sources` as written (`content_sources`)."""
        cards = list(cards)
        names = {name for c in cards for name in (c.slug, *c.aliases) if name.strip()}
        texts = names | {c.topic for c in cards if c.topic.strip()}
        if exact:
            texts.add(query.strip())
        wanted = frozenset() if exact else frozenset(words(query))
        return cls(
            phrases=_phrases(texts),
            slugs=frozenset(names),
            sources=frozenset(
                sources if sources is not None else (s for c in cards for s in c.sources)
            ),
            query_words=wanted,
        )

    def names_card(self, line: str) -> bool:
        """Whether `line` names a forgotten card (slug, alias or topic)."""
        return self.phrases is not None and self.phrases.search(line.lower()) is not None

    def mentions(self, line: str) -> bool:
        """Whether `line` mentions the forgotten topic."""
        if self.names_card(line):
            return True
        return bool(self.query_words) and self.query_words <= words(line)

    def takes_entry(self, entry: LogEntry, heading: str, ref: str) -> bool:
        """Whether `entry`, whose id citation is `ref`, goes whole (cited, linked, or its
        heading mentions the topic)."""
        linked = {link_key(link) for link in entry.card_links}
        cited = ref in self.sources or entry.position_ref in self.sources
        return cited or bool(linked & self.slugs) or self.mentions(heading)


def content_sources(snapshot: VaultSnapshot, cards: Iterable[Card]) -> frozenset[str]:
    """The entries `cards` cite, each by the id citation it has on every clone: a positional
    citation is read by content (vault/entry_ids.cited_entry), and one that names no entry
    clearly is left out: forget never removes an entry, on every clone, on a guess."""
    logs = {snapshot.rel(log.file.path): log for log in snapshot.logs}
    found: set[str] = set()
    for card in cards:
        text = f"{card.topic}\n{card.body}"
        for source in card.sources:
            log = logs.get(source.partition("#")[0])
            if log is None or not is_positional(source):
                found.add(source)
                continue
            entry = cited_entry(source, log.entries, text)
            if entry is not None:
                stamped = clone_refs(list(log.entries), log.file.text, log.file.path)
                found.add(stamped.get(entry.position_ref, entry.ref))
    return frozenset(found)


@dataclass(frozen=True)
class LogCut:
    """One daily log's removals: 1-based lines, the entries removed whole, the new text."""

    file: FileText
    rel: str
    removed: tuple[int, ...]
    entries: tuple[str, ...]  # "HH:MM" (or "untimed") of each entry removed whole
    new_text: str | None  # None: the log goes (nothing but its title would be left)
    refs: frozenset[str] = frozenset()  # every citation of an entry removed whole
    given_ids: tuple[str, ...] = ()  # "HH:MM" of kept entries that copied an id that goes

    @property
    def reason(self) -> str:
        if self.new_text is None:
            return f"removed {self.rel} (every entry mentioned the topic)"
        whole = f", entries {', '.join(self.entries)} whole" if self.entries else ""
        own = f", gave {', '.join(self.given_ids)} an id of its own" if self.given_ids else ""
        return f"rewrote {self.rel}: removed {len(self.removed)} line(s){whole}{own}"

    def removed_lines(self) -> list[tuple[int, str]]:
        """(line number, text) of each removed line, for showing the plan."""
        lines = self.file.text.splitlines()
        return [(n, lines[n - 1]) for n in self.removed]


def cut_logs(snapshot: VaultSnapshot, needles: Needles) -> list[LogCut]:
    """The cut of every daily log that mentions the topic (unreadable logs, and logs too big to
    read whole, are left alone: `check` reports them)."""
    cuts = (
        cut_log(log.file, snapshot.rel(log.file.path), list(log.entries), needles)
        for log in snapshot.logs
        if snapshot.rel(log.file.path) not in snapshot.partial
    )
    return [cut for cut in cuts if cut is not None]


def cut_log(file: FileText, rel: str, entries: list[LogEntry], needles: Needles) -> LogCut | None:
    """One log's cut, or None when it does not mention the topic."""
    lines = file.text.splitlines(keepends=True)
    drop: set[int] = set()
    whole: list[str] = []
    refs: set[str] = set()
    stamped = clone_refs(entries, file.text, file.path)
    first = entries[0].line - 1 if entries else len(lines)
    drop.update(i for i in range(first) if not _is_title(lines, i) and needles.mentions(lines[i]))
    for number, entry in enumerate(entries):
        start = entry.line - 1
        stop = entries[number + 1].line - 1 if number + 1 < len(entries) else len(lines)
        hits = {i for i in range(start + 1, stop) if needles.mentions(lines[i])}
        rest = [i for i in range(start + 1, stop) if i not in hits and lines[i].strip()]
        ref = stamped.get(entry.position_ref, entry.ref)
        if needles.takes_entry(entry, lines[start], ref) or (hits and not rest):
            drop.update(range(start, stop))
            whole.append(entry.time or UNTIMED)
            refs.update((entry.position_ref, ref))
        else:
            drop.update(hits)
    if not drop:
        return None
    _drop_trailing_gap(lines, drop)
    given = _own_ids(lines, entries, drop, stamped, refs)
    kept = [line for i, line in enumerate(lines) if i not in drop]
    left_empty = all(not line.strip() or _is_title(kept, i) for i, line in enumerate(kept))
    new_text = None if left_empty else "".join(kept)
    removed = tuple(sorted(i + 1 for i in drop))
    return LogCut(file, rel, removed, tuple(whole), new_text, frozenset(refs), given)


def _own_ids(
    lines: list[str],
    entries: list[LogEntry],
    drop: set[int],
    stamped: dict[str, str],
    going: set[str],
) -> tuple[str, ...]:
    """Give each kept entry whose heading holds the id of an entry that goes (its heading was
    copied from that entry's) the id `maintain` gives it, in `lines`: once the entry that owned
    the id is gone, the forget's record of it must not take the copy. Their times."""
    given = []
    for entry in entries:
        index = entry.line - 1
        own = stamped.get(entry.position_ref)
        if index in drop or own is None or own == entry.ref or entry.ref not in going:
            continue
        lines[index] = with_id(lines[index], own.rpartition("#")[2])
        given.append(entry.time or UNTIMED)
    return tuple(given)


def _is_title(lines: list[str], index: int) -> bool:
    return index == 0 and lines[0].startswith("# ")


def _drop_trailing_gap(lines: list[str], drop: set[int]) -> None:
    """When the end of the log goes, the blank lines that led up to it go too."""
    index = len(lines) - 1
    while index >= 0 and index in drop:
        index -= 1
    if index == len(lines) - 1:
        return
    while index > 0 and not lines[index].strip():
        drop.add(index)
        index -= 1
