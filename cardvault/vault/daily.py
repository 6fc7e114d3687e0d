"""Daily logs (memory/YYYY-MM-DD.md): parsing into entries, and formatting appended entries.

An entry is a top-level `##` section (a setext heading only when it gives a time). Signals are
read in prose only (prose.py), in the forms signal_forms.py tables. A signal's text is the rest
of its line and, while a line ends mid-sentence (hard-wrapped), what follows in its paragraph,
up to the next signal, field line or `→ card:` line. `Mistake:` with `Fix:`/`Prevention:` make
a structured correction.

Written text cannot forge structure: a line that would read as an entry heading is escaped
(`\\## 10:00 — ...`) and kept a paragraph of its own; a code fence or HTML block left open, which
would swallow every later entry of the day, is closed at the end of the text that opened it.
"""

from __future__ import annotations

import datetime as dt
import re
from bisect import bisect_left, bisect_right
from collections.abc import Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from cardvault.vault import prose
from cardvault.vault.agent_names import AGENT_NAME
from cardvault.vault.log_headings import heading_time
from cardvault.vault.lognames import log_citation, log_day
from cardvault.vault.signal_forms import (
    AFTER_CLAUSE,
    AFTER_SENTENCE,
    CARD_LINK,
    LEAD_WORD,
    LEAD_WORDS,
    LESSON_TAG,
    REFERENCE,
    SENTENCE_END,
    SIGNAL_WORD,
    WORD_ALIASES,
    is_lesson_label,
)
from cardvault.words import is_cjk, words

if TYPE_CHECKING:
    from markdown_it.token import Token

#: The anchor of an untimed entry's positional citation (`memory/2026-04-23.md#untimed-2`).
UNTIMED = "untimed"
#: An entry's identity at the end of its heading, `<!-- id:3f9a2c -->` (vault/entry_ids.py).
ENTRY_ID = re.compile(r"[ \t]*<!--[ \t]*id:[ \t]*(?P<id>[0-9a-f]{6,16})[ \t]*-->[ \t]*$")
CORRECTION_FIELDS = ("domain", "mistake", "fix", "prevention", "severity")
#: The line naming the agent that wrote an entry (`Agent: NAME`, added by `--agent`).
AGENT_FIELD = "agent"
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]\s+)?")
#: Where a line's words start: after indentation and a list marker ("- ", "1. ") or a heading's
#: ("### ").
_LINE_START = re.compile(r"[ \t]*(?:(?:[-*+]|\d{1,9}[.)]|#{1,6})[ \t]+)?")
_NEWLINE = re.compile(r"\n")
#: What stands before an entry heading's own dash (`## 10:00 — Title`, escaped when text wrote
#: it: `\## 10:00 — ...`): that dash separates a forged heading's time from its title, and is
#: no clause a signal may start (the text imitated structure; its title is not a lesson).
_HEADING_TIME = re.compile(r"[ \t]*\\?(?:#{1,6}[ \t]*)?\d{1,2}:\d{2}[ \t]*$")
_COLONS = (":", "：")
#: The kind of signal a lesson label's lessons are.
LESSON = "lesson"
_FIELD_NAMES = frozenset((*CORRECTION_FIELDS, AGENT_FIELD))


@dataclass(frozen=True)
class Signal:
    """One distillation signal line in an entry."""

    kind: str  # the signal word, lower-case ("lesson", "fix", ...), or "tag" for #lesson
    text: str  # the line's text after the signal word
    line: int  # 1-based line in the log file


