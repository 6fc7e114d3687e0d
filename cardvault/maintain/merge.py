"""Merge: clusters of near-duplicate live cards become one card.

Pairs at or above `merge_threshold` come from one blocked matrix product over the card vectors
(similarity.pairs_above). A pair whose texts contradict each other (contradict.py) is reported
as a conflict with both sentences and is never merged, not even through a third card.

In a cluster the survivor is the promoted card if there is one, else the earliest created, else
the one most linked to. It keeps its bytes; the others' sentences that it does not already say
are appended; tags are unioned; `created` is the earliest, `updated` the latest; the others'
slugs and topics become `aliases`, their slugs `merged_from`; `sources` are joined and `seen`
summed. The other files are removed (git keeps them) and `[[links]]` to them in any card are
rewritten to the survivor.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from cardvault.edits.changes import Change, DeleteFile, Report, WriteFile, over_budget
from cardvault.maintain.clusters import constrained_clusters
from cardvault.maintain.contradict import Contradiction, contradict
from cardvault.maintain.novelty import novel_blocks, warm
from cardvault.maintain.similarity import card_text, pairs_above
from cardvault.maintain.state import CardFile, VaultState
from cardvault.maintain.text import append_paragraphs, render_blocks
from cardvault.vault.card import as_date, replace_body, update_card_text
from cardvault.vault.config import VaultConfig
from cardvault.vault.links import rename_links
from cardvault.vault.tokens import count_tokens

STEP = "merge"
_SEVERITY = {"low": 1, "medium": 2, "high": 3}


def step(state: VaultState, cfg: VaultConfig) -> list[Change]:
    """Changes that merge every cluster of near-duplicate live cards."""
    live = state.live
    if len(live) < 2:
        return []
    vectors = state.require_embeddings().vectors([card_text(c.card) for c in live])
    pairs = pairs_above(vectors, cfg.merge_threshold)
    conflicts: dict[tuple[int, int], Contradiction] = {}
    for i, j, _ in pairs:
        found = contradict(live[i].card.body, live[j].card.body)
        if found is not None:
            conflicts[(i, j)] = found
    changes: list[Change] = [
        _conflict_report(live[i], live[j], c) for (i, j), c in conflicts.items()
    ]
    current = state
    inbound = inbound_links(state)
    groups = constrained_clusters(
        len(live), pairs, lambda i, j: (min(i, j), max(i, j)) in conflicts
    )
    warm(state.embeddings, [live[i].card.body for group in groups if len(group) > 1 for i in group])
    for group in groups:
        if len(group) > 1:
            made = merge_cluster(current, [live[i] for i in group], cfg, inbound)
            changes.extend(made)
            current = current.after(made)
    return changes


def _conflict_report(left: CardFile, right: CardFile, found: Contradiction) -> Report:
    return Report(
        "conflict",
        f"{left.slug} and {right.slug} contradict each other; not merged (decide which is right)",
        (left.path, right.path),
        (found.first.sentence, found.second.sentence),
        STEP,
    )


def survivor_order(cluster: list[CardFile], inbound: Counter[str]) -> list[CardFile]:
    """The cluster, survivor first: promoted, then earliest created, then most linked."""

    def key(card: CardFile) -> tuple[int, str, int, str]:
        created = as_date(card.card.meta.get("created"))
        return (
            0 if card.card.status == "promoted" else 1,
            created.isoformat() if created else "9999",
            -inbound[card.slug],
            card.slug,
        )

    return sorted(cluster, key=key)


def inbound_links(state: VaultState) -> Counter[str]:
    """How many `[[links]]` in other cards point at each slug."""
    counts: Counter[str] = Counter()
    for card in state.cards:
        for target in {link.key for link in card.links}:
            if target != card.slug:
                counts[target] += 1
    return counts


def merge_cluster(
    state: VaultState,
    cluster: list[CardFile],
    cfg: VaultConfig,
    inbound: Counter[str] | None = None,
) -> list[Change]:
    """Changes merging `cluster` (current versions read from `state`) into one card."""
    fresh = [state.card_at(c.path) or c for c in cluster]
    ordered = survivor_order(fresh, inbound if inbound is not None else inbound_links(state))
    keep, others = ordered[0], ordered[1:]
    body = keep.card.body
    for other in others:
        kept = novel_blocks(body, other.card.body, state.embeddings, cfg.distill_threshold)
        body = append_paragraphs(body, render_blocks(kept))
    text = replace_body(keep.file.text, body) if body != keep.card.body else keep.file.text
    text = update_card_text(text, merged_meta(keep, others), path=keep.path)
    renames = {o.slug: keep.slug for o in others}
    text = rename_links(text, renames)
    reason = "\n".join(f"merged {o.slug} → {keep.slug}" for o in others)
    changes: list[Change] = [
        WriteFile(keep.path, text, keep.file.digest, reason, STEP, len(others))
    ]
    for other in others:
        changes.append(
            DeleteFile(other.path, other.file.digest, f"merged {other.slug} → {keep.slug}", STEP)
        )
    changes.extend(rewrite_links(state, renames, {keep.path, *(o.path for o in others)}))
    tokens = count_tokens(text)
    if tokens > cfg.card_token_budget:
        changes.append(
            over_budget(state.vault.rel(keep.path), tokens, cfg.card_token_budget, keep.path, STEP)
        )
    return changes


def merged_meta(keep: CardFile, others: list[CardFile]) -> dict[str, Any]:
    """The survivor's frontmatter changes."""
    cards = [keep.card, *(o.card for o in others)]
    meta: dict[str, Any] = {
        "tags": _union(c.tags for c in cards),
        "created": _extreme(cards, "created", min),
        "updated": _extreme(cards, "updated", max),
    }
    aliases = _union(
        [keep.card.aliases, *([o.slug, o.card.topic, *o.card.aliases] for o in others)]
    )
    meta["aliases"] = [a for a in aliases if a not in (keep.slug, keep.card.topic)]
    prior = keep.card.meta.get("merged_from")
    meta["merged_from"] = _union(
        [prior if isinstance(prior, list) else [], [o.slug for o in others]]
    )
    sources = _union(c.sources for c in cards)
    if sources:
        meta["sources"] = sources
    meta["seen"] = sum(c.seen for c in cards)
    meta.update(_carried(keep, others))
    return {k: v for k, v in meta.items() if v is not None}


