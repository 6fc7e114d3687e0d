"""Lessons: the log entries a distill run takes up, and what of each the model reads.

An entry is a lesson when it has a distillation signal or a `→ card: slug` link, no card cites
it yet, and it is not older than `--since`. Where it goes is decided on its lesson text (the
signal lines, not the title, which names the incident) and the whole entry (evidence.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardvault.maintain.evidence import Telling
from cardvault.vault.daily import LogEntry
from cardvault.vault.links import link_key

if TYPE_CHECKING:
    from cardvault.maintain.state import VaultState

CORRECTION_LINES = ("mistake", "fix", "prevention")
_LINK_LINE = re.compile(r"^\s*(?:[-*+]\s+)?(?:→|->)\s*card:", re.IGNORECASE)


@dataclass(frozen=True)
class Lesson:
    """One log entry to distill."""

    entry: LogEntry
    lines: tuple[str, ...]
    target: str | None  # the slug its `→ card:` link names

    @property
    def ref(self) -> str:
        return self.entry.ref

    @property
    def text(self) -> str:
        """The lesson itself: the signal lines (the story, for an entry that only links)."""
        return " ".join(self.lines) or _narrative(self.entry) or self.entry.title

    @property
    def raw(self) -> str:
        """The title and the lesson lines as the log has them: what the secret guard reads."""
        lines = [s.text for s in self.entry.signals] + list(self.entry.fields.values())
        return "\n".join([self.entry.title, *lines])

    @property
    def whole(self) -> str:
        return whole_text(self.entry)

    @property
    def telling(self) -> Telling:
        return Telling(self.ref, self.text, self.whole)

    @property
    def query(self) -> str:
        """What is compared with a whole card: the title and the lesson lines."""
        return f"{self.entry.title}\n\n{self.text}".strip()

    @property
    def severity(self) -> str | None:
        value = self.entry.fields.get("severity", "").strip().lower()
        return value if value in ("low", "medium", "high") else None

    @property
    def rule(self) -> str | None:
        return next((s.text for s in self.entry.signals if s.kind == "rule"), None)


def pending_lessons(state: VaultState) -> list[Lesson]:
    """Entries to distill, oldest first."""
    cited = state.cited()
    found = []
    for entry in sorted(state.entries, key=lambda e: (e.day, e.time, e.ordinal)):
        if state.since is not None and entry.day < state.since:
            continue
        if entry.cited_in(cited) or not (entry.has_signal or entry.card_links):
            continue
        target = link_key(entry.card_links[0]) if entry.card_links else None
        found.append(Lesson(entry, lesson_lines(entry), target))
    return found


def whole_text(entry: LogEntry) -> str:
    """An entry's title and body as the search index embeds it (so its vector is shared)."""
    return f"{entry.title}\n\n{entry.body.strip()}"


def entry_telling(entry: LogEntry) -> Telling:
    """What the evidence scorer reads of an entry a card already cites."""
    return Lesson(entry, lesson_lines(entry), None).telling


def lesson_lines(entry: LogEntry) -> tuple[str, ...]:
    """The sentences an entry contributes to a card."""
    lines: list[str] = []
    if entry.is_correction:
        for key in CORRECTION_LINES:
            if entry.fields.get(key):
                lines.append(f"{key.capitalize()}: {_sentence(entry.fields[key])}")
    for signal in entry.signals:
        if entry.is_correction and signal.kind in CORRECTION_LINES:
            continue
        if signal.text:
            lines.append(_sentence(signal.text))
    return tuple(dict.fromkeys(lines))


#: A first word that may be capitalised: plain lower-case letters (not lock_timeout, iOS, eBPF,
#: `npm ci`: an identifier or a name is a fact, kept as written).
_PLAIN_WORD = re.compile(r"[a-z]+(?![\w`./:@-]*[\w`])")


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text[:1].upper() + text[1:] if _PLAIN_WORD.match(text) else text


def _narrative(entry: LogEntry) -> str:
    kept = [line for line in entry.body.splitlines() if not _LINK_LINE.match(line)]
    return " ".join(" ".join(kept).split())
