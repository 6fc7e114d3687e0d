"""Stale cards as review questions (`kind: stale`): `verify` and maintain's verify step ask,
`review` answers (review/act.py: reject keeps the card and never marks it for those reasons
again; accept archives it).

A question is asked once per card and set of reasons; new reasons ask again, and so does a card
marked again for the reasons of a question maintenance closed (no one answered it). A pending
question whose card is no longer marked with its reasons is closed by `CLOSED_BY`, as
maintain/asking.py closes its questions.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping

from cardvault.vault.decisions import CLOSED_BY, REJECTED, Member, ReviewItem, item_id
from cardvault.verify.marks import StaleMark

KIND = "stale"


def dismissed(items: Iterable[ReviewItem]) -> dict[str, frozenset[str]]:
    """Card path -> the stale reasons an answer said the card is right despite ("still
    right": a rejected stale question; one closed by maintenance dismisses nothing)."""
    found: dict[str, set[str]] = {}
    for item in items:
        if item.kind == KIND and item.status == REJECTED and item.by != CLOSED_BY:
            found.setdefault(item.keys[0], set()).update(_reasons(item))
    return {key: frozenset(reasons) for key, reasons in found.items()}


def _reasons(item: ReviewItem) -> tuple[str, ...]:
    return tuple(str(r) for r in item.evidence.get("reasons") or ())


def stale_queue(
    items: Iterable[ReviewItem], marks: Mapping[str, StaleMark], live: set[str], today: dt.date
) -> tuple[list[ReviewItem], list[str]]:
    """The queue with a question for each marked card not yet asked about its reasons, and
    the pending stale questions that no longer hold closed; with a line per change. The
    marks' texts and reasons are screened by the secret guard already (`mark_cards`)."""
    queue = list(items)
    lines: list[str] = []
    for index, item in enumerate(queue):
        why = _why_closed(item, marks, live) if item.pending and item.kind == KIND else None
        if why is not None:
            queue[index] = item.settled(REJECTED, today.isoformat(), CLOSED_BY, f"closed: {why}")
            lines.append(f"review: closed {item.id} ({why})")
    for mark in marks.values():
        if any(i.kind == KIND and i.keys == (mark.key,) and _reasons(i) == mark.reasons
               and i.by != CLOSED_BY for i in queue):  # fmt: skip
            continue  # asked, or answered; one maintenance closed answered nothing: ask again
        member = Member(mark.key, mark.key, mark.text)
        identity = item_id(KIND, [mark.key, *mark.reasons], (i.id for i in queue))
        evidence = {"reasons": list(mark.reasons), "since": mark.since}
        queue.append(ReviewItem(identity, KIND, (member,), evidence, today.isoformat()))
        lines.append(f"review: asked {identity} is the card stale? {mark.key}")
    return queue, lines


def _why_closed(item: ReviewItem, marks: Mapping[str, StaleMark], live: set[str]) -> str | None:
    key = item.keys[0]
    if key not in live:
        return f"{key} is no longer a live card"
    mark = marks.get(key)
    if mark is None:
        return f"{key} is no longer marked stale"
    if mark.reasons != _reasons(item):
        return f"{key} is stale for other reasons now"
    return None
