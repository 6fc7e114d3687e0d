"""One note of a folder as one vault card: its frontmatter read, mapped and written.

docs/import.md ("Each note as a card") holds the mapping: topic, category (the first word that
names a vault category, SYNONYMS included), tags, dates (dates.py), aliases. Every other key is
kept, links in it converted; a key cardvault gives a meaning to is kept as `note_<key>`, since it
meant something else in the note. `imported` and `imported_from` let a second import of the
folder find its cards.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardvault.errors import CardFormatError
from cardvault.portable.dates import CREATED_KEYS, UPDATED_KEYS, GitDates, NoteDates, note_dates
from cardvault.portable.format import problem
from cardvault.portable.markup import code_spans, inline_tags
from cardvault.portable.notes import SourceNote
from cardvault.portable.relink import LinkOutcome, Relinker, relink
from cardvault.vault import fields as f
from cardvault.vault.card import as_date, load_yaml, render_card, split_frontmatter
from cardvault.vault.finding import Finding
from cardvault.vault.prose import parse
from cardvault.vault.schema import schema_problems
from cardvault.vault.slugs import slugify

if TYPE_CHECKING:
    from markdown_it.token import Token

TOPIC_KEYS = (f.TOPIC, "title", "name")
SYNONYMS = {
    "user": "human", "person": "human", "people": "human", "feedback": "lessons",
    "lesson": "lessons", "til": "lessons", "reference": "tools", "tool": "tools",
}  # fmt: skip
_H1 = re.compile(r"^#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")


@dataclass(frozen=True)
class ParsedNote:
    """A note split into its frontmatter values and body."""

    note: SourceNote
    meta: dict[str, Any]
    body: str
    body_line: int

    def text_of(self, key: str) -> str | None:
        value = self.meta.get(key)
        return value.strip() if isinstance(value, str) and value.strip() else None

    def topic(self) -> str:
        for key in TOPIC_KEYS:
            if found := self.text_of(key):
                return " ".join(found.split())
        first = next((line for line in self.body.split("\n") if line.strip()), "")
        heading = _H1.match(first)
        return heading.group(1).strip() if heading else self.note.stem

    def aliases(self) -> tuple[str, ...]:
        return tuple(_words(self.meta.get(f.ALIASES, self.meta.get("alias")), split=False))


@dataclass(frozen=True)
class NoteCard:
    """The card a note becomes, and how it was made."""

    note: str  # the note's path in the folder
    rel: str  # the card's path in the vault
    slug: str
    topic: str
    category: str
    category_from: str  # "category" | "type" | "folder" | "tag" | "default"
    tags: tuple[str, ...]
    dates: NoteDates
    text: str
    links: tuple[LinkOutcome, ...]


def parse_note(note: SourceNote) -> ParsedNote | Finding:
    """The note's frontmatter and body; a Finding (with the line) when the frontmatter is there
    but does not read. A first `---` line with no closing one is a rule, not frontmatter."""
    if not note.text.startswith("---\n"):
        return ParsedNote(note, {}, note.text, 1)
    try:
        front, body, body_line, _ = split_frontmatter(note.text, Path(note.rel))
    except CardFormatError:
        return ParsedNote(note, {}, note.text, 1)
    try:
        meta = load_yaml(front, Path(note.rel), first_line=2)
    except CardFormatError as exc:
        return problem(note.rel, exc.message, exc.line or 0)
    return ParsedNote(note, meta, body, body_line)


@dataclass(frozen=True)
class CardSettings:
    """What every card of one import shares."""

    categories: tuple[str, ...]
    default_category: str
    today: dt.date
    source_label: str  # the folder's name, the first part of `imported_from`
    history: GitDates


def note_card(
    parsed: ParsedNote, slug: str, rel: str, relinker: Relinker, settings: CardSettings
) -> NoteCard | Finding:
    """The card for `parsed` at `rel` (see the module docstring), or the Finding keeping it out."""
    note = parsed.note
    tokens = parse(parsed.body)  # one parse (pure Python): code spans for the links, and tags
    spans = code_spans(parsed.body, tokens)
    body, links = relink(relinker, note.rel, parsed.body, parsed.body_line, code=spans)
    carried, value_links = _carried(parsed, relinker)
    dates = note_dates(note, parsed.meta, settings.history)
    tags = _tags(parsed, tokens)
    category, category_from, stray = _category(parsed, tags, settings)
    topic = parsed.topic()
    aliases = [a for a in dict.fromkeys(_aliases(parsed, topic)) if a != slug]
    meta: dict[str, Any] = {
        f.TOPIC: topic,
        f.CATEGORY: category,
        f.TAGS: list(dict.fromkeys([*tags, *stray])),
        f.CREATED: dates.created,
        f.UPDATED: dates.updated,
    }
    if aliases:
        meta[f.ALIASES] = aliases
    meta.update(carried)
    meta[f.IMPORTED] = settings.today
    meta[f.IMPORTED_FROM] = f"{settings.source_label}/{note.rel}"
    problems = schema_problems(meta, settings.categories)
    if problems:
        key, message = problems[0]
        return problem(note.rel, f"{message} (frontmatter key '{key}')")
    text = render_card(meta, body)
    all_links = tuple(sorted([*links, *value_links], key=lambda o: o.line))
    return NoteCard(
        note.rel, rel, slug, topic, category, category_from, tuple(meta[f.TAGS]), dates, text,
        all_links,
    )  # fmt: skip


def _aliases(parsed: ParsedNote, topic: str) -> list[str]:
    stem = parsed.note.stem
    own = [stem] if stem != slugify(stem) and stem != topic else []
    return [*parsed.aliases(), *own]


def _consumed(parsed: ParsedNote) -> set[str]:
    """The note's keys that became the card's own (topic, tags, aliases, category, dates)."""
    used = {f.TAGS, "tag", f.ALIASES, "alias", f.CATEGORY}
    used.add(next((key for key in TOPIC_KEYS if parsed.text_of(key)), f.TOPIC))
    lowered = {str(key).casefold(): key for key in parsed.meta}
    for keys in (CREATED_KEYS, UPDATED_KEYS):
        for key in keys:
            original = lowered.get(key)
            if original is not None and as_date(parsed.meta[original]) is not None:
                used.add(original)
                break
    return used


def _carried(parsed: ParsedNote, relinker: Relinker) -> tuple[dict[str, Any], list[LinkOutcome]]:
    """The note's other keys, links in their text converted, cardvault's own renamed."""
    carried: dict[str, Any] = {}
    outcomes: list[LinkOutcome] = []
    skip, reserved = _consumed(parsed), f.names(note_key=True)
    lines = _key_lines(parsed)
    for key, value in parsed.meta.items():
        if key in skip:
            continue
        name = f"note_{key}" if key in reserved else key
        if name in parsed.meta and name != key:
            continue
        line = lines.get(key, 1)
        carried[name] = _relinked_value(value, parsed, relinker, line, outcomes)
    return carried, outcomes


def _key_lines(parsed: ParsedNote) -> dict[str, int]:
    """The file line of each top-level frontmatter key (for the link report)."""
    found: dict[str, int] = {}
    for number, line in enumerate(parsed.note.text.split("\n")[1 : parsed.body_line - 2], 2):
        match = re.match(r"^([^\s#:][^:]*?)\s*:", line)
        if match:
            found.setdefault(match.group(1).strip("'\""), number)
    return found


def _relinked_value(
    value: Any, parsed: ParsedNote, relinker: Relinker, line: int, outcomes: list[LinkOutcome]
) -> Any:
    if isinstance(value, str) and "[[" in value:
        text, found = relink(relinker, parsed.note.rel, value, line, wiki_only=True)
        outcomes.extend(replace(link, line=line) for link in found)
        return text
    if isinstance(value, list):
        return [_relinked_value(v, parsed, relinker, line, outcomes) for v in value]
    if isinstance(value, dict):
        return {k: _relinked_value(v, parsed, relinker, line, outcomes) for k, v in value.items()}
    return value


def _words(value: Any, split: bool = True) -> list[str]:
    """Text items of a list, or of one text (`a, b` when `split`)."""
    if isinstance(value, list):
        return [str(v).strip() for v in value if isinstance(v, str | int) and str(v).strip()]
    if isinstance(value, str) and value.strip():
        parts = re.split(r"[,\s]+", value) if split else [value]
        return [part.strip() for part in parts if part.strip()]
    return []


def clean_tag(raw: str) -> str:
    """A tag in the vault's form, or "" when nothing of it is ASCII (`#日本` has no such form)."""
    text = raw.strip().lstrip("#").replace("/", "-")
    return slugify(text) if re.search(r"[A-Za-z0-9]", text) else ""