@dataclass(frozen=True)
class LogEntry:
    """One `## ...` entry of a daily log: `## HH:MM — Title`, or a heading of another form."""

    path: Path
    day: dt.date
    time: str  # "HH:MM", or "" for an untimed entry (`## Summary`)
    title: str
    body: str
    line: int  # line of the heading
    end_line: int  # last line of the entry
    ordinal: int = 1  # 2, 3, ... when several entries of the day share a time (or none)
    entry_id: str | None = None  # the `<!-- id:... -->` on its heading (None: an old entry)
    signals: tuple[Signal, ...] = ()
    card_links: tuple[str, ...] = ()
    fields: dict[str, str] = field(default_factory=dict)

    @cached_property
    def ref(self) -> str:
        """The citation a card's `sources` store: by its id, else by its position."""
        if self.entry_id is not None:
            return f"{self.log}#{self.entry_id}"
        return self.position_ref

    @cached_property
    def position_ref(self) -> str:
        """The positional citation, `#14:30-2` (`#untimed-2`): kept so that old citations
        resolve, though a merge interleaving two clones' entries of one minute shifts it."""
        suffix = "" if self.ordinal == 1 else f"-{self.ordinal}"
        return f"{self.log}#{self.time or UNTIMED}{suffix}"

    @cached_property
    def log(self) -> str:
        """The entry's log as citations name it (lognames.log_citation; its ref and its
        positional ref both start with it)."""
        return log_citation(self.path)

    @property
    def refs(self) -> frozenset[str]:
        """Every citation that names this entry: its ref, and its old positional one."""
        return frozenset((self.ref, self.position_ref))

    def cited_in(self, sources: Container[str]) -> bool:
        """Whether any of `sources` (a card's, or every card's) names this entry."""
        return self.ref in sources or self.position_ref in sources

    @property
    def label(self) -> str:
        """How the entry is named to a person and in commits, its title's secrets redacted."""
        from cardvault.guard import redact_text

        return f'{self.day.isoformat()} {self.heading_time}"{redact_text(self.title)}"'

    @property
    def heading_time(self) -> str:
        """The entry's time and a space, or "" for an untimed entry (how it is named)."""
        return f"{self.time} " if self.time else ""

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
    """The date a log file is for, from its name; ValueError when it names no real date."""
    day = log_day(path.name)
    if day is None:
        raise ValueError(f"{path.name} names no day")
    return day


def parse_log(text: str, path: Path, signal_words: Iterable[str]) -> list[LogEntry]:
    """Every entry of a daily log, in file order."""
    day = day_of(path)
    lines = text.splitlines()
    tokens = prose.parse(text)
    headings = _entry_headings(tokens)
    code = _code_lines(tokens)
    layout = _Layout.of(text, tokens)
    starts = [a for a, _ in layout.blocks]  # each entry's paragraphs found by bisection, not a
    # scan of all of them: a log of 60,000 one-line entries would cost 60,000² comparisons
    words = {w.lower() for w in signal_words}
    entries: list[LogEntry] = []
    seen_times: dict[str, int] = {}
    for index, (start, time, title, entry_id) in enumerate(headings):
        stop = headings[index + 1][0] if index + 1 < len(headings) else len(lines)
        body_lines = lines[start + 1 : stop]
        while body_lines and not body_lines[-1].strip():
            body_lines.pop()
        prose_lines = [
            "" if start + 1 + offset in code else line for offset, line in enumerate(body_lines)
        ]
        seen_times[time] = seen_times.get(time, 0) + 1
        mine = layout.blocks[bisect_right(starts, start) : bisect_left(starts, stop)]
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
                entry_id=entry_id,
                signals=tuple(_block_signals(layout, mine, words)),
                card_links=tuple(
                    m.group("slug") for ln in prose_lines for m in CARD_LINK.finditer(ln)
                ),
                fields=_fields(prose_lines),
            )
        )
    return entries


#: A line a person meant as an entry heading: `##` and a time (no space after `##`, or inside a
#: list item or a quote, where a heading is body).
_LOOKS_LIKE_ENTRY = re.compile(r"^ {0,3}##[ \t]*\d{1,2}:\d{2}(?!\d)")


