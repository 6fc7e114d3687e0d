"""Merge: distilled cards holding one content become one card; about curated cards, questions.

Sameness is judged on content (contained.py), never on a whole-note cosine (sibling pages of
one template sit above 0.80 and say different things); the cosine only picks the pairs to read.
Distilled pairs (vault/card.py `distilled`) from `merge_threshold` merge in complete-linkage
clusters (never a chain), one round per run; a curated card is never merged on the pass's own
judgement, so every other pair is asked, as are pairs that contradict, disagree on figures or
names, or differ in advising against. Pairs a person kept apart are never asked again.
The survivor (survivor.py) keeps its bytes and gains every sentence of the others it does not
already say, whatever the token budget; each frontmatter field follows its `fold` rule.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from cardvault.edits.changes import Change, DeleteFile, Report, WriteFile
from cardvault.errors import CardFormatError
from cardvault.maintain.asking import MAX_ASK, card_keys, card_member, new_item, queue_changes
from cardvault.maintain.calibration import ModelConstants, constants_for
from cardvault.maintain.contained import CONTAINED, Share, contained_shares
from cardvault.maintain.contradict import Contradiction, contradict, substitution
from cardvault.maintain.disagree import disagreement
from cardvault.maintain.evidence import negated
from cardvault.maintain.linkage import complete_clusters
from cardvault.maintain.novelty import novel_blocks, warm
from cardvault.maintain.similarity import card_text, pairs_above
from cardvault.maintain.state import CardFile, VaultState
from cardvault.maintain.survivor import inbound_links, rewrite_links, survivor_order
from cardvault.maintain.text import append_paragraphs, first_sentence, render_blocks
from cardvault.vault import fields as f
from cardvault.vault.card import (
    DISTILLED_KEY,
    Card,
    as_date,
    keep_provenance,
    parse_card,
    replace_body,
    sightings,
    update_card_text,
)
from cardvault.vault.config import VaultConfig
from cardvault.vault.decisions import KeptApart, ReviewItem, apart_pairs, asked_pairs
from cardvault.vault.links import rename_links

STEP = "merge"
_Pairs = list[tuple[int, int, float]]  # (i, j, cosine) of two live cards, i < j


def step(state: VaultState, cfg: VaultConfig) -> list[Change]:
    """Changes that merge every cluster of distilled cards holding one content, and the
    questions left."""
    live = state.live
    if len(live) < 2:
        return queue_changes(state, [], STEP)
    limits = constants_for(cfg)
    close = _Close.found(state, limits)
    changes: list[Change] = [
        _conflict_report(live[i], live[j], close.conflicts[(i, j)])
        for i, j, score in close.pairs
        if (i, j) in close.conflicts and score >= limits.merge_threshold
    ]
    groups = complete_clusters(len(live), close.merging)
    current = state
    inbound = inbound_links(state)
    merged: set[int] = set()
    for group in groups:
        if len(group) > 1:
            made = merge_cluster(current, [live[i] for i in group], cfg, inbound)
            changes.extend(made)
            current = current.after(made)
            merged |= set(group) if made else set()
    settled = close.apart | {(i, j) for i, j, _ in close.merging}
    asked = close.questions(current, settled, merged)
    return changes + queue_changes(current, asked, STEP)


@dataclass(frozen=True)
class _Close:
    """The live cards' close pairs (indexes into `live`) and what the step finds of them, all
    at once (`found`): pairs kept `apart` by a person, that contradict, that one card of which
    says the other (`held`), whose figures or names disagree (`disputed`), that merge unasked."""

    live: list[CardFile]
    pairs: _Pairs
    limits: ModelConstants
    apart: set[tuple[int, int]]
    conflicts: dict[tuple[int, int], Contradiction]
    held: dict[tuple[int, int], Share]
    disputed: dict[tuple[int, int], dict[str, Any]]
    merging: _Pairs

    @classmethod
    def found(cls, state: VaultState, limits: ModelConstants) -> _Close:
        """The close pairs of the live cards and what the step finds of them."""
        live = state.live
        vectors = state.require_embeddings().vectors([card_text(c.card) for c in live])
        lowest = min(limits.duplicate_ask, limits.contradiction_ask, limits.merge_threshold)
        pairs = pairs_above(vectors, lowest)
        # pairs a person kept apart (any of their keys named in a settled decision)
        apart = _named(state, pairs, apart_pairs(state.review_items))
        conflicts = {}
        for i, j, _ in pairs:
            found = contradict(live[i].card.body, live[j].card.body)
            if found is not None and (i, j) not in apart:
                conflicts[(i, j)] = found
        held = _contained(state, pairs, limits, apart | set(conflicts))
        disputed = _disputed(state, [p for p in pairs if (p[0], p[1]) in held])
        # pairs a pending question asks about (distill's, of this run or an earlier one): the
        # answer is the person's, and merging them would close the question unanswered
        waiting = _named(state, pairs, asked_pairs(state.review_items))
        sure = {p for p, share in held.items() if share.said >= CONTAINED}
        sure -= disputed.keys() | waiting
        merging = [
            (i, j, s)
            for i, j, s in pairs
            if (i, j) in sure and s >= limits.merge_threshold and _alike(live[i], live[j])
        ]
        return cls(live, pairs, limits, apart, conflicts, held, disputed, merging)

    def questions(
        self, state: VaultState, settled: set[tuple[int, int]], merged: set[int]
    ) -> list[ReviewItem]:
        """Duplicate and contradiction questions for the pairs not settled (cards merged in
        this run wait for the next one), their members as `state` (after the merges) has them."""
        found = []
        asking = []
        for i, j, score in self.pairs:
            if (i, j) in settled or i in merged or j in merged:
                continue
            if (i, j) in self.conflicts and score >= self.limits.contradiction_ask:
                pair = (self.live[i], self.live[j])
                members = [card_member(state, state.card_at(c.path) or c) for c in pair]
                claim = self.conflicts[(i, j)]
                evidence = {
                    "cosine": round(score, 3),
                    "sentences": [claim.first.sentence, claim.second.sentence],
                }
                found.append(new_item("contradiction", members, evidence, state.today))
            elif (i, j) in self.held:
                asking.append((i, j, score))
        return found + self._duplicates(state, asking)

    def _duplicates(self, state: VaultState, asking: _Pairs) -> list[ReviewItem]:
        """One duplicate question for each group of cards every two of which hold one content
        (at most MAX_ASK members), and one for each other pair, with the figures or names that
        differ."""
        live, held, disputed = self.live, self.held, self.disputed
        agreeing = [p for p in asking if (p[0], p[1]) not in disputed]
        groups = [
            group[start : start + MAX_ASK]
            for group in complete_clusters(len(live), agreeing)
            for start in range(0, len(group), MAX_ASK)
        ]
        group_of = {n: k for k, group in enumerate(groups) for n in group}
        together: dict[int, _Pairs] = {}
        asked = []
        for pair in asking:
            if (pair[0], pair[1]) not in disputed and group_of[pair[0]] == group_of[pair[1]]:
                together.setdefault(group_of[pair[0]], []).append(pair)
            else:
                asked.append([pair])
        asked += together.values()
        found = []
        for among in asked:
            cards = sorted({n for pair in among for n in pair[:2]})
            members = [card_member(state, state.card_at(live[n].path) or live[n]) for n in cards]
            evidence: dict[str, Any] = {
                "cosine": round(min(p[2] for p in among), 3),
                "contained": round(min(held[(p[0], p[1])].stated for p in among), 2),
            }
            if len(among) == 1:
                evidence.update(disputed.get((among[0][0], among[0][1]), {}))
            found.append(new_item("duplicate", members, evidence, state.today))
        return found


def _named(state: VaultState, pairs: _Pairs, kept: KeptApart) -> set[tuple[int, int]]:
    """The pairs of live cards both of which `kept` names."""
    if not kept:
        return set()
    keys = {n: card_keys(state, state.live[n]) for pair in pairs for n in pair[:2]}
    return {(i, j) for i, j, _ in pairs if kept.between(keys[i], keys[j])}


def _contained(
    state: VaultState, pairs: _Pairs, limits: ModelConstants, never: set[tuple[int, int]]
) -> dict[tuple[int, int], Share]:
    """The pairs to merge or ask about, with the larger share of one card the other says: the
    contained pairs, and distilled pairs from the merge threshold (asked unless contained)."""
    live = state.live
    near = [(i, j) for i, j, s in pairs if s >= limits.duplicate_ask and (i, j) not in never]
    if not near:
        return {}
    bodies = [c.card.body for c in live]
    shares = contained_shares(bodies, near, state.embeddings, limits.distill_threshold)
    found = {
        pair: Share(max(a.said, b.said), max(a.stated, b.stated)) for pair, (a, b) in shares.items()
    }
    own = {
        (i, j)
        for i, j, s in pairs
        if s >= limits.merge_threshold and live[i].card.distilled and live[j].card.distilled
    }
    return {p: share for p, share in found.items() if share.stated >= CONTAINED or p in own}


def _disputed(state: VaultState, stating: _Pairs) -> dict[tuple[int, int], dict[str, Any]]:
    """The pairs of `stating` whose figures or names disagree, with where."""
    live = state.live
    warm(state.embeddings, [live[i].card.body for i in sorted({n for p in stating for n in p[:2]})])
    found = (
        (i, j, disagreement(state, live[i].card.body, live[j].card.body)) for i, j, _ in stating
    )
    return {(i, j): where for i, j, where in found if where is not None}


def _alike(left: CardFile, right: CardFile) -> bool:
    """Whether two close cards are both distilled, their first sentences agree on advising
    against and do not advise the same action on different things."""
    if not (left.card.distilled and right.card.distilled):
        return False
    first, second = first_sentence(left.card.body), first_sentence(right.card.body)
    return negated(first) == negated(second) and substitution(first, second) is None


def _conflict_report(left: CardFile, right: CardFile, found: Contradiction) -> Report:
    return Report(
        "conflict",
        f"{left.slug} and {right.slug} contradict each other; not merged (decide which is right)",
        (left.path, right.path),
        (found.first.sentence, found.second.sentence),
        STEP,
    )


def _units(paragraphs: list[str]) -> list[str]:
    """Paragraphs, each one ending in a colon ("Manual form:") joined to the one it introduces."""
    units: list[str] = []
    for paragraph in paragraphs:
        if units and units[-1].rstrip().endswith(":"):
            units[-1] = f"{units[-1]}\n\n{paragraph}"
        else:
            units.append(paragraph)
    return units


def merge_cluster(
    state: VaultState,
    cluster: list[CardFile],
    cfg: VaultConfig,
    inbound: Counter[str] | None = None,
    by_person: bool = False,
) -> list[Change]:
    """Changes merging `cluster` into one card; nothing when the merged card would not read
    back (its frontmatter over the YAML bounds). A person's merge makes the survivor curated."""
    fresh = [state.card_at(c.path) or c for c in cluster]
    ordered = survivor_order(fresh, inbound if inbound is not None else inbound_links(state))
    keep, others = ordered[0], ordered[1:]
    meta = merged_meta(keep, others)
    renames = {o.slug: keep.slug for o in others}
    body = keep.card.body
    threshold = constants_for(cfg).distill_threshold
    for other in others:
        kept = novel_blocks(body, other.card.body, state.embeddings, threshold)
        body = append_paragraphs(body, _units(render_blocks(kept)))
    text = replace_body(keep.file.text, body) if body != keep.card.body else keep.file.text
    text = rename_links(update_card_text(text, meta, path=keep.path), renames)
    try:  # cards each within the YAML bounds may not be together (their aliases summed)
        if by_person:
            text = update_card_text(text, {}, remove=[DISTILLED_KEY], path=keep.path)
        else:
            text = keep_provenance(keep.card, text)
        parse_card(text, keep.path)
    except CardFormatError:
        return []
    reason = "\n".join(f"merged {o.slug} → {keep.slug}" for o in others)
    changes: list[Change] = [
        WriteFile(keep.path, text, keep.file.digest, reason, STEP, len(others))
    ]
    for other in others:
        changes.append(
            DeleteFile(other.path, other.file.digest, f"merged {other.slug} → {keep.slug}", STEP)
        )
    changes.extend(rewrite_links(state, renames, {keep.path, *(o.path for o in others)}))
    return changes


