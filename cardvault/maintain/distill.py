"""Distill: log entries with a signal become knowledge, folded into a card or made a new one.

Where each pending lesson goes is grouping.py's decision; what is only possible becomes a
question. A new card states its lesson once and lists the other sightings only when their words
add something (`_retold`). Folding appends only what the card does not already say (novelty.py).
Text that looks like a secret is never copied into a card. A new card carries `distilled:`
(vault/card.py): it is this pass's own card, which merge may join on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cardvault.edits.changes import Change, MoveFile, Report, WriteFile, over_budget
from cardvault.maintain.asking import card_member, entry_member, new_item, queue_changes
from cardvault.maintain.calibration import constants_for
from cardvault.maintain.grouping import Placement, place
from cardvault.maintain.lessons import Lesson, pending_lessons
from cardvault.maintain.newcard import (
    Neighbour,
    TagWords,
    correction_meta,
    group_rule,
    new_card_meta,
    new_slug,
    pick_category,
    pick_tags,
    tag_words,
)
from cardvault.maintain.novelty import novel_blocks, warm
from cardvault.maintain.state import CardFile, VaultState
from cardvault.maintain.text import append_paragraphs, render_blocks
from cardvault.vault.card import (
    DISTILLED_KEY,
    as_date,
    body_mark,
    keep_provenance,
    render_card,
    replace_body,
    update_card_text,
)
from cardvault.vault.config import VaultConfig
from cardvault.vault.decisions import ReviewItem
from cardvault.vault.fields import RULE, SEEN, SOURCES, STATUS, UPDATED
from cardvault.vault.files import ABSENT
from cardvault.vault.tokens import count_tokens

STEP = "distill"


def step(state: VaultState, cfg: VaultConfig) -> list[Change]:
    """Changes that distill every pending lesson of `state`, and the questions left over."""
    lessons = pending_lessons(state)
    if not lessons:
        return []
    placement = place(state, cfg, lessons)
    _warm(state, placement)
    changes: list[Change] = []
    current = state
    destinations: dict[int, Path] = {}
    known = tag_words(state.live, placement.vocabulary)
    for number in range(len(placement.groups)):
        group = placement.lessons_of(number)
        target = placement.card_of(number)
        if not group:
            if target is not None:
                destinations[number] = target.path
            continue
        if target is not None:
            fresh = current.card_at(target.path) or target
            made = fold(current, fresh, group, cfg)
        else:
            made = create(current, group, placement.neighbours(number), cfg, known)
        changes.extend(made)
        current = current.after(made)
        written = _written(made)
        if written is not None:
            destinations[number] = written
    changes.extend(_conflict_reports(placement))
    asked = questions(current, placement, destinations)
    return changes + queue_changes(current, asked, STEP)


def _written(made: list[Change]) -> Path | None:
    for change in made:
        if isinstance(change, MoveFile):
            return change.target
        if isinstance(change, WriteFile):
            return change.path
    return None


def _warm(state: VaultState, placement: Placement) -> None:
    """Embed in one batch the sentences of every group and of every card one folds into."""
    texts = []
    for number in range(len(placement.groups)):
        group = placement.lessons_of(number)
        target = placement.card_of(number)
        if target is not None:
            texts.append(target.card.body)
        if group and (target is not None or len(group) > 1):
            texts.append(_group_text(group))
    warm(state.embeddings, texts)


def questions(
    state: VaultState, placement: Placement, destinations: dict[int, Path]
) -> list[ReviewItem]:
    """The placement's questions, members named where they now live."""
    found = []
    for question in placement.questions:
        members = []
        for number in question.groups:
            card = placement.card_of(number)
            where = destinations.get(number)
            if card is not None:
                now = state.card_at(where) if where is not None else None
                members.append(card_member(state, now or card))
            for lesson in placement.lessons_of(number):
                members.append(entry_member(state, lesson, where))
        found.append(new_item(question.kind, members, question.evidence, state.today))
    return found


def _conflict_reports(placement: Placement) -> list[Change]:
    reports: list[Change] = []
    for number, card, claim in placement.conflicts:
        labels = _labels(placement.lessons_of(number))
        reports.append(
            Report(
                "conflict",
                f"{labels} contradicts {card.slug}: kept apart, asked in the review queue "
                "(cardvault review)",
                (card.path,),
                (claim.first.sentence, claim.second.sentence),
                STEP,
            )
        )
    return reports