def entry_lookalikes(text: str, entries: Iterable[LogEntry]) -> list[int]:
    """1-based lines of a log that start like an entry heading (`##10:00 — x`, not a heading
    to Markdown) yet begin no entry: their lines belong to the entry above. Lines in fenced or
    indented code are output, never headings."""
    headings = {entry.line for entry in entries}
    found = [
        number
        for number, line in enumerate(text.split("\n"), start=1)
        if number not in headings and _LOOKS_LIKE_ENTRY.match(line)
    ]
    if not found:
        return []
    code = _code_lines(prose.parse(text))
    return [number for number in found if number - 1 not in code]


def text_before_entries(text: str, entries: Sequence[LogEntry]) -> int | None:
    """The 1-based line where text begins that stands before the log's first entry (after the
    day's `# YYYY-MM-DD` title): it belongs to no entry, so nothing distills it; None if none."""
    lines = text.split("\n")
    first = entries[0].line if entries else len(lines) + 1
    written = [(number, line) for number, line in enumerate(lines[: first - 1], 1) if line.strip()]
    if written and written[0][1].startswith("# "):
        written = written[1:]
    return written[0][0] if written else None


def valid_time(time: str) -> bool:
    """Whether an entry's `HH:MM` is a time of day (00:00 to 23:59)."""
    hours, _, minutes = time.partition(":")
    return hours.isdigit() and minutes.isdigit() and int(hours) < 24 and int(minutes) < 60


def _code_lines(tokens: list[Token]) -> set[int]:
    """0-based lines inside fenced or indented code: quoted output, never signals or links."""
    code = ("fence", "code_block")
    blocks = [token.map for token in tokens if token.type in code and token.map is not None]
    return {line for start, end in blocks for line in range(start, end)}


def _entry_headings(tokens: list[Token]) -> list[tuple[int, str, str, str | None]]:
    """(0-based line, time, title, id) of each entry heading: a top-level `##` line, or a
    setext heading that gives a time."""
    found = []
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.tag != "h2" or token.level or token.map is None:
            continue
        content, entry_id = _without_id(tokens[index + 1].content)
        time, title = heading_time(content)
        if time or token.markup == "##":
            found.append((token.map[0], time, title, entry_id))
    return found


def _without_id(content: str) -> tuple[str, str | None]:
    """A heading's text without the `<!-- id:… -->` mark cardvault gives an entry, and the id."""
    content = content.strip()
    marked = ENTRY_ID.search(content)
    return (content[: marked.start()], marked.group("id")) if marked else (content, None)


def _lesson_sections(tokens: list[Token]) -> tuple[set[int], set[int]]:
    """(first lines of paragraphs, first lines of lists) in lesson sections: under a heading
    that is a lesson label (signal_forms.py), up to the next heading of its rank or above, an
    entry heading or a thematic break. Only blocks of the section itself, not of a quote or
    of a list item (an item is a lesson whole)."""
    paragraphs: set[int] = set()
    lists: set[int] = set()
    rank = 0  # the lesson section's heading level, 0: none open
    for index, token in enumerate(tokens):
        if token.level != 0 or token.map is None:
            continue
        if token.type == "heading_open":
            level = int(token.tag[1:])
            rank = 0 if level <= max(rank, 2) else rank
            title = heading_time(_without_id(tokens[index + 1].content)[0])[1]
            if not rank and is_lesson_label(title):
                rank = level
        elif token.type == "hr":
            rank = 0
        elif rank and token.type == "paragraph_open":
            paragraphs.add(token.map[0])
        elif rank and token.type in ("bullet_list_open", "ordered_list_open"):
            lists.add(token.map[0])
    return paragraphs, lists


def signals_in(text: str, signal_words: Iterable[str]) -> list[Signal]:
    """The signals of any Markdown text (an assistant's message, a card's body) by an entry's
    rules; `line` is the 1-based line in `text`."""
    layout = _Layout.of(text, prose.parse(text))
    return _block_signals(layout, layout.blocks, {w.lower() for w in signal_words})


