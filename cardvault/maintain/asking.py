"""Putting questions in the review queue: one write of `memory/review.jsonl` per step.

A question already in the queue (same kind, same members or cards) is not asked again. A
grouping question that touches a pending one extends it while it stays answerable (MAX_ASK
members, an entry counting as its card), else waits for the answer. Pending questions whose
members moved, are gone or are already in one card are closed with the reason, not dropped.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from cardvault.edits.changes import Change
from cardvault.limits import VAULT_FILE as MAX_FILE_BYTES
from cardvault.maintain.lessons import Lesson
from cardvault.maintain.state import CardFile, VaultState
from cardvault.maintain.text import first_sentence
from cardvault.vault.decisions import (
    CLOSED_BY,
    REJECTED,
    Member,
    ReviewItem,
    item_id,
    render_queue,
)

GROUPING = ("same-lesson", "duplicate")
WITHHELD = "(not shown: the entry looks like it holds a secret; read it in its log)"
LABELS = {
    "same-lesson": "same lesson?",
    "duplicate": "duplicate cards?",
    "contradiction": "which one holds?",
    "split": "split the card?",
    "cross-project": "the same lesson in several projects?",
    "archive": "archive the card?",
    "promote": "promote the card?",
    "stale": "is the card stale?",
}


def entry_member(state: VaultState, lesson: Lesson, card: Path | None) -> Member:
    """A log entry as a member; an entry the secret guard flags lends no text."""
    from cardvault.guard import scan_text

    vault = state.vault
    flagged = scan_text(f"{lesson.entry.title}\n{lesson.entry.body}")
    return Member(
        key=lesson.ref,
        path=vault.rel(lesson.entry.path),
        text=WITHHELD if flagged else lesson.text,
        source=lesson.ref,
        card=vault.rel(card) if card is not None else None,
    )


def card_member(state: VaultState, card: CardFile) -> Member:
    """A card as a member: its path and what it says first."""
    rel = state.vault.rel(card.path)
    said = first_sentence(card.card.body, 300) or card.card.topic
    return Member(key=rel, path=rel, text=said)


def new_item(
    kind: str, members: Sequence[Member], evidence: dict[str, object], today: dt.date
) -> ReviewItem:
    """A pending item (its id is given when it joins the queue), every text redacted by the
    secret guard: the queue is a vault file like any other."""
    unique = [replace(m, text=_screened(m.text)) for m in {m.key: m for m in members}.values()]
    screened = {key: _screened(value) for key, value in evidence.items()}
    return ReviewItem("", kind, tuple(unique), screened, today.isoformat())


def _screened(value: Any) -> Any:
    from cardvault.guard import redact_text

    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, list | tuple):
        return [_screened(v) for v in value]
    if isinstance(value, dict):
        return {k: _screened(v) for k, v in value.items()}
    return value


def queue_changes(state: VaultState, asked: Iterable[ReviewItem], step: str) -> list[Change]:
    """The write that adds `asked` to the queue and drops questions with nothing left to decide
    (none when the queue would not change)."""
    current = list(state.review_items)
    items, lines = _added(current, list(asked))
    kept = []
    for item in items:
        why = None if not item.pending else _why_closed(state, item)
        if why is not None:
            day = state.today.isoformat()
            item = item.settled(REJECTED, day, CLOSED_BY, f"closed: {why}")
            lines.append(f"review: closed {item.id} ({why})")
        kept.append(item)
    if kept == current:
        return []
    return [state.queue_write(kept, lines, step)]


#: The most members a question holds (wider is no question a person can answer).
MAX_ASK = 4

#: The most questions one step adds, and the most bytes the queue may reach by them (half a
#: vault file, leaving room for the answers): a queue over the file limit would stop every
#: later run. Past either, the rest wait for a later run.
MAX_NEW_QUESTIONS = 200
QUEUE_BUDGET = MAX_FILE_BYTES // 2


def _added(
    current: list[ReviewItem], asked: list[ReviewItem]
) -> tuple[list[ReviewItem], list[str]]:
    items = list(current)
    lines: list[str] = []
    size = _bytes(items)
    added = waiting = deferred = 0
    for question in asked:
        keys = set(question.keys)
        about = _about(question.members)
        if any(
            i.kind == question.kind and (set(i.keys) == keys or _about(i.members) == about)
            for i in items
        ):
            continue
        touched = _touched(items, question) if question.kind in GROUPING else None
        if touched is not None:
            held = _about(touched.members)
            if len(held | about) > MAX_ASK:
                deferred += 1  # it waits for the pending question it touches: asked once answered
                continue
            position = items.index(touched)
            new = [
                m
                for m in question.members
                if m.key not in touched.keys and (m.card or m.key) not in held
            ]
            if not new:
                continue
            evidence = _joined_evidence(touched.evidence, question.evidence)
            grown = replace(touched, members=touched.members + tuple(new), evidence=evidence)
            more = _bytes([grown]) - _bytes([touched])
            if size + more > QUEUE_BUDGET:
                waiting += 1
                continue
            items[position], size = grown, size + more
            lines.append(f"review: {touched.id} {LABELS[touched.kind]} + {_names(new)}")
            continue
        made = replace(question, id=item_id(question.kind, keys, (i.id for i in items)))
        more = _bytes([made])
        if added >= MAX_NEW_QUESTIONS or size + more > QUEUE_BUDGET:
            waiting += 1
            continue
        items.append(made)
        size, added = size + more, added + 1
        lines.append(f"review: asked {made.id} {LABELS[made.kind]} {_names(made.members)}")
    if waiting:
        lines.append(
            f"review: {waiting:,} more question(s) not asked: a step asks at most "
            f"{MAX_NEW_QUESTIONS} and keeps the queue under {QUEUE_BUDGET:,} bytes "
            "(answering some with `cardvault review` makes room)"
        )
    if deferred:
        lines.append(
            f"review: {deferred:,} more question(s) wait: each would widen a pending question past "
            f"{MAX_ASK} members; a run after it is answered (`cardvault review`) asks them"
        )
    return items, lines


def _bytes(items: list[ReviewItem]) -> int:
    return len(render_queue(items).encode("utf-8"))


def _joined_evidence(pending: Mapping[str, Any], joining: Mapping[str, Any]) -> dict[str, Any]:
    """A pending question's evidence plus the new pairs of the one extending it, the score the
    best of both."""
    mine, theirs = pending.get("pairs"), joining.get("pairs")
    if not isinstance(mine, list) or not isinstance(theirs, list):
        return dict(pending)
    shown = {json.dumps(p.get("between"), sort_keys=True) for p in mine if isinstance(p, dict)}
    added = [
        p
        for p in theirs
        if isinstance(p, dict) and json.dumps(p.get("between"), sort_keys=True) not in shown
    ]
    scores = [p["score"] for p in mine + added if isinstance(p, dict) and _number(p.get("score"))]
    found = {**pending, "pairs": mine + added}
    if scores:
        found["score"] = max(scores)
    return found


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _about(members: Iterable[Member]) -> frozenset[str]:
    """What a question decides between: each card, an entry by its card (so merge's question
    about two cards is the one distill asked about their entries)."""
    return frozenset(m.card or m.key for m in members)


def _touched(items: list[ReviewItem], question: ReviewItem) -> ReviewItem | None:
    names = _named(question.members)
    pending = (i for i in items if i.pending and i.kind in GROUPING)
    return next((item for item in pending if names & _named(item.members)), None)


def _named(members: Iterable[Member]) -> set[str]:
    return {m.key for m in members} | {m.card for m in members if m.card}


def _names(members: Iterable[Member]) -> str:
    return ", ".join(m.source or m.path for m in members)


def _why_closed(state: VaultState, item: ReviewItem) -> str | None:
    """Why a pending item has nothing left to decide, or None while it is open."""
    holders = card_holders(state)
    if item.kind == "cross-project":  # project cards, cited by the global card they joined
        places = {holders.get(m.key, m.key) for m in item.members}
        return None if len(places) > 1 else f"already in {next(iter(places))}"
    places = set()
    for member in item.members:
        if member.path in state.unreadable:  # unknown whether it is gone: the question stays
            return None
        if member.source is not None:
            if member.source not in state.entries_by_ref:
                return f"the entry {member.source} is gone"
            places.add(holders.get(member.source, member.source))
        elif member.key in holders:
            places.add(holders[member.key])
        else:
            return moved(state, member.key)
    if item.kind in GROUPING and len(places) <= 1:
        return f"already in one card, {next(iter(places))}" if places else "nothing left"
    return None


def moved(state: VaultState, key: str) -> str:
    """Where a card member went: the archive, or nowhere."""
    slug = key.rsplit("/", 1)[-1].removesuffix(".md")
    archived = state.by_slug(slug, archived=True)
    if archived is not None and archived.archived:
        return f"{key} was archived (now {state.vault.rel(archived.path)})"
    return f"{key} is gone"


def card_keys(state: VaultState, card: CardFile) -> frozenset[str]:
    """What decisions may name a card by: its path, its old slugs' paths, the entries it cites."""
    rel = state.vault.rel(card.path)
    folder = rel.rsplit("/", 1)[0]
    aliases = {f"{folder}/{alias}.md" for alias in card.card.aliases}
    cited = {name for source in card.card.sources for name in state.entry_names(source)}
    return frozenset({rel, *aliases, *cited})


def card_holders(state: VaultState) -> dict[str, str]:
    """Member key (`card_keys`) -> the path of the live card that holds it."""
    found: dict[str, str] = {}
    for card in state.live:
        rel = state.vault.rel(card.path)
        for key in card_keys(state, card):
            found.setdefault(key, rel)
        found[rel] = rel
    return found


def settle_changes(state: VaultState, settled: Sequence[ReviewItem], step: str) -> list[Change]:
    """The write that records the answers `settled` (items already in the queue)."""
    by_id = {item.id: item for item in settled}
    items = [by_id.get(item.id, item) for item in state.review_items]
    lines = [f"review: {i.id} {LABELS[i.kind]} {i.status} by {i.by}" for i in settled]
    return [state.queue_write(items, lines, step)]
