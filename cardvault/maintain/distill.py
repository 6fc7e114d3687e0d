"""Distill: log entries with a signal become knowledge, folded into a card or made a new one.

Pending lessons (lessons.py) are grouped when they say the same thing (cosine ≥
`distill_threshold` between lesson texts), so a lesson written on three days in three wordings
makes one card with `seen: 3`. A group goes to the card its `→ card:` link names; else to the
nearest live card when the cosine of the group's centre with that card is at least
`distill_threshold` and the two do not contradict each other; else to a new card.

Folding appends only the sentences the card does not already say (novelty.py), adds the
group's size to `seen`, moves `updated` forward to the latest entry day and cites each entry in
`sources`. A card over its token budget is kept whole and reported. Text that looks like a
secret is never copied into a card: that group is reported and skipped.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cardvault.edits.changes import Change, MoveFile, Report, WriteFile, over_budget
from cardvault.maintain.contradict import contradict
from cardvault.maintain.lessons import Lesson, group_lessons, pending_lessons
from cardvault.maintain.newcard import (
    NEIGHBOURS,
    Neighbour,
    correction_meta,
    group_rule,
    new_card_meta,
    new_slug,
    pick_category,
    pick_tags,
)
from cardvault.maintain.novelty import novel_blocks, warm
from cardvault.maintain.similarity import card_text
from cardvault.maintain.state import CardFile, VaultState
from cardvault.maintain.text import append_paragraphs, render_blocks
from cardvault.vault.card import as_date, render_card, replace_body, update_card_text
from cardvault.vault.config import VaultConfig
from cardvault.vault.files import ABSENT
from cardvault.vault.tokens import count_tokens

if TYPE_CHECKING:
    import numpy as np

STEP = "distill"


def step(state: VaultState, cfg: VaultConfig) -> list[Change]:
    """Changes that distill every pending lesson of `state`."""
    lessons = pending_lessons(state)
    if not lessons:
        return []
    embeddings = state.require_embeddings()
    vectors = embeddings.vectors([lesson.text for lesson in lessons])
    position = {lesson.ref: i for i, lesson in enumerate(lessons)}
    live = state.live
    card_vectors = embeddings.vectors([card_text(c.card) for c in live])
    groups = group_lessons(lessons, vectors, cfg.distill_threshold)
    placed = []
    for group in groups:
        centre = _centre(vectors[[position[lesson.ref] for lesson in group]])
        placed.append((group, _ranked(live, card_vectors @ centre) if live else []))
    _warm(state, placed, cfg)
    changes: list[Change] = []
    current = state
    for group, ranked in placed:
        made = _place(current, group, ranked, cfg)
        changes.extend(made)
        current = current.after(made)
    return changes


def _warm(
    state: VaultState, placed: list[tuple[list[Lesson], list[Neighbour]]], cfg: VaultConfig
) -> None:
    """Embed in one batch the sentences of every lesson and of every card one may fold into."""
    texts = []
    for group, ranked in placed:
        target = _linked_card(state, group)
        if target is None and ranked and ranked[0][1] >= cfg.distill_threshold:
            target = ranked[0][0]
        if target is not None:
            texts.append(target.card.body)
        if target is not None or len(group) > 1:
            texts.append(_group_text(group))
    warm(state.embeddings, texts)


def _centre(rows: np.ndarray) -> np.ndarray:
    import numpy as np

    mean = rows.mean(axis=0)
    return mean / max(float(np.linalg.norm(mean)), 1e-12)


def _ranked(live: list[CardFile], scores: np.ndarray) -> list[Neighbour]:
    """The NEIGHBOURS nearest cards, nearest first (ties by slug)."""
    import numpy as np

    count = min(NEIGHBOURS, len(live))
    top = np.argpartition(-scores, count - 1)[:count]
    order = sorted(top, key=lambda i: (-float(scores[i]), live[i].slug))
    return [(live[i], float(scores[i])) for i in order]


def _place(
    state: VaultState, group: list[Lesson], ranked: list[Neighbour], cfg: VaultConfig
) -> list[Change]:
    reports: list[Change] = []
    target = _linked_card(state, group)
    if target is None and ranked and ranked[0][1] >= cfg.distill_threshold:
        nearest = state.card_at(ranked[0][0].path)
        conflict = contradict(nearest.card.body, _group_text(group)) if nearest else None
        if nearest is not None and conflict is None:
            target = nearest
        elif nearest is not None and conflict is not None:
            reports.append(
                Report(
                    "conflict",
                    f"{_labels(group)} contradicts {nearest.slug}: made a card of its own "
                    "instead of folding it in",
                    (nearest.path,),
                    (conflict.first.sentence, conflict.second.sentence),
                    STEP,
                )
            )
    made = fold(state, target, group, cfg) if target else create(state, group, ranked, cfg)
    return [*reports, *made]


def _linked_card(state: VaultState, group: list[Lesson]) -> CardFile | None:
    for lesson in group:
        if lesson.target:
            found = state.by_slug(lesson.target, archived=True)
            if found is not None:
                return found
    return None


def _group_text(group: Sequence[Lesson]) -> str:
    return "\n\n".join(line for lesson in group for line in lesson.lines)


def _labels(group: Sequence[Lesson]) -> str:
    return ", ".join(lesson.entry.label for lesson in group)


def fold(
    state: VaultState, target: CardFile, group: list[Lesson], cfg: VaultConfig
) -> list[Change]:
    """Fold `group` into the existing card `target`."""
    card = target.card
    kept = novel_blocks(card.body, _group_text(group), state.embeddings, cfg.distill_threshold)
    text = target.file.text
    added = render_blocks(kept)
    if added:
        text = replace_body(text, append_paragraphs(card.body, added))
    base_seen = card.seen
    changes: dict[str, Any] = {
        "seen": base_seen + len(group),
        "updated": _later(card.meta.get("updated"), max(lesson.entry.day for lesson in group)),
        "sources": [*card.sources, *(lesson.ref for lesson in group)],
    }
    changes.update(correction_meta(group, card.meta))
    rule = group_rule(group)
    if rule and not card.meta.get("rule"):
        changes["rule"] = " ".join(rule.split())
    if target.archived:
        changes["status"] = "active"
    text = update_card_text(text, changes, path=target.path)
    return _guarded(state, target.path, text, added, group, cfg, target)


def _later(current: Any, day: dt.date) -> dt.date:
    found = as_date(current)
    return day if found is None or day > found else found


def create(
    state: VaultState, group: list[Lesson], ranked: list[Neighbour], cfg: VaultConfig
) -> list[Change]:
    """A new card for `group`."""
    slug = new_slug(group, state.taken)
    path = state.vault.card_path(slug)
    # one lesson has nothing to repeat but its own lines: the normalised comparison suffices
    embeddings = state.embeddings if len(group) > 1 else None
    kept = novel_blocks("", _group_text(group), embeddings, cfg.distill_threshold)
    paragraphs = render_blocks(kept) or [group[0].text.split("\n\n", 1)[-1]]
    meta = new_card_meta(group, pick_category(ranked, cfg.categories), pick_tags(ranked, group))
    text = render_card(meta, "\n\n".join(paragraphs))
    return _guarded(state, path, text, paragraphs, group, cfg, None)


def _guarded(
    state: VaultState,
    path: Any,
    text: str,
    added: list[str],
    group: list[Lesson],
    cfg: VaultConfig,
    target: CardFile | None,
) -> list[Change]:
    """The write for `text`, unless it adds a secret (in the added text, or in a topic or rule
    taken from an entry's title or lines); plus an over-budget flag."""
    from cardvault import guard

    rel = state.vault.rel(path)
    before = target.file.text if target is not None else ""
    if any(guard.scan_text(paragraph) for paragraph in added) or guard.secrets_added(before, text):
        message = f"{_labels(group)}: looks like it holds a secret; not copied into {rel}"
        return [Report("skipped", message, (path,), (), STEP)]
    slug = path.stem
    base = target.card.seen if target is not None else 0
    reason = "\n".join(
        f"distilled {lesson.entry.label} → {slug} (seen {base + n})"
        for n, lesson in enumerate(group, start=1)
    )
    changes: list[Change] = []
    if target is None:
        changes.append(WriteFile(path, text, ABSENT, reason, STEP, len(group)))
    elif target.archived:
        live_path = state.vault.cards_dir / target.path.relative_to(state.vault.archive_dir)
        reason += f"\nrevived {slug} from the archive"
        changes.append(
            MoveFile(target.path, live_path, text, target.file.digest, reason, STEP, len(group))
        )
    else:
        changes.append(WriteFile(path, text, target.file.digest, reason, STEP, len(group)))
    tokens = count_tokens(text)
    if tokens > cfg.card_token_budget:
        changes.append(over_budget(rel, tokens, cfg.card_token_budget, path, STEP))
    return changes