@dataclass(frozen=True)
class _Layout:
    """What of a text's block structure the signal forms read (from its tokens, once)."""

    lines: list[str]  # the lines markdown-it counts, split as `masked_lines` splits
    said: list[str]  # those lines with code and quotes blanked (prose.masked_lines)
    blocks: list[tuple[int, int]]  # its paragraphs and headings in order (prose.block_ranges)
    lists: dict[int, list[tuple[int, int]]]  # prose.list_items
    lesson_paragraphs: set[int]  # first lines of the paragraphs of lesson sections
    lesson_items: dict[int, int]  # first line of a lesson section's list item -> its end

    @classmethod
    def of(cls, text: str, tokens: list[Token]) -> _Layout:
        lists = prose.list_items(tokens)
        paragraphs, sectioned = _lesson_sections(tokens)
        items = {first: end for at in sectioned for first, end in lists[at]}
        said = prose.masked_lines(text, tokens, quotes=True)
        blocks = sorted(prose.block_ranges(tokens))
        return cls(text.split("\n"), said, blocks, lists, paragraphs, items)


def _labels_a_list(said: list[str], start: int, stop: int) -> bool:
    """Whether a paragraph is only a lesson label, in bold or before a colon (`**Key
    findings:**`, `What I Learned:`, `**经验教训**：`), which heads the list right below it."""
    if stop != start + 1:
        return False
    line = said[start][_LINE_START.match(said[start]).end() :].strip()  # type: ignore[union-attr]
    colon = line.rstrip("*_ \t").endswith(_COLONS)
    bold = line.startswith(("**", "__")) and line.endswith(("**", "__"))
    return (colon or bold) and is_lesson_label(line)


def _block_signals(layout: _Layout, blocks: list[tuple[int, int]], words: set[str]) -> list[Signal]:
    """The signals of the paragraphs `blocks` (in order). A signal with nothing after it that
    ends its paragraph, or a lesson label alone, heads the list that follows ("Lessons
    learned:" and a bullet per lesson): each item of that list without a signal of its own is
    one of its kind. So is each paragraph and list item of a lesson section."""
    found: list[Signal] = []
    lines, said = layout.lines, layout.said
    labels = LESSON in words  # lesson labels and sections give lessons where lessons are signals
    listed: dict[int, tuple[str, int]] = {}  # an item's first line -> the kind it lists, its end
    for start, stop in blocks:
        signals, listing = _signals(lines, said, start, stop, words)
        kind, end = listed.pop(start, (None, stop))
        if kind is None and labels and start in layout.lesson_items:
            kind, end = LESSON, layout.lesson_items[start]
        elif kind is None and labels and start in layout.lesson_paragraphs:
            # a paragraph of a section is a lesson; "Key design points:" only heads a list
            kind = None if said[stop - 1].rstrip().endswith(_COLONS) else LESSON
        if labels and not (signals or listing) and _labels_a_list(said, start, stop):
            listing = LESSON
        elif (
            kind
            and not (signals or listing)
            and said[start].strip()
            and not _ends_signal(said[start])
        ):
            item = _clean(_prose_text(lines, said, start, end))
            if item and _says_something(item):
                found.append(Signal(kind, item, start + 1))
        found.extend(signals)
        if listing:
            # the block right below, as written: a code block, quote or HTML block between
            # them is no prose (`said` blanks it) but still stands between them
            after = next((n for n in range(stop, len(lines)) if lines[n].strip()), len(lines))
            listed.update({first: (listing, end) for first, end in layout.lists.get(after, ())})
    return found


def _prose_text(lines: list[str], said: list[str], start: int, end: int) -> str:
    """The prose lines start..end as written, without indentation and list markers."""
    kept = []
    for number in range(start, end):
        if said[number].strip():
            head = _LINE_START.match(lines[number]).end()  # type: ignore[union-attr]
            kept.append(lines[number][head:])
    return "\n".join(kept)