def merged_meta(keep: CardFile, others: list[CardFile]) -> dict[str, Any]:
    """The survivor's frontmatter changes: each field by its `fold` rule (vault/fields.py); the
    others' slugs and topics become `aliases`, their slugs `merged_from`."""
    cards = [keep.card, *(o.card for o in others)]
    meta: dict[str, Any] = {}
    for row in f.FIELDS:
        meta.update(_folded(row, keep.card, cards))
    aliases = _union(
        [keep.card.aliases, *([o.slug, o.card.topic, *o.card.aliases] for o in others)]
    )
    meta[f.ALIASES] = [a for a in aliases if a not in (keep.slug, keep.card.topic)]
    meta[f.MERGED_FROM] = _union([keep.card.items(f.MERGED_FROM), [o.slug for o in others]])
    return f.in_order({k: v for k, v in meta.items() if v is not None})


def _folded(row: f.Field, keep: Card, cards: list[Card]) -> dict[str, Any]:
    """`keep`'s value of `row` once `cards` are one card (nothing: its own)."""
    key, rule = row.name, row.fold
    if rule == f.UNION:
        return {key: _union(c.items(key) for c in cards) or None}
    if rule in (f.EARLIEST, f.LATEST):
        dates = [d for d in (as_date(c.meta.get(key)) for c in cards) if d is not None]
        return {key: (min if rule == f.EARLIEST else max)(dates, default=None)}
    if rule == f.SIGHTINGS:
        return {key: sightings(cards)}
    if rule == f.HIGHEST:
        levels = [c.meta[key] for c in cards if f.rank(key, c.meta.get(key)) >= 0]
        return {key: max(levels, key=lambda v: f.rank(key, v))} if levels else {}
    if rule == f.FIRST and not keep.meta.get(key):
        return {key: next((c.meta[key] for c in cards if c.meta.get(key)), None)}
    promoted = [c for c in cards if c.status == "promoted"]
    if rule == f.PROMOTION and promoted and keep.status != "promoted":
        return {key: "promoted", f.PROMOTED: promoted[0].meta.get(f.PROMOTED)}
    return {}


def _union(groups: Any) -> list[str]:
    return list(dict.fromkeys(str(item) for group in groups for item in group))