def _group_text(group: Sequence[Lesson]) -> str:
    return "\n\n".join(line for lesson in group for line in lesson.lines)


def _labels(group: Sequence[Lesson]) -> str:
    return ", ".join(lesson.entry.label for lesson in group)


def fold(
    state: VaultState, target: CardFile, group: list[Lesson], cfg: VaultConfig
) -> list[Change]:
    """Fold `group` into the existing card `target`."""
    card = target.card
    threshold = constants_for(cfg).distill_threshold
    kept = novel_blocks(card.body, _group_text(group), state.embeddings, threshold)
    text = target.file.text
    added = render_blocks(kept)
    if added:
        text = replace_body(text, append_paragraphs(card.body, added))
    days = [as_date(card.meta.get(UPDATED)), state.today, *(x.entry.day for x in group)]
    changes: dict[str, Any] = {
        SEEN: card.seen + len(group),
        # an edit today: the card's age for the archive counts from it, not from the log's day
        UPDATED: max(day for day in days if day is not None),
        SOURCES: [*card.sources, *(lesson.ref for lesson in group)],
    }
    changes.update(correction_meta(group, card.meta))
    rule = group_rule(group)
    if rule and not card.meta.get(RULE):
        changes[RULE] = " ".join(rule.split())
    if target.archived:
        changes[STATUS] = "active"
    text = keep_provenance(card, update_card_text(text, changes, path=target.path))
    return _guarded(state, target.path, text, added, group, cfg, target)


def create(
    state: VaultState,
    group: list[Lesson],
    ranked: list[Neighbour],
    cfg: VaultConfig,
    known: TagWords,
) -> list[Change]:
    """A new card for `group` (`known`: the vault's tag vocabulary, read once per run)."""
    slug = new_slug(group, state.taken)
    path = state.vault.card_path(slug)
    # one lesson has nothing to repeat but its own lines: the normalised comparison suffices
    embeddings = state.embeddings if len(group) > 1 else None
    constants = constants_for(cfg)
    told = [lesson for lesson in group if lesson is group[0] or lesson.target]
    kept = novel_blocks("", _group_text(told), embeddings, constants.distill_threshold)
    paragraphs = render_blocks(kept) or [group[0].text.split("\n\n", 1)[-1]]
    retold = [lesson for lesson in group if not any(lesson is t for t in told)]
    paragraphs += _retold(paragraphs, retold, embeddings, constants.distill_threshold)
    floor = constants.neighbour_floor
    tags = pick_tags(ranked, group, known, floor=floor)
    category = pick_category(ranked, cfg.categories, floor=floor)
    meta = new_card_meta(group, category, tags, state.today)
    body = "\n\n".join(paragraphs)
    meta[DISTILLED_KEY] = body_mark(body)  # written by this pass: it may merge on its own
    text = render_card(meta, body)
    return _guarded(state, path, text, paragraphs, group, cfg, None)


def _retold(
    paragraphs: list[str], group: list[Lesson], embeddings: Any, threshold: float
) -> list[str]:
    """A line for each other sighting whose words add something (the rest are in `sources`)."""
    said = "\n\n".join(paragraphs)
    lines = []
    for lesson in group:
        if novel_blocks(said, lesson.text, embeddings, threshold):
            lines.append(f"- {lesson.entry.day.isoformat()}: {' '.join(lesson.text.split())}")
            said += "\n\n" + lesson.text
    return ["Told again in other words:\n" + "\n".join(lines)] if lines else []


def _guarded(
    state: VaultState,
    path: Any,
    text: str,
    added: list[str],
    group: list[Lesson],
    cfg: VaultConfig,
    target: CardFile | None,
) -> list[Change]:
    """The write for `text`, unless it adds a secret; plus an over-budget flag."""
    from cardvault import guard

    rel = state.vault.rel(path)
    before = target.file.text if target is not None else ""
    raw = [lesson.raw for lesson in group]  # as written: reshaping must not hide a secret
    flagged = any(guard.scan_text(t) for t in [*raw, *added])
    if flagged or guard.secrets_added(before, text):
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