def _signals(
    lines: list[str], said: list[str], start: int, stop: int, words: set[str]
) -> tuple[list[Signal], str | None]:
    """The signals of one paragraph (lines start..stop), found in its prose (`said`: code and
    quotes blanked) and read from its text as written; and the kind of a signal that ends the
    paragraph with no text (it may head a list)."""
    text = "\n".join(lines[start:stop])
    prose = "\n".join(said[start:stop])
    heads = list(_line_heads(prose))
    # every look-up below is a bisection over lists made once per paragraph: a paragraph of
    # 30,000 tags or signals looked through all of them for each (squared)
    sentences, clauses = _sentence_starts(prose, heads)
    signals = _signal_starts(prose, clauses, words)
    tags = list(LESSON_TAG.finditer(prose))
    newlines = [m.start() for m in _NEWLINE.finditer(prose)]

    def sentence_start(before: int) -> int:
        index = bisect_right(sentences, before)
        return sentences[index - 1] if index else 0

    # a signal's or a tag's text runs to the next signal, field line, link, or sentence that
    # carries a tag (a tag in the signal's own first sentence is part of it)
    ends = sorted(
        {head for head, line in heads if _ends_signal(line)}
        | {at for at, _, _ in signals}
        | {sentence_start(t.start()) for t in tags}
        | {len(prose)}
    )

    def next_end(after: int) -> int:
        index = bisect_right(ends, after)
        return ends[index] if index < len(ends) else len(prose)

    found: list[tuple[int, Signal]] = []
    spans: list[tuple[int, int]] = []  # in order, apart: each ends by the next signal's start
    listing = None
    for at, end, kind in signals:
        close = _wrapped_end(text, end, next_end(at))
        if _opened_by_paren(prose, at):
            close = _paren_end(text, end, close)
        spans.append((at, close))
        cleaned = _clean(text[end:close])
        if cleaned:
            if _says_something(cleaned):  # not `Fixes: #123`, nor a list's head
                found.append((at, Signal(kind, cleaned, start + 1 + bisect_left(newlines, at))))
        elif close == len(prose):
            listing = kind
    span_starts = [a for a, _ in spans]
    for number, tag in enumerate(tags):
        index = bisect_right(span_starts, tag.start()) - 1
        if index >= 0 and tag.start() < spans[index][1]:
            continue
        # a tag's text holds no other tag: it ends where the next one starts and starts after
        # the one before (a line of 30,000 tags gave each the rest of the line, squared)
        following = tags[number + 1].start() if number + 1 < len(tags) else len(prose)
        close = _wrapped_end(text, tag.end(), min(next_end(tag.start()), following))
        after = _clean(text[tag.end() : close])
        opened = max(sentence_start(tag.start()), tags[number - 1].end() if number else 0)
        before = "" if after else _clean(text[opened : tag.start()])
        line = start + 1 + bisect_left(newlines, tag.start())
        found.append((tag.start(), Signal("tag", after or before, line)))
    return [signal for _, signal in sorted(found, key=lambda pair: pair[0])], listing


def _wrapped_end(text: str, start: int, close: int) -> int:
    """Where a signal's text ends before `close`: at the first line end that ends a sentence (a
    line that stops mid-sentence was wrapped, and the next goes on with it)."""
    at = text.find("\n", start, close)
    line = start
    while at != -1:
        if SENTENCE_END.search(text, line, at):  # a sentence end holds no line end
            return at
        line = at + 1
        at = text.find("\n", line, close)
    return close


def _signal_starts(prose: str, clauses: list[int], words: set[str]) -> list[tuple[int, int, str]]:
    """(start, where its text starts, kind) of every signal word and colon at a sentence or
    clause start (`clauses`), after at most two lead words ("The fix:", "Key lesson:")."""
    found = []
    for at in clauses:
        word_at = at
        for _ in range(3):
            match = SIGNAL_WORD.match(prose, word_at)
            kind = _signal_kind(match.group("word"), words) if match else None
            if match and kind:
                found.append((at, match.end(), kind))
                break
            lead = LEAD_WORD.match(prose, word_at)
            if lead is None or lead.group("lead").lower() not in LEAD_WORDS:
                break
            word_at = lead.end()
    return found


