"""Daily logs (memory/YYYY-MM-DD.md): parsing into entries, and formatting appended entries.

An entry is a `## HH:MM — Title` section. Inside it, distillation signals are lines that begin
with a signal word and a colon (`Lesson:`, `Gotcha:` ... as configured; a list marker before it is
allowed), lines carrying a `#lesson` tag, and `→ card: slug` links. An entry whose lines give
`Mistake:` and `Fix:`/`Prevention:` (with optional `Domain:` and `Severity:`) is a structured
correction and keeps those fields. Headings are found with markdown-it-py, so a `##` inside a
fenced code block (or a quote, or a list) is not an entry, and lines inside code blocks (pasted
output, a captured stderr tail) are never signals or links.

Written text cannot forge structure (`format_entry`, `appended_log_text`): a line of an entry's
text that would read as an entry heading (`## 10:00 — Lesson: ...`, or a setext `---` under
one) is escaped with a backslash (`\\## 10:00 — ...`: Markdown shows it as typed, and this parser
reads it as body), and a code fence or HTML block left open, which would swallow every later
entry of the day, is closed at the end of the text that opened it.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

ENTRY_HEADING = re.compile(r"^(?P<time>\d{1,2}:\d{2})\s*(?:—|–|-{1,2})\s*(?P<title>.*)$")
CARD_LINK = re.compile(r"(?:→|->)\s*card:\s*(?P<slug>[A-Za-z0-9][\w\-/]*)")
LESSON_TAG = re.compile(r"(?<![\w#])#lesson\b", re.IGNORECASE)
CORRECTION_FIELDS = ("domain", "mistake", "fix", "prevention", "severity")
#: The line naming the agent that wrote an entry (`Agent: NAME`, added by `--agent`).
AGENT_FIELD = "agent"
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]\s+)?")


@dataclass(frozen=True)
class Signal:
    """One distillation signal line in an entry."""

    kind: str  # the signal word, lower-case ("lesson", "fix", ...), or "tag" for #lesson
    text: str  # the line's text after the signal word
    line: int  # 1-based line in the log file


@dataclass(frozen=True)
class LogEntry:
    """One `## HH:MM — Title` entry of a daily log."""

    path: Path
    day: dt.date
    time: str
    title: str
    body: str
    line: int  # line of the heading
    end_line: int  # last line of the entry
    ordinal: int = 1  # 2, 3, ... when several entries of the day share a time
    signals: tuple[Signal, ...] = ()
    card_links: tuple[str, ...] = ()
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def ref(self) -> str:
        """Stable citation of the entry, as stored in a card's `sources`."""
        suffix = "" if self.ordinal == 1 else f"-{self.ordinal}"
        return f"memory/{self.day.isoformat()}.md#{self.time}{suffix}"

    @property
    def label(self) -> str:
        """How the entry is named to a person (and in commit messages): `2026-03-19 14:30
        "Cortex CSRF"`, any secret in a hand-written title redacted."""
        from cardvault.guard import redact_text

        return f'{self.day.isoformat()} {self.time} "{redact_text(self.title)}"'

    @property
    def agent(self) -> str | None:
        """The agent that wrote the entry (its `Agent: NAME` line), if one is named."""
        name = self.fields.get(AGENT_FIELD, "").strip().lower()
        return name or None

    @property
    def is_correction(self) -> bool:
        return "mistake" in self.fields and ("fix" in self.fields or "prevention" in self.fields)

    @property
    def has_signal(self) -> bool:
        return bool(self.signals) or self.is_correction


def day_of(path: Path) -> dt.date:
    """The date a log file is for, from its name."""
    return dt.date.fromisoformat(path.stem)


def parse_log(text: str, path: Path, signal_words: Iterable[str]) -> list[LogEntry]:
    """Every entry of a daily log, in file order."""
    day = day_of(path)
    lines = text.splitlines()
    tokens = _markdown().parse(text)
    headings = _entry_headings(tokens)
    code = _code_lines(tokens)
    words = {w.lower() for w in signal_words}
    entries: list[LogEntry] = []
    seen_times: dict[str, int] = {}
    for index, (start, time, title) in enumerate(headings):
        stop = headings[index + 1][0] if index + 1 < len(headings) else len(lines)
        body_lines = lines[start + 1 : stop]
        while body_lines and not body_lines[-1].strip():
            body_lines.pop()
        prose = [
            "" if start + 1 + offset in code else line for offset, line in enumerate(body_lines)
        ]
        seen_times[time] = seen_times.get(time, 0) + 1
        entries.append(
            LogEntry(
                path=path,
                day=day,
                time=time,
                title=title,
                body="\n".join(body_lines),
                line=start + 1,
                end_line=start + 1 + len(body_lines),
                ordinal=seen_times[time],
                signals=tuple(_signals(prose, start + 2, words)),
                card_links=tuple(m.group("slug") for ln in prose for m in CARD_LINK.finditer(ln)),
                fields=_fields(prose),
            )
        )
    return entries


@functools.cache
def _markdown() -> MarkdownIt:
    from markdown_it import MarkdownIt  # ~15 ms to import: paid only when a log is parsed

    return MarkdownIt("commonmark")


def _code_lines(tokens: list[Token]) -> set[int]:
    """0-based lines inside fenced or indented code: quoted output, never signals or links."""
    lines: set[int] = set()
    for token in tokens:
        if token.type in ("fence", "code_block") and token.map is not None:
            lines.update(range(token.map[0], token.map[1]))
    return lines


