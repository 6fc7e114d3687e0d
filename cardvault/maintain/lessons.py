"""Lessons: the log entries a distill run takes up, and how they group.

An entry is a lesson when it has a distillation signal (a `Lesson:`-style line, a `#lesson`
tag, a structured correction) or a `→ card: slug` link, no card (live or archived) cites it in
`sources` yet, and it is not older than `--since`. Its body lines are its signal lines (a
structured correction gives `Mistake:`, `Fix:`, `Prevention:` lines); an entry that only links
a card adds no text, only its citation. What the model compares is the entry title plus those
lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardvault.maintain.clusters import constrained_clusters
from cardvault.maintain.contradict import claims, contradictions
from cardvault.maintain.similarity import pairs_above
from cardvault.vault.daily import LogEntry
from cardvault.vault.links import link_key

if TYPE_CHECKING:
    import numpy as np

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
        """What the model reads: the entry title and the lesson lines."""
        body = " ".join(self.lines) or _narrative(self.entry)
        return f"{self.entry.title}\n\n{body}".strip()

    @property
    def severity(self) -> str | None:
        value = self.entry.fields.get("severity", "").strip().lower()
        return value if value in ("low", "medium", "high") else None

    @property
    def rule(self) -> str | None:
        rules = [s.text for s in self.entry.signals if s.kind == "rule"]
        return rules[0] if rules else None


def pending_lessons(state: VaultState) -> list[Lesson]:
    """Entries to distill, oldest first."""
    cited = state.cited()
    found = []
    for entry in sorted(state.entries, key=lambda e: (e.day, e.time, e.ordinal)):
        if state.since is not None and entry.day < state.since:
            continue
        if entry.ref in cited or not (entry.has_signal or entry.card_links):
            continue
        target = link_key(entry.card_links[0]) if entry.card_links else None
        found.append(Lesson(entry, lesson_lines(entry), target))
    return found


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


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text[:1].upper() + text[1:]


def _narrative(entry: LogEntry) -> str:
    kept = [line for line in entry.body.splitlines() if not _LINK_LINE.match(line)]
    return " ".join(" ".join(kept).split())


def group_lessons(
    lessons: list[Lesson], vectors: np.ndarray, threshold: float
) -> list[list[Lesson]]:
    """Lessons saying the same thing, as groups (a group of one for a lesson that stands alone).

    Lessons linked to different cards, or contradicting each other, never share a group.
    """

    polar = [claims(lesson.text) for lesson in lessons]  # once each: `apart` runs per pair

    def apart(i: int, j: int) -> bool:
        left, right = lessons[i], lessons[j]
        if left.target and right.target and left.target != right.target:
            return True
        return bool(polar[i] and polar[j] and contradictions(polar[i], polar[j]))

    pairs = pairs_above(vectors, threshold) if len(lessons) > 1 else []
    targets = {lesson.target for lesson in lessons if lesson.target}
    free = not any(polar) and len(targets) <= 1  # nothing can keep two apart: skip the checks
    clusters = constrained_clusters(len(lessons), pairs, *([] if free else [apart]))
    return [[lessons[i] for i in group] for group in clusters]