def _opened_by_paren(prose: str, at: int) -> bool:
    """Whether the clause starting at `at` follows an opening parenthesis ("(lesson: ...")."""
    before = at
    while before > 0 and prose[before - 1] in " \t":
        before -= 1
    return prose[before - 1 : before] == "("


def _paren_end(text: str, start: int, close: int) -> int:
    """Where the parenthesis a signal opened with ends, "(lesson: batch the calls)": the first
    `)` after `start` that closes no `(` of its own, or `close`."""
    depth = 0
    for at in range(start, close):
        if text[at] == "(":
            depth += 1
        elif text[at] == ")":
            if depth == 0:
                return at
            depth -= 1
    return close


def _signal_kind(word: str, words: set[str]) -> str | None:
    """The signal word `word` is a form of (`Lessons` of lesson, `教训` of lesson), if any."""
    said = word.lower()
    if said in WORD_ALIASES:
        return WORD_ALIASES[said] if WORD_ALIASES[said] in words else None
    # a plural is the word and an s or an es: "Rulers" is no rule
    forms = (said, said.removesuffix("s"), said.removesuffix("es"))
    return next((form for form in forms if form in words), None)


def _sentence_starts(prose: str, heads: list[tuple[int, str]]) -> tuple[list[int], list[int]]:
    """Where sentences start (each line's head, and after a closing `.`, `!` or `?`), and where
    sentences or clauses start (after a dash or a semicolon too): a signal may start at either,
    the sentence a `#lesson` tag ends starts at the first."""
    starts = {head for head, _ in heads}
    starts.update(m.end() for m in AFTER_SENTENCE.finditer(prose))
    clauses = set(starts)
    line_start, seen, looked = 0, 0, -1
    for found in AFTER_CLAUSE.finditer(prose):
        line_start = prose.rfind("\n", seen, found.start()) + 1 or line_start
        seen = found.start()
        # only a line's first clause can follow a heading's time alone (a time holds no
        # dash or semicolon), so each line's start is matched once, not once a clause
        first, looked = line_start != looked, line_start
        if not (first and _HEADING_TIME.fullmatch(prose, line_start, found.start())):
            clauses.add(found.end())
    return sorted(starts), sorted(clauses)


def _line_heads(prose: str) -> Iterator[tuple[int, str]]:
    """(where its words start, the line) of each line of `prose`."""
    offset = 0
    for line in prose.split("\n"):
        yield offset + _LINE_START.match(line).end(), line  # type: ignore[union-attr]
        offset += len(line) + 1


def _ends_signal(line: str) -> bool:
    """Whether a line is a field line (`Mistake: ...`) or a card link, which no signal's text
    runs into."""
    head = _LINE_START.match(line).end()  # type: ignore[union-attr]
    field_line = SIGNAL_WORD.match(line, head)
    named = (
        field_line is not None
        and field_line.group("form") is None
        and field_line.group("word").lower() in _FIELD_NAMES
    )
    return named or CARD_LINK.match(line, head) is not None


def _says_something(text: str) -> bool:
    """Whether a signal's text states something: two words or more besides references and
    punctuation (`Fixes: #123` is a trailer naming an issue, `**Decision: RETAIN**` a verdict,
    neither a lesson; "Use UTC." is one). A CJK run counts its character pairs, as the
    keyword index does (`保留` one, `每次提交` three)."""
    found = words(REFERENCE.sub(" ", text))
    if len(found) != 1:  # each word counts one at least
        return len(found) > 1
    return is_cjk(found[0]) and len(found[0]) > 2


