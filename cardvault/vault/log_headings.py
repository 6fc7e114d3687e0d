"""An entry heading's time and title, as cardvault and agents write them.

cardvault writes `## 14:30 — Title`; agents write `## 10:30 PM — Compound Review`,
`## Proactive Work Session (11:00 AM)`, `## 3am — ...`, `## 10:20 WITA — ...`,
`## 知识整理工作（凌晨2:00）`, `## [2026-05-21 14:05] session-end`. A time is the heading's when
it leads it (after a date or a word for a part of the day), sits in parentheses or brackets, or
follows a date; elsewhere ("Notes on the 10:00 standup") it is part of the title. The title is
the text after a leading time's dash, else the heading with the time (and its parentheses,
date and zone) taken out."""

from __future__ import annotations

import re

from cardvault.vault.signal_forms import EVENING_WORDS, MORNING_WORDS

_PERIOD = "|".join(map(re.escape, MORNING_WORDS + EVENING_WORDS))
_DATE = r"\d{4}-\d{2}-\d{2}[ T]+"
#: A time of day: `14:30`, `9:00 PM`, `3am`, `01:00-01:15 AM` (a range), `10:20 WITA` (a zone,
#: upper case, where the time ends: before a dash, a colon, a parenthesis or the end).
_TIME = re.compile(
    rf"(?P<date>{_DATE})?(?:(?P<period>{_PERIOD})[ \t]*)?"
    r"(?<![\d:.])(?P<h>\d{1,2})(?!\d)(?:[:：](?P<m>\d{2})(?!\d))?"
    r"(?:[ \t]*[-–~][ \t]*\d{1,2}:\d{2}(?!\d))?"
    r"(?:[ \t]*(?P<ampm>[AaPp]\.?[Mm]\.?)(?![A-Za-z]))?"
    r"(?:[ \t]+[A-Z]{2,5}(?:[+-]\d{1,2})?(?=[ \t]*(?:$|[-–—:)）\]])))?"
)
#: What separates a leading time from the title: one dash or colon and its spaces.
_SEPARATOR = re.compile(r"[ \t]*(?:—|–|-{1,2}|:)?[ \t]*")
_EDGES = " \t—–-:|·"


def heading_time(heading: str) -> tuple[str, str]:
    """(time, title) of an entry heading's text (its id comment already taken off); time is
    "HH:MM" (24-hour), or "" when the heading gives none."""
    lead = len(heading) - len(heading.lstrip())
    opened: list[int] = []  # made for the first time that does not lead the heading
    for match in _TIME.finditer(heading):
        if match.group("m") is None and match.group("ampm") is None:
            continue
        time, at = _clock(match), match.start()
        if at == lead:
            title = heading[_SEPARATOR.match(heading, match.end()).end() :]  # type: ignore[union-attr]
            return time, title.strip()
        opened = opened or _open_parens(heading)
        if opened[at] >= 0:
            close = _close_paren(heading, match.end())
            return time, _tidy(heading[: opened[at]] + " " + heading[close:])
        if match.group("date"):
            return time, _tidy(heading[:at] + " " + heading[match.end() :])
    return "", heading.strip()


def _clock(match: re.Match[str]) -> str:
    hours, minutes = int(match.group("h")), match.group("m") or "00"
    marker = (match.group("ampm") or "").lower().replace(".", "")
    evening = marker == "pm" or (not marker and match.group("period") in EVENING_WORDS)
    if hours <= 12 and (marker or match.group("period")):
        hours = hours % 12 + (12 if evening else 0)
    return f"{hours:02d}:{minutes}"


def _open_parens(text: str) -> list[int]:
    """For each position of `text`, where the innermost parenthesis (or bracket) open there
    starts, -1 where none is: one pass, looked up for each time the heading holds."""
    found: list[int] = []
    stack: list[int] = []
    for at, char in enumerate(text):
        found.append(stack[-1] if stack else -1)
        if char in "(（[":
            stack.append(at)
        elif char in ")）]" and stack:
            stack.pop()
    return found


def _close_paren(text: str, start: int) -> int:
    """Just after the parenthesis that closes at or after `start` (the end, if none does)."""
    found = [at for at in (text.find(close, start) for close in ")）]") if at != -1]
    return min(found) + 1 if found else len(text)


def _tidy(title: str) -> str:
    return " ".join(title.split()).strip(_EDGES)