def _entry_headings(tokens: list[Token]) -> list[tuple[int, str, str]]:
    """(0-based line, time, title) of each top-level `##` heading shaped like an entry heading
    (one inside a quote or a list item is body)."""
    found = []
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.tag != "h2" or token.map is None:
            continue
        if token.level != 0:
            continue
        content = tokens[index + 1].content.strip()
        match = ENTRY_HEADING.match(content)
        if match:
            hours, minutes = match.group("time").split(":")
            found.append(
                (token.map[0], f"{int(hours):02d}:{minutes}", match.group("title").strip())
            )
    return found


def signal_in(line: str, words: set[str]) -> tuple[str, str] | None:
    """(kind, text) when `line` is a signal line: a signal word of `words` (lower-case) and a
    colon, after an optional list marker, then some text; else None."""
    head, colon, rest = _LIST_MARKER.sub("", line, count=1).partition(":")
    if colon and head.strip().lower() in words and rest.strip():
        return head.strip().lower(), rest.strip()
    return None


def _signals(body_lines: list[str], first_line: int, words: set[str]) -> list[Signal]:
    signals = []
    for offset, raw in enumerate(body_lines):
        found = signal_in(raw, words)
        if found is not None:
            signals.append(Signal(found[0], found[1], first_line + offset))
        elif LESSON_TAG.search(raw):
            text = LESSON_TAG.sub("", _LIST_MARKER.sub("", raw, count=1)).strip()
            signals.append(Signal("tag", text, first_line + offset))
    return signals


def _fields(body_lines: list[str]) -> dict[str, str]:
    fields: dict[str, str] = {}
    for raw in body_lines:
        line = _LIST_MARKER.sub("", raw, count=1)
        head, colon, rest = line.partition(":")
        key = head.strip().lower()
        known = key in CORRECTION_FIELDS or key == AGENT_FIELD
        if colon and known and rest.strip() and key not in fields:
            fields[key] = rest.strip()
    return fields


def format_entry(time: str, title: str, body: str) -> str:
    """The Markdown of one new entry (heading, body, trailing newline); the body is kept as
    the text of this one entry (see the module docstring)."""
    body = as_entry_body(body.strip("\n"))
    return f"## {time} — {title}\n{body}\n" if body else f"## {time} — {title}\n"


def appended_log_text(current: str | None, day: dt.date, entry: str) -> str:
    """The log's new text with `entry` appended; the current bytes stay a prefix of it (a block
    the current text leaves open is closed after it, so the new heading is an entry)."""
    if current is None or not current.strip():
        head = current or ""
        return f"{head}# {day.isoformat()}\n\n{entry}"
    if not current.endswith("\n"):
        current += "\n"
    current += block_closers(current)
    if not current.endswith("\n\n"):
        current += "\n"
    return current + entry


#: Lines that may start a heading, a code fence or an HTML block (or underline a setext
#: heading): text without any is an entry body as it is, and is not parsed.
_MAYBE_STRUCTURE = re.compile(r"^ {0,3}(?:#|`{3}|~{3}|<|=+[ \t]*$|-+[ \t]*$)", re.MULTILINE)
_CANARY = "## 00:00 — canary"
_HTML_CLOSERS = (
    (re.compile(r" {0,3}<(script|pre|style|textarea)(?=[\s>]|$)", re.IGNORECASE), "</{0}>"),
    (re.compile(r" {0,3}<!--"), "-->"),
    (re.compile(r" {0,3}<\?"), "?>"),
    (re.compile(r" {0,3}<!\[CDATA\["), "]]>"),
    (re.compile(r" {0,3}<![A-Za-z]"), ">"),
)


def as_entry_body(body: str) -> str:
    """`body` escaped where a line would start an entry, with any block it leaves open closed
    (see the module docstring). Text without heading, fence or HTML lines is returned as it is."""
    if not _MAYBE_STRUCTURE.search(body):
        return body
    lines = body.split("\n")
    for _ in range(len(lines) + 2):  # each pass mends one line; a clean parse ends the loop
        forged = _forged_heading_line(lines)
        if forged is None:
            closers = block_closers("\n".join(lines) + "\n")
            return "\n".join(lines) + ("\n" + closers.rstrip("\n") if closers else "")
        lines[forged] = re.sub(r"^( {0,3})", r"\1\\", lines[forged], count=1)
    return "\n".join("    " + line for line in lines)  # unsettled: indented code forges nothing


def _forged_heading_line(lines: list[str]) -> int | None:
    """The line to escape for the first entry heading the body would start: the `##` line of an
    ATX heading, the underline of a setext one."""
    for start, _time, _title in _entry_headings(_markdown().parse("\n".join(lines))):
        if lines[start].lstrip().startswith("#"):
            return start
        underline = start + 1
        while underline < len(lines) and not re.match(r"^ {0,3}[-=]+[ \t]*$", lines[underline]):
            underline += 1
        return underline if underline < len(lines) else start
    return None


def block_closers(text: str) -> str:
    """The lines that close a code fence or HTML block `text` leaves open ("" when none is), so
    that a heading after it is a heading."""
    if not _MAYBE_STRUCTURE.search(text):
        return ""
    probe = text + ("" if text.endswith("\n") else "\n") + "\n" + _CANARY + "\n"
    canary = probe.count("\n") - 1
    tokens = _markdown().parse(probe)
    if any(start == canary for start, _, _ in _entry_headings(tokens)):
        return ""
    for token in tokens:
        if token.level != 0 or token.map is None or not token.map[0] <= canary < token.map[1]:
            continue
        if token.type == "fence":
            return token.markup + "\n"
        if token.type == "html_block":
            first = probe.split("\n")[token.map[0]]
            for pattern, closer in _HTML_CLOSERS:
                if match := pattern.match(first):
                    return closer.format(*match.groups()) + "\n"
    return ""