def _clean(text: str) -> str:
    """A signal's text on one line, without its tags, nor the bold mark that closes a signal
    set in bold (`**教训: 每次实验后提交。**`)."""
    cleaned = " ".join(LESSON_TAG.sub("", text).split()).strip()
    for mark in ("**", "__"):
        if cleaned.endswith(mark) and cleaned.count(mark) % 2:
            cleaned = cleaned[: -len(mark)].rstrip()
    return cleaned


def _fields(body_lines: list[str]) -> dict[str, str]:
    fields: dict[str, str] = {}
    for raw in body_lines:
        line = _LIST_MARKER.sub("", raw, count=1)
        head, colon, rest = line.partition(":")
        key = head.strip().lower()
        if key == AGENT_FIELD:
            # the last line naming one (`log --agent` appends it after the text)
            if colon and AGENT_NAME.match(rest.strip().lower()):
                fields[key] = rest.strip()
        elif colon and key in CORRECTION_FIELDS and rest.strip() and key not in fields:
            fields[key] = rest.strip()
    return fields


def format_entry(time: str, title: str, body: str, entry_id: str | None = None) -> str:
    """The Markdown of one new entry (heading, body escaped by `as_entry_body`, trailing newline);
    entry_ids.py's `append_entry` gives it its id."""
    body = as_entry_body(body.strip("\n"))
    heading = f"## {time} — {title}" if time else f"## {title}"
    heading += f" <!-- id:{entry_id} -->" if entry_id else ""
    return f"{heading}\n{body}\n" if body else f"{heading}\n"


def appended_log_text(current: str | None, day: dt.date, entry: str) -> str:
    """The log's new text with `entry` appended: the current bytes stay its prefix, a block they
    leave open is closed first, and what is appended ends its lines as the log does."""
    if current is None or not current.strip():
        head = current or ""
        return f"{head}# {day.isoformat()}\n\n{entry}"
    plain = current.replace("\r\n", "\n")
    added = "" if plain.endswith("\n") else "\n"
    added += block_closers(plain + added)
    if not (plain + added).endswith("\n\n"):
        added += "\n"
    return current + in_line_ends(added + entry, current)


def in_line_ends(text: str, log: str | None) -> str:
    """`text` with CRLF line ends when most of `log`'s lines end so, else as written."""
    if log is None or log.count("\r\n") * 2 <= log.count("\n"):
        return text
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


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
    for _ in range(2 * len(lines) + 2):  # each pass mends one line; a clean parse ends it
        forged = _forged_heading_line(lines)
        if forged is None:
            closers = block_closers("\n".join(lines) + "\n")
            return "\n".join(lines) + ("\n" + closers.rstrip("\n") if closers else "")
        heading = lines[forged].lstrip().startswith("#")
        lines[forged] = re.sub(r"^( {0,3})", r"\1\\", lines[forged], count=1)
        if heading and forged > 0 and lines[forged - 1].strip():
            lines.insert(forged, "")  # a heading was a block of its own: so is its escaped text
    return "\n".join("    " + line for line in lines)  # unsettled: indented code forges nothing


def _forged_heading_line(lines: list[str]) -> int | None:
    """The line to escape for the first entry heading the body would start: the `##` line of an
    ATX heading, the underline of a setext one."""
    for start, _time, _title, _id in _entry_headings(prose.parse("\n".join(lines))):
        if lines[start].lstrip().startswith("#"):
            return start
        underline = start + 1
        while underline < len(lines) and not re.match(r"^ {0,3}[-=]+[ \t]*$", lines[underline]):
            underline += 1
        return underline if underline < len(lines) else start
    return None


def block_closers(text: str) -> str:
    """The lines that close a code fence or HTML block `text` leaves open ("" when none is)."""
    if not _MAYBE_STRUCTURE.search(text):
        return ""
    probe = text + ("" if text.endswith("\n") else "\n") + "\n" + _CANARY + "\n"
    canary = probe.count("\n") - 1
    tokens = prose.parse(probe)
    if any(heading[0] == canary for heading in _entry_headings(tokens)):
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
