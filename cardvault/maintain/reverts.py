"""Reverted maintenance read as answers: what a person undid is not done again.

Before its steps, every run reads the standing reverts of maintenance commits (a revert
reverted again is withdrawn) and records each undone merge, archive or promotion once as a
rejected answer (`by: revert SHA`) in the review queue, which the steps then respect.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cardvault.edits.changes import Change
from cardvault.maintain.state import VaultState
from cardvault.vault.decisions import (
    REJECTED,
    Member,
    ReviewItem,
    item_id,
)

STEP = "answers"
ARCHIVE, PROMOTE, DUPLICATE = "archive", "promote", "duplicate"
_LINES = (
    (DUPLICATE, re.compile(r"^merged (\S+) → (\S+)$")),
    (ARCHIVE, re.compile(r"^archived (\S+)(?: \(.*\))?$")),
    (PROMOTE, re.compile(r"^promoted (\S+)(?: \(.*\))?$")),
)


@dataclass(frozen=True)
class Undone:
    """One maintenance action a revert undid."""

    kind: str  # "duplicate" (a merge), "archive" or "promote"
    slugs: tuple[str, ...]
    line: str  # the reverted commit's line for it
    reverted: str  # the maintenance commit
    by: str  # the revert


def undone_actions(state: VaultState) -> list[Undone]:
    """Every action a standing revert of a maintenance commit undid."""
    from cardvault import history

    found = []
    for reverted in history.reverted_commits(state.vault):
        if not reverted.message.startswith("maintain:"):
            continue
        for line in reverted.message.splitlines()[1:]:
            for kind, pattern in _LINES:
                match = pattern.match(line.strip())
                if match:
                    found.append(
                        Undone(kind, match.groups(), line.strip(), reverted.sha, reverted.by)
                    )
    return found


def step(state: VaultState) -> list[Change]:
    """The queue write that records every standing revert not yet recorded."""
    undone = undone_actions(state)
    if not undone:
        return []
    items = list(state.review_items)
    lines = []
    for action in undone:
        members = tuple(_card_member(state, slug) for slug in action.slugs)
        keys = {m.key for m in members}
        if any(i.kind == action.kind and set(i.keys) == keys and not i.pending for i in items):
            continue
        items = [i for i in items if not (i.kind == action.kind and set(i.keys) == keys)]
        day = state.today.isoformat()
        item = ReviewItem(
            item_id(action.kind, keys, (i.id for i in items)),
            action.kind,
            members,
            {"reverted": action.reverted, "line": action.line},
            day,
        ).settled(
            REJECTED,
            day,
            f"revert {action.by[:10]}",
            f"git revert {action.by[:10]} undid `{action.line}` of {action.reverted[:10]}",
        )
        items.append(item)
        lines.append(f"review: {item.id} not wanted: {action.line} (reverted by {action.by[:10]})")
    if not lines:
        return []
    return [state.queue_write(items, lines, STEP, len(lines))]


def _card_member(state: VaultState, slug: str) -> Member:
    card = state.by_slug(slug, archived=True)
    rel = state.vault.rel(card.path) if card is not None and card.slug == slug else None
    rel = rel or state.vault.rel(state.vault.card_path(slug))
    return Member(key=rel, path=rel, text=card.card.topic if card is not None else slug)


def refused(state: VaultState, kind: str, path_rel: str) -> bool:
    """Whether a standing answer says no to `kind` ("archive", "promote") of the card at
    `path_rel`."""
    return any(
        i.kind == kind and i.status == REJECTED and path_rel in i.keys for i in state.review_items
    )