def _tags(parsed: ParsedNote, tokens: list[Token]) -> list[str]:
    inline = inline_tags(parsed.body, tokens)
    raw = [*_words(parsed.meta.get(f.TAGS, parsed.meta.get("tag"))), *inline]
    raw += [part for part in parsed.note.folder.split("/") if part]
    return list(dict.fromkeys(tag for tag in map(clean_tag, raw) if tag))


def category_for(word: str, categories: Sequence[str]) -> str | None:
    """The configured category `word` names (case, a plural `s` and SYNONYMS allowed)."""
    key = slugify(word)
    for category in categories:
        if key in (category, f"{category}s") or f"{key}s" == category:
            return category
    mapped = SYNONYMS.get(key)
    return mapped if mapped in categories else None


def _category(
    parsed: ParsedNote, tags: Iterable[str], settings: CardSettings
) -> tuple[str, str, list[str]]:
    """(category, where it came from, the note's own category as a tag when it maps to none)."""
    own = parsed.text_of(f.CATEGORY)
    candidates = [
        (f.CATEGORY, own),
        ("type", parsed.text_of("type")),
        *(("folder", part) for part in parsed.note.folder.split("/") if part),
        *(("tag", tag) for tag in tags),
    ]
    stray = [clean_tag(own)] if own and category_for(own, settings.categories) is None else []
    for origin, word in candidates:
        found = category_for(word, settings.categories) if word else None
        if found is not None:
            return found, origin, [t for t in stray if t]
    return settings.default_category, "default", [t for t in stray if t]
