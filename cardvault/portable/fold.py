"""Placing one imported card: new, folded into the vault's nearest card, or a conflict.

Folding uses maintenance's merge pieces, except that the vault's card always survives, so an
import never renames or removes a card. The same card edited elsewhere (same slug) adds no alias
or `merged_from` naming itself, and its `seen` is the larger of the two, not their sum; a fold
that adds nothing but `seen` is skipped, so importing a file twice changes nothing. A card the
review queue's answers keep apart from its nearest card comes in as a card of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardvault.edits.changes import Change, Report, WriteFile
from cardvault.maintain.state import CardFile, VaultState
from cardvault.portable.format import ImportedCard
from cardvault.vault.card import replace_body, update_card_text
from cardvault.vault.fields import ALIASES, MERGED_FROM, SEEN
from cardvault.vault.files import ABSENT, FileText, digest_text
from cardvault.vault.layout import Vault
from cardvault.vault.slugs import unique_slug

STEP = "import"


@dataclass(frozen=True)
class Outcome:
    """What happens to one card of the file."""

    index: int
    rel: str
    kind: str  # "new" | "merged" | "skipped" | "conflicting"
    detail: str


def place(
    state: VaultState, item: ImportedCard, match: tuple[CardFile, float] | None, taken: set[str]
) -> tuple[list[Change], Outcome]:
    """The changes and outcome for one card given its nearest live card (or None); `taken`
    holds every slug in use, a new card's added."""
    from cardvault.maintain.contradict import contradict

    target = state.by_slug(match[0].slug) if match else None
    if match is None or target is None or kept_apart(state, item, target):
        written = write_new(state.vault, item, taken)
        return [written], Outcome(item.index, item.rel, "new", f"→ {state.vault.rel(written.path)}")
    found = contradict(target.card.body, item.card.body)
    if found is not None:
        report = Report(
            "conflict",
            f"imported {item.rel} contradicts the vault's {target.slug}; not imported "
            "(decide which is right)",
            (target.path,),
            (found.first.sentence, found.second.sentence),
            STEP,
        )
        return [report], Outcome(item.index, item.rel, "conflicting", f"contradicts {target.slug}")
    text = fold(state, target, item)
    if text is None:
        detail = f"says nothing new to {target.slug}"
        return [], Outcome(item.index, item.rel, "skipped", detail)
    reason = f"folded {item.rel} into {target.slug}"
    change = WriteFile(target.path, text, target.file.digest, reason, STEP, 1)
    detail = f"folded into {target.slug} (cosine {match[1]:.2f})"
    return [change], Outcome(item.index, item.rel, "merged", detail)


def kept_apart(state: VaultState, item: ImportedCard, target: CardFile) -> bool:
    """Whether an answer in the review queue keeps the imported card and `target` apart."""
    from cardvault.maintain.asking import card_keys
    from cardvault.vault.decisions import apart_pairs

    apart = apart_pairs(state.review_items)
    if not apart:
        return False
    folder = item.rel.rsplit("/", 1)[0]
    mine = {item.rel, *item.card.sources, *(f"{folder}/{a}.md" for a in item.card.aliases)}
    theirs = card_keys(state, target)
    return apart.between(mine, theirs)


def write_new(vault: Vault, item: ImportedCard, taken: set[str]) -> WriteFile:
    """The card written at its exported path, renamed `-2`... when its slug is taken."""
    slug = unique_slug(item.card.slug, taken)
    taken.add(slug)
    path = (vault.root / item.rel).with_name(f"{slug}.md")  # unchanged when not taken
    reason = f"imported {item.rel}" + (f" as {slug}" if slug != item.card.slug else "")
    return WriteFile(path, item.text, ABSENT, reason, STEP, 1)


def fold(state: VaultState, keep: CardFile, item: ImportedCard) -> str | None:
    """`keep`'s new text with the imported card folded in, or None when it adds nothing."""
    from cardvault.maintain.novelty import novel_blocks
    from cardvault.maintain.text import append_paragraphs, render_blocks

    other = CardFile(FileText(item.card.path, item.text, digest_text(item.text)), item.card, False)
    kept = novel_blocks(
        keep.card.body, item.card.body, state.embeddings, state.constants.merge_threshold
    )
    body = append_paragraphs(keep.card.body, render_blocks(kept))
    text = replace_body(keep.file.text, body) if body != keep.card.body else keep.file.text
    meta = _folded_meta(keep, other)
    seen = meta.pop(SEEN, None)
    text = update_card_text(text, meta, path=keep.path)
    if text == keep.file.text:
        return None
    if seen is not None:
        text = update_card_text(text, {SEEN: seen}, path=keep.path)
    return text


def _folded_meta(keep: CardFile, other: CardFile) -> dict[str, Any]:
    """maintain.merge's merged frontmatter, corrected for an import of the same card."""
    from cardvault.maintain.merge import merged_meta

    meta = merged_meta(keep, [other])
    if other.slug != keep.slug:
        return meta
    merged = [m for m in meta.get(MERGED_FROM, []) if m != keep.slug]
    if merged:
        meta[MERGED_FROM] = merged
    else:
        meta.pop(MERGED_FROM, None)
    if not meta.get(ALIASES) and ALIASES not in keep.card.meta:
        meta.pop(ALIASES, None)
    seen = max(keep.card.seen, other.card.seen)
    if SEEN in keep.card.meta or seen > 1:
        meta[SEEN] = seen
    else:
        meta.pop(SEEN, None)
    return meta
