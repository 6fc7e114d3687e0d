"""A new card's topic: the lesson in a few words, taken from the lesson lines, not the incident.

The lines are taken most rule-like first (PRIORITY); the topic is the first clause of at least
MIN_WORDS words that reads as advice on its own, else the first clause of the first line, cut
at a natural break to at most MAX_WORDS words. Code spans and literals are never split.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cardvault.maintain.text import word_set

if TYPE_CHECKING:
    from cardvault.maintain.lessons import Lesson

MAX_WORDS = 10
MIN_WORDS = 3
#: Signal kinds, most rule-like first.
PRIORITY = ("rule", "prevention", "lesson", "tag", "decision", "preference", "correction")
LATER = ("gotcha", "fix", "mistake")
#: What is never split nor cut inside: a code span, and a braced or bracketed literal written
#: without backticks (`connect_args={"statement_cache_size": 0}`, `ports: [80, 443]`).
_CODE = re.compile(r"`[^`]*`|\{[^{}\n]*\}|\[[^\[\]\n]*\]")
_CLAUSE_BREAK = re.compile(
    r";\s+|:\s+|\s[—–]\s|\.\s+|,\s+(?=(?:so|because|since|which|otherwise|but|and then)\b)"
    r"|\s+(?=(?:so that|because|otherwise)\b)"
)
_PARENS = re.compile(r"\s*\([^()]*\)")
#: Words a long clause may be cut before ("... on every kubectl command | and run ...").
_ADVICE_START = word_set(
    "always never don't do use set pass keep run add avoid prefer check wrap put send store "
    "give pin make create call commit load open paginate enable disable switch move test "
    "monitor normalise normalize compare track wait retry copy quote start take back limit "
    "cap close free rotate revoke mask log generate include bump start stop"
)
_ADVICE_WORDS = frozenset(["must", "should", "need", "needs"])
#: First words that point back into the incident ("the repo needs ...", "it must ..."): such a
#: clause is no title read without the entry.
_POINTING_BACK = frozenset(["the", "it", "its", "this", "that", "these", "those", "they", "their"])
_BREAK_WORDS = word_set(
    "and or but so because when while after before until unless if as with without by from "
    "for in on at into than instead"
)


def lesson_topic(group: Sequence[Lesson]) -> str:
    """The topic for a card distilled from `group`."""
    lines = _ranked_lines(group) or [lesson.text for lesson in group if lesson.lines == ()]
    for line in lines:
        for clause in clauses(line):
            if len(clause.split()) >= MIN_WORDS and _advice(clause):
                return clause
    for line in lines:
        clause = clauses(line)[0] if clauses(line) else ""
        if len(clause.split()) >= MIN_WORDS:
            return clause
    title = next((lesson.entry.title for lesson in group if lesson.entry.title.strip()), "")
    return title.strip() or " ".join(group[0].text.split()[:MAX_WORDS])


def _ranked_lines(group: Sequence[Lesson]) -> list[str]:
    order = {kind: rank for rank, kind in enumerate(PRIORITY + LATER)}
    found: list[tuple[int, int, str]] = []
    for position, lesson in enumerate(group):
        prevention = lesson.entry.fields.get("prevention") if lesson.entry.is_correction else None
        if prevention:
            found.append((order["prevention"], position, prevention))
        for signal in lesson.entry.signals:
            if signal.text and not (lesson.entry.is_correction and signal.kind == "prevention"):
                found.append((order.get(signal.kind, len(order)), position, signal.text))
    return [text for _, _, text in sorted(found, key=lambda f: (f[0], f[1]))]


def clauses(line: str) -> list[str]:
    """The line's clauses, without code marks or parentheses, each at most MAX_WORDS words."""
    spans: list[str] = []

    def hold(match: re.Match[str]) -> str:
        found = match.group()
        spans.append(found[1:-1] if found.startswith("`") else found)
        return f"\x00{len(spans) - 1}\x00"

    held = _PARENS.sub("", _CODE.sub(hold, line.strip()))
    found = []
    for part in _CLAUSE_BREAK.split(held):
        words = _shortened(part.split(), spans)
        text = re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], " ".join(words))
        text = text.strip(" .,;:!")
        if text:
            found.append(text[:1].upper() + text[1:])
    return found


def _advice(clause: str) -> bool:
    """Whether a clause reads as advice on its own: an imperative, or a modal whose subject is
    not the incident's ("the repo must ...")."""
    words = clause.lower().split()
    if words[0] in _ADVICE_START:
        return True
    return words[0] not in _POINTING_BACK and any(w in _ADVICE_WORDS for w in words)


def _shortened(words: list[str], spans: list[str]) -> list[str]:
    """At most MAX_WORDS words (a code span counts its own), cut before a late linking word."""
    sizes = [_size(word, spans) for word in words]
    if sum(sizes) <= MAX_WORDS:
        return words
    fits = 0
    while fits < len(words) and sum(sizes[: fits + 1]) <= MAX_WORDS:
        fits += 1
    for cut in range(fits, MIN_WORDS, -1):
        if cut < len(words) and words[cut].lower() in _BREAK_WORDS:
            return words[:cut]
    return words[: max(fits, 1)]


def _size(word: str, spans: list[str]) -> int:
    held = re.fullmatch(r"\x00(\d+)\x00", word)
    return len(spans[int(held.group(1))].split()) if held else 1