def _carried(keep: CardFile, others: list[CardFile]) -> dict[str, Any]:
    """Status, rule, severity and last_used carried over from the merged cards."""
    meta: dict[str, Any] = {}
    cards = [keep.card, *(o.card for o in others)]
    promoted = [c for c in cards if c.status == "promoted"]
    if promoted and keep.card.status != "promoted":
        meta["status"] = "promoted"
        meta["promoted"] = promoted[0].meta.get("promoted")
    if not keep.card.meta.get("rule"):
        meta["rule"] = next((c.meta["rule"] for c in cards if c.meta.get("rule")), None)
    levels = [c.meta.get("severity") for c in cards if c.meta.get("severity") in _SEVERITY]
    if levels:
        meta["severity"] = max(levels, key=lambda s: _SEVERITY[str(s)])
    if any("last_used" in c.meta for c in cards):
        meta["last_used"] = _extreme(cards, "last_used", max)
    return meta


def _union(groups: Any) -> list[str]:
    out: dict[str, None] = {}
    for group in groups:
        for item in group:
            out.setdefault(str(item), None)
    return list(out)


def _extreme(cards: list[Any], key: str, pick: Any) -> Any:
    dates = [d for d in (as_date(c.meta.get(key)) for c in cards) if d is not None]
    return pick(dates) if dates else None


def rewrite_links(state: VaultState, renames: dict[str, str], skip: set[Any]) -> list[Change]:
    """Rewrite `[[old]]` (and `memory/cards/old.md`) to the new slug in every other card."""
    changes: list[Change] = []
    for card in state.cards:
        if card.path in skip or not any(old in card.file.text for old in renames):
            continue
        text = rename_links(card.file.text, renames)
        if text != card.file.text:
            moved = ", ".join(
                f"[[{old}]] → [[{new}]]" for old, new in renames.items() if old in card.file.text
            )
            changes.append(
                WriteFile(
                    card.path,
                    text,
                    card.file.digest,
                    f"rewrote links in {card.slug}: {moved}",
                    STEP,
                )
            )
    return changes
