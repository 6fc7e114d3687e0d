"""A new card for a group of lessons: its slug, topic, category, tags and frontmatter.

The category is the similarity-weighted majority of the nearest cards' categories from
`neighbour_floor`, else "lessons". Tags come from the vault's own vocabulary and the lesson's
identifiers, never from the entry title; while there are fewer than MIN_TAGS, the rarest topic
words the vault's topics and tags also use (never "least" from "at least").
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from cardvault.maintain.evidence import COMMON_WORDS, Vocabulary, terms
from cardvault.maintain.lessons import Lesson
from cardvault.maintain.state import CardFile
from cardvault.maintain.text import word_set
from cardvault.maintain.topic import lesson_topic
from cardvault.vault import fields as f
from cardvault.vault.layout import SLUG_RE
from cardvault.vault.slugs import slugify, tagify, unique_slug

NEIGHBOURS = 5
MAX_TAGS = 5
MIN_TAGS = 2
MAX_TAG_LENGTH = 30
_IDENTIFIER = re.compile(
    r"(?<![\w-])--[a-z][a-z0-9-]+"  # --force-with-lease
    r"|\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b"  # lock_timeout, list_objects_v2
    r"|\b[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]*\b"  # S3, PgBouncer, GitHub (not KEYS, HTTP)
)
FALLBACK_CATEGORY = "lessons"
#: Words no tag is made of: the words no term is, and a few a topic uses without naming a thing.
_NOT_TAGS = COMMON_WORDS | word_set(
    "again still stopped new why how what two three about over under down"
)

Neighbour = tuple[CardFile, float]


def new_slug(group: Sequence[Lesson], taken: Collection[str]) -> str:
    """The linked slug when an entry names one that is free, else one made from the topic."""
    for lesson in group:
        if lesson.target and SLUG_RE.match(lesson.target) and lesson.target not in taken:
            return lesson.target
    return unique_slug(slugify(lesson_topic(group)), taken)


@dataclass(frozen=True)
class TagWords:
    """The vault's tags (by use), its topics' words (the domain's), and its term rarity."""

    used: Counter[str]
    vocabulary: Vocabulary
    named: frozenset[str] = frozenset()


def tag_words(cards: Iterable[CardFile], vocabulary: Vocabulary) -> TagWords:
    """The tag vocabulary of `cards`."""
    cards = list(cards)
    named = frozenset(t for c in cards for t in terms(f"{c.card.topic} {' '.join(c.card.tags)}"))
    return TagWords(Counter(tag for c in cards for tag in c.card.tags), vocabulary, named)


def pick_category(
    neighbours: Sequence[Neighbour], categories: Sequence[str], *, floor: float
) -> str:
    """Weighted majority category of the neighbours from `floor`, else the fallback."""
    votes: dict[str, float] = {}
    for card, score in neighbours[:NEIGHBOURS]:
        if score >= floor and card.card.category in categories:
            votes[card.card.category] = votes.get(card.card.category, 0.0) + score
    if votes:
        return max(sorted(votes), key=lambda c: votes[c])
    return fallback(categories)


def fallback(categories: Sequence[str]) -> str:
    """The category of a card nothing else places: "lessons", else the vault's first."""
    return FALLBACK_CATEGORY if FALLBACK_CATEGORY in categories else categories[0]


def pick_tags(
    neighbours: Sequence[Neighbour],
    group: Sequence[Lesson],
    known: TagWords,
    *,
    floor: float,
) -> list[str]:
    """Tags from the vault's vocabulary (neighbours' from `floor` first) and the lesson's
    identifiers; at most MAX_TAGS."""
    text = " ".join(lesson.text for lesson in group)
    flat = f" {' '.join(re.findall(r'[a-z0-9]+', text.lower()))} "
    tags: list[str] = []

    def add(tag: str) -> None:
        if tag and tag not in tags and not tag.isdigit() and len(tag) <= MAX_TAG_LENGTH:
            tags.append(tag)

    near = [t for card, score in neighbours[:NEIGHBOURS] if score >= floor for t in card.card.tags]
    for tag in near + sorted(known.used, key=lambda t: (-known.used[t], t)):
        if f" {tag.replace('-', ' ')} " in flat:  # the lesson names it
            add(tag)
    for identifier in identifiers(text):
        add(tagify(identifier))
    if len(tags) < MIN_TAGS:
        words = terms(lesson_topic(group)) - _NOT_TAGS
        # the domain's words first (those the vault's topics and tags use); any word only
        # for a card that has no tag yet
        for pool in (words & known.named, words if not tags else frozenset()):
            for term in known.vocabulary.salient(pool, MAX_TAGS):
                if len(tags) < MIN_TAGS and re.fullmatch(r"[a-z][a-z0-9]+", term):
                    add(term)
    return tags[:MAX_TAGS]


def identifiers(text: str) -> list[str]:
    """Names in code form (`snake_case`, `--flags`), in order of appearance."""
    found: dict[str, None] = {}
    for match in _IDENTIFIER.finditer(text):
        name = match.group().strip("-.")
        shouting = name.isupper() and not any(c.isdigit() for c in name) and "_" not in name
        if len(name) > 1 and not shouting:
            found.setdefault(name.lower(), None)
    return list(found)


def new_card_meta(
    group: Sequence[Lesson], category: str, tags: list[str], today: dt.date
) -> dict[str, Any]:
    """Frontmatter for a card distilled from `group`: `updated` is the day it was written (the
    archive counts from it)."""
    days = [lesson.entry.day for lesson in group]
    meta: dict[str, Any] = {
        f.TOPIC: lesson_topic(group),
        f.CATEGORY: category,
        f.TAGS: tags,
        f.CREATED: min(days),
        f.UPDATED: max(today, *days),
        f.SEEN: len(group),
        f.SOURCES: [lesson.ref for lesson in group],
        **correction_meta(group, None),
    }
    rule = group_rule(group)
    if rule:
        meta[f.RULE] = " ".join(rule.split())
    return f.in_order(meta)


def group_rule(group: Sequence[Lesson]) -> str | None:
    """A `Rule:` line of the group, else a correction's prevention (what to do next time)."""
    for lesson in group:
        if lesson.rule:
            return lesson.rule
    for lesson in group:
        if lesson.entry.is_correction and lesson.entry.fields.get("prevention"):
            text = lesson.entry.fields["prevention"].strip()
            return text[:1].upper() + text[1:]
    return None


def correction_meta(group: Sequence[Lesson], current: dict[str, Any] | None) -> dict[str, Any]:
    """`domain` and the highest `severity` of the group's structured corrections."""
    meta: dict[str, Any] = {}
    current = current or {}
    # a correction entry's fields of the same names (vault/daily.py CORRECTION_FIELDS)
    domains = [
        lesson.entry.fields[f.DOMAIN] for lesson in group if lesson.entry.fields.get(f.DOMAIN)
    ]
    if domains and f.DOMAIN not in current:
        meta[f.DOMAIN] = domains[0]
    levels = [lesson.severity for lesson in group if lesson.severity]
    existing = current.get(f.SEVERITY)
    if isinstance(existing, str) and f.rank(f.SEVERITY, existing) >= 0:
        levels.append(existing)
    if levels:
        top = max(levels, key=lambda s: f.rank(f.SEVERITY, s))
        if top != existing:
            meta[f.SEVERITY] = top
    return meta
