"""What an answer to a review question does to the vault, as changes (nothing is written here).

Per kind and answer, as docs/review.md gives them (`act`). An accepted merge joins the chosen
members' cards as maintenance merges them (curated from then on); a rejected question keeps its
members apart from then on.
"""

from __future__ import annotations

from dataclasses import replace

from cardvault.edits.changes import Change, MoveFile, Report, WriteFile
from cardvault.errors import CardvaultError
from cardvault.maintain.archive import archival
from cardvault.maintain.asking import card_holders, card_keys, moved
from cardvault.maintain.merge import merge_cluster
from cardvault.maintain.state import CardFile, VaultState
from cardvault.maintain.text import append_paragraphs
from cardvault.vault.card import render_card, replace_body, update_card_text
from cardvault.vault.config import VaultConfig
from cardvault.vault.decisions import ACCEPTED, ReviewItem, apart_pairs
from cardvault.vault.fields import CATEGORY, CREATED, TAGS, TOPIC, UPDATED
from cardvault.vault.files import ABSENT
from cardvault.vault.slugs import slugify, unique_slug

STEP = "review"


def act(state: VaultState, cfg: VaultConfig, item: ReviewItem) -> list[Change]:
    """The changes a settled `item` makes."""
    if item.kind in ("same-lesson", "duplicate"):
        return _join(state, cfg, item) if item.status == ACCEPTED else []
    if item.kind == "contradiction":
        return _supersede(state, item) if item.status == ACCEPTED else []
    if item.kind == "stale":
        return _stale(state, item)
    if item.kind == "cross-project":
        from cardvault.maintain.crossproject import promotion_by_answer

        return promotion_by_answer(state, item) if item.status == ACCEPTED else []
    return _split(state, item)


def _join(state: VaultState, cfg: VaultConfig, item: ReviewItem) -> list[Change]:
    holders = card_holders(state)
    chosen = set(item.chosen or item.keys)
    paths = {holders[key] for key in chosen if key in holders}
    cards = [c for c in state.live if state.vault.rel(c.path) in paths]
    if len(cards) < 2:
        _ensure_something_joins(state, item, chosen, holders, len(cards))
        return []
    _refuse_what_was_kept_apart(state, item, cards)
    return [_as_review(c) for c in merge_cluster(state, cards, cfg, by_person=True)]


def _ensure_something_joins(
    state: VaultState, item: ReviewItem, chosen: set[str], holders: dict[str, str], cards: int
) -> None:
    """Accepting must join something: two live cards now, or a card and an entry that joins it
    at the next `maintain`. An answer that would join nothing (members archived or gone, or
    already in one card) is refused, saying why, and never reported as accepted."""
    waiting = [k for k in chosen if k not in holders and k in state.entries_by_ref]
    if cards + len(waiting) >= 2:
        return
    why = [moved(state, k) for k in sorted(chosen) if k not in holders and k not in waiting]
    if not why:
        held = sorted({holders[k] for k in chosen if k in holders})
        why = [f"the members are already in one card, {held[0]}"] if held else ["no members"]
    raise CardvaultError(
        f"review item {item.id}: accepting it would merge nothing: {'; '.join(why)}; "
        f"reject it instead (`cardvault review reject {item.id}`)"
    )


def _refuse_what_was_kept_apart(state: VaultState, item: ReviewItem, cards: list[CardFile]) -> None:
    """Accepting may not join two cards an earlier answer kept apart. An earlier "not a
    contradiction" (a rejected contradiction: both stand) is no such answer: two cards that do
    not contradict may well tell one lesson."""
    earlier = apart_pairs(
        i
        for i in state.review_items
        if i.id != item.id and not (i.kind == "contradiction" and i.status != ACCEPTED)
    )
    keys = {c.slug: card_keys(state, c) for c in cards}
    for left in cards:
        for right in cards:
            if left.slug < right.slug and earlier.between(keys[left.slug], keys[right.slug]):
                raise CardvaultError(
                    f"review item {item.id}: {left.slug} and {right.slug} were kept apart by an "
                    "earlier answer; accept --only the members that tell one lesson"
                )


def _archival(state: VaultState, card: CardFile, why: str) -> MoveFile:
    """The move of `card` to the archive, by review; CardvaultError when it cannot be archived."""
    move = archival(state, card, why)
    if isinstance(move, Report):
        raise CardvaultError(move.message, card.path)
    assert isinstance(move, MoveFile)
    return replace(move, step=STEP)


def _as_review(change: Change) -> Change:
    return replace(change, step=STEP) if isinstance(change, WriteFile | MoveFile) else change


def _card(state: VaultState, key: str) -> CardFile:
    holders = card_holders(state)
    path = holders.get(key)
    found = next((c for c in state.live if state.vault.rel(c.path) == path), None)
    if found is None:
        raise CardvaultError(f"{key} is no longer a live card; nothing to settle")
    return found


def _supersede(state: VaultState, item: ReviewItem) -> list[Change]:
    winner = _card(state, item.chosen[0])
    losers = [_card(state, m.key) for m in item.members if m.key != item.chosen[0]]
    changes: list[Change] = []
    for loser in losers:
        if loser.path == winner.path:
            continue
        move = _archival(state, loser, f"superseded by {winner.slug}")
        text = update_card_text(move.new_text, {"superseded_by": winner.slug}, path=loser.path)
        changes.append(replace(move, new_text=text))
    return changes


def _stale(state: VaultState, item: ReviewItem) -> list[Change]:
    from cardvault.vault.fields import CHECKED, STALE
    from cardvault.verify.checked import checked_value, is_ours
    from cardvault.verify.marks import project_of

    card = _card(state, item.members[0].key)
    if item.status == ACCEPTED:
        reasons = "; ".join(item.evidence.get("reasons") or ())
        return [_archival(state, card, "stale: " + reasons)]
    checked = checked_value(project_of(state.vault), state.today)
    record = {CHECKED: checked} if is_ours(card.card.meta.get(CHECKED)) else {}
    text = update_card_text(card.file.text, record, [STALE], card.path)
    reason = f"{card.slug}: still right (checked {state.today.isoformat()})"
    return [WriteFile(card.path, text, card.file.digest, reason, STEP)]


def _split(state: VaultState, item: ReviewItem) -> list[Change]:
    member = item.members[0]
    card = _card(state, member.key)
    if item.status != ACCEPTED:
        body = append_paragraphs(card.card.body, [member.text])
        text = replace_body(card.file.text, body)
        reason = f"appended the overflow of {card.slug} (split declined)"
        return [WriteFile(card.path, text, card.file.digest, reason, STEP)]
    topic = f"{card.card.topic} (more)"
    slug = unique_slug(slugify(topic), state.taken)
    meta = {
        TOPIC: topic,
        CATEGORY: card.card.category,
        TAGS: list(card.card.tags),
        CREATED: state.today,
        UPDATED: state.today,
    }
    new_text = render_card(meta, f"{member.text.strip()}\n\nSee also [[{card.slug}]].")
    path = state.vault.card_path(slug)
    text = replace_body(card.file.text, append_paragraphs(card.card.body, [f"More: [[{slug}]]."]))
    return [
        WriteFile(path, new_text, ABSENT, f"split {card.slug}: overflow → {slug}", STEP, 1),
        WriteFile(card.path, text, card.file.digest, f"linked {card.slug} → {slug}", STEP),
    ]
