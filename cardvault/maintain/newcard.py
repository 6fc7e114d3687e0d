"""A new card for a group of lessons: its slug, category, tags and frontmatter.

The slug comes from the first entry's title (or the slug its `→ card:` link names). The
category is the similarity-weighted majority of the nearest cards' categories, counting only
neighbours close enough to say something (cosine ≥ NEIGHBOUR_FLOOR); with none, "lessons". Tags
are the neighbours' tags that the lesson's own words contain, then keywords of the title.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any

from cardvault.maintain.lessons import Lesson
from cardvault.maintain.state import CardFile
from cardvault.vault.layout import SLUG_RE
from cardvault.vault.slugs import slugify, tagify, unique_slug

NEIGHBOURS = 5
NEIGHBOUR_FLOOR = 0.45
MAX_TAGS = 5
FALLBACK_CATEGORY = "lessons"
_SEVERITY_ORDER = {"low": 1, "medium": 2, "high": 3}
_STOPWORDS = frozenset(
    re.split(
        r"\s+",
        "a an and are as at be but by for from has have in into is it its of on or our the their "
        "this to was were when which while with after again before still stopped new why how what "
        "not all any one two three via about over under out off up down",
    )
)

Neighbour = tuple[CardFile, float]


def new_slug(group: Sequence[Lesson], taken: Collection[str]) -> str:
    """The linked slug when an entry names one that is free, else one made from the topic."""
    for lesson in group:
        if lesson.target and SLUG_RE.match(lesson.target) and lesson.target not in taken:
            return lesson.target
    return unique_slug(slugify(new_topic(group)), taken)


def new_topic(group: Sequence[Lesson]) -> str:
    """The first entry's title; for a recurring lesson, the words its titles begin with alike
    ("S3 listing stopped at 1,000 files in ingest fetch" + "S3 listing stopped at 1,000 objects
    in the October backfill" -> "S3 listing stopped at 1,000") when that is two words or more."""
    titles = [lesson.entry.title.split() for lesson in group if lesson.entry.title.strip()]
    if not titles:
        return " ".join(group[0].text.split()[:8])
    common: list[str] = []
    for column in zip(*titles, strict=False):
        if len({word.lower() for word in column}) != 1:
            break
        common.append(column[0])
    while common and common[-1].lower() in _STOPWORDS:
        common.pop()
    return " ".join(common) if len(titles) > 1 and len(common) >= 2 else " ".join(titles[0])


def pick_category(neighbours: Sequence[Neighbour], categories: Sequence[str]) -> str:
    """Weighted majority category of the close neighbours, else "lessons" (or the first one)."""
    votes: dict[str, float] = {}
    for card, score in neighbours[:NEIGHBOURS]:
        if score >= NEIGHBOUR_FLOOR and card.card.category in categories:
            votes[card.card.category] = votes.get(card.card.category, 0.0) + score
    if votes:
        return max(sorted(votes), key=lambda c: votes[c])
    return FALLBACK_CATEGORY if FALLBACK_CATEGORY in categories else categories[0]


def pick_tags(neighbours: Sequence[Neighbour], group: Sequence[Lesson]) -> list[str]:
    """Close neighbours' tags found in the lessons' words, then the title words that recur most
    across the group's titles; at most MAX_TAGS."""
    words = _words(" ".join(lesson.text for lesson in group))
    tags: list[str] = []
    for card, score in neighbours[:NEIGHBOURS]:
        if score < NEIGHBOUR_FLOOR:
            break
        for tag in card.card.tags:
            if tag not in tags and all(part in words for part in tag.split("-")):
                tags.append(tag)
    counts: Counter[str] = Counter()
    order: dict[str, int] = {}
    for lesson in group:
        for word in dict.fromkeys(re.findall(r"[A-Za-z0-9][A-Za-z0-9]+", lesson.entry.title)):
            tag = tagify(word)
            if (
                tag
                and tag not in _STOPWORDS
                and not tag.isdigit()
                and (len(tag) > 2 or not tag.isalpha())
            ):
                counts[tag] += 1
                order.setdefault(tag, len(order))
    for tag in sorted(counts, key=lambda t: (-counts[t], order[t])):
        if tag not in tags:
            tags.append(tag)
    return tags[:MAX_TAGS]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def new_card_meta(group: Sequence[Lesson], category: str, tags: list[str]) -> dict[str, Any]:
    """Frontmatter for a card distilled from `group` (keys in the house order)."""
    days = [lesson.entry.day for lesson in group]
    meta: dict[str, Any] = {
        "topic": new_topic(group),
        "category": category,
        "tags": tags,
        "created": min(days),
        "updated": max(days),
        "seen": len(group),
    }
    meta.update(correction_meta(group, None))
    rule = group_rule(group)
    if rule:
        meta["rule"] = " ".join(rule.split())
    meta["sources"] = [lesson.ref for lesson in group]
    return meta


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
    domains = [
        lesson.entry.fields["domain"] for lesson in group if lesson.entry.fields.get("domain")
    ]
    if domains and "domain" not in current:
        meta["domain"] = domains[0]
    levels = [lesson.severity for lesson in group if lesson.severity]
    existing = current.get("severity")
    if isinstance(existing, str) and existing in _SEVERITY_ORDER:
        levels.append(existing)
    if levels:
        top = max(levels, key=lambda s: _SEVERITY_ORDER[s])
        if top != existing:
            meta["severity"] = top
    return meta
