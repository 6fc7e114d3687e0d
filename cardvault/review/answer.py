"""The review queue as a service: list the pending decisions, accept or reject them.

`pending` reads the queue (no model, no lock); `answer` settles items through the one write
door, records each answer in `memory/review.jsonl`, carries it out (review/act.py), lets
promotion and the MEMORY.md index follow, and records one commit. An answer names members by
their 1-based position in the item, as `review` lists them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from cardvault import history
from cardvault.edits.changes import Change, reason_lines
from cardvault.edits.proposal import Planned, Proposal, Written, propose
from cardvault.errors import CardvaultError
from cardvault.maintain import memory_index, promote
from cardvault.maintain.asking import LABELS, new_item, queue_changes, settle_changes
from cardvault.maintain.plan import Step
from cardvault.maintain.similarity import Embeddings
from cardvault.maintain.state import VaultState, load_state
from cardvault.review.act import act
from cardvault.vault.decisions import (
    ACCEPTED,
    REJECTED,
    ReviewItem,
    find_items,
    pending_items,
    read_queue,
)
from cardvault.vault.layout import Vault

PERSON = "person"
#: The questions whose members are grouped (so some of them may be accepted alone).
GROUPS = ("same-lesson", "duplicate", "cross-project")


@dataclass(frozen=True)
class Answer:
    """One answer to one item."""

    id: str  # the item's id or a unique prefix
    accept: bool
    members: tuple[int, ...] = ()  # accept only these (1-based), for a same-lesson or duplicate
    keep: int | None = None  # the side that holds (1-based), for a contradiction
    reason: str | None = None


@dataclass(frozen=True)
class ReviewResult:
    """The items settled, the changes made, the commit, and how many items are still pending."""

    settled: tuple[ReviewItem, ...]
    changes: tuple[Change, ...]
    written: tuple[Path, ...]
    commit: history.CommitResult | None
    pending: int

    @property
    def reasons(self) -> list[str]:
        """Every action line of the changes, in order."""
        return reason_lines(list(self.changes))


def pending(vault: Vault) -> list[ReviewItem]:
    """The decisions waiting for an answer, first asked first."""
    return pending_items(read_queue(vault.root))


#: What settling hands back: the items settled, and how many are left pending.
Settled = tuple[tuple[ReviewItem, ...], int]


def answer(
    vault: Vault,
    answers: Sequence[Answer],
    now: dt.datetime,
    by: str = PERSON,
    embedder: Any = None,
) -> Planned[Settled, ReviewResult]:
    """The settling of every answered item, for the app to land in one commit through the door."""
    if not answers:
        raise CardvaultError("name at least one review item")
    embeddings = Embeddings(vault, embedder, use_index=False)

    def plan() -> Proposal[Settled]:
        state = load_state(vault, now.date(), embeddings)
        found = find_items(state.review_items, [a.id for a in answers])
        settled = tuple(
            _settle(item, a, now.date(), by) for item, a in zip(found, answers, strict=True)
        )
        changes = plan_answers(state, settled)
        message = _subject(settled) + "\n\n" + "\n".join(reason_lines(changes)) + "\n"
        left = len(pending_items(state.after(changes).review_items))
        return propose(changes, message, (settled, left))

    return Planned(plan, _result)


def _result(written: Written[Settled]) -> ReviewResult:
    settled, left = written.value
    return ReviewResult(settled, written.changes, written.paths, written.commit, left)


def plan_answers(state: VaultState, settled: Sequence[ReviewItem]) -> list[Change]:
    """The changes that record and carry out `settled`, then promotion and the index."""
    cfg = state.vault.config
    changes = settle_changes(state, settled, "review")
    current = state.after(changes)
    acts: list[Step] = [partial(act, item=item) for item in settled]
    for step in [*acts, promote.step, memory_index.step]:
        made = step(current, cfg)
        changes += made
        current = current.after(made)
    asked = [rest for item in settled for rest in _rest(item, state.today)]
    return changes + queue_changes(current, asked, "review")


def _rest(item: ReviewItem, today: dt.date) -> list[ReviewItem]:
    """After accepting some members of a grouping question, the others (two or more) asked about
    among themselves, when a same-lesson question leaves a log entry to place (whether leftover
    cards say the same thing is the duplicate step's question, on its own evidence).
    """
    if item.status != ACCEPTED or not item.chosen or item.kind not in GROUPS:
        return []
    rest = [m for m in item.members if m.key not in item.chosen]
    if len(rest) < 2:
        return []
    if item.kind == "same-lesson" and not any(m.source for m in rest):
        return []
    return [new_item(item.kind, rest, {"left_from": item.id}, today)]


def _settle(item: ReviewItem, answer: Answer, day: dt.date, by: str) -> ReviewItem:
    if not item.pending:
        raise CardvaultError(
            f"review item {item.id} was settled on {item.decided} by {item.by} ({item.status})"
        )
    chosen: list[str] = []
    if answer.accept and item.kind == "contradiction":
        if answer.keep is None:
            raise CardvaultError(
                f"review item {item.id} is a contradiction: say which side holds (--keep N)"
            )
        chosen = [_member(item, answer.keep).key]
    elif answer.accept and answer.members:
        if item.kind not in GROUPS or len(set(answer.members)) < 2:
            raise CardvaultError(
                f"review item {item.id}: --only takes two or more members of a same-lesson, "
                "duplicate or cross-project question"
            )
        chosen = [_member(item, n).key for n in dict.fromkeys(answer.members)]
    status = ACCEPTED if answer.accept else REJECTED
    return item.settled(status, day.isoformat(), by, answer.reason, chosen)


def _member(item: ReviewItem, number: int) -> Any:
    if not 1 <= number <= len(item.members):
        raise CardvaultError(
            f"review item {item.id} has members 1 to {len(item.members)}, not {number}"
        )
    return item.members[number - 1]


def _subject(settled: Sequence[ReviewItem]) -> str:
    parts = [f"{i.status} {i.id} ({LABELS[i.kind].rstrip('?')})" for i in settled]
    return "review: " + ", ".join(parts)
