"""Promote: recurring or severe lessons become one-line rules in AGENTS.md.

A card is a lesson when it cites log entries of this vault (`lesson_rule`); a card citing none
is promoted only by a person. A lesson is due when sighted `promote_threshold` times, of high
`severity`, or learned by `[agents] promote_threshold` agents, unless demoted or `stale:`.
AGENTS.md's managed `rules` section is the record of rules: a line stays as written while its
card is live and promoted (a merge's survivor takes over its line); a card that says `promoted`
without a line there is no rule. Lines written there by hand are kept (vault/rules.py).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from pathlib import Path

from cardvault.edits.changes import Change, WriteFile
from cardvault.errors import CardvaultError
from cardvault.maintain.reverts import refused
from cardvault.maintain.state import CardFile, VaultState
from cardvault.vault.card import Card, update_card_text
from cardvault.vault.config import VaultConfig
from cardvault.vault.daily import LogEntry
from cardvault.vault.fields import DEMOTED, LEARNED_BY, PROMOTED, RULE, SEVERITY, STALE, STATUS
from cardvault.vault.files import ABSENT
from cardvault.vault.rules import (
    SECTION,
    parse_rules,
    read_rules,
    rebuilt_section,
    recited,
)
from cardvault.vault.sections import get_section, set_section, without_markers

STEP = "promote"
RULE_LIMIT = 200
_NEW_AGENTS = "# AGENTS.md\n\n## Learned rules\n"


def step(state: VaultState, cfg: VaultConfig) -> list[Change]:
    """Promote every due lesson, then bring AGENTS.md's rules section up to date."""
    changes: list[Change] = []
    promoted: dict[Path, str] = {}
    by_ref = state.entries_by_ref
    ruled = recorded_cards(state)
    for card in state.live:
        if card.card.meta.get(STALE) or card.path in ruled:
            continue
        rule = lesson_rule(card.card, by_ref)
        why = due(card, cfg, learners(card.card, by_ref), sightings(card.card, by_ref))
        if rule and why and not refused(state, "promote", state.vault.rel(card.path)):
            changes.append(promotion(card, state.today, why))
            promoted[card.path] = rule
    return changes + rules_changes(state.after(changes), promoted)


def due(
    card: CardFile, cfg: VaultConfig, agents: Sequence[str] = (), seen: int | None = None
) -> str | None:
    """Why `card` should be promoted now ("seen 3 times"), or None. Whether it is a lesson at
    all is `lesson_rule`'s question."""
    meta = card.card.meta
    if card.card.status == "archived" or meta.get(DEMOTED):
        return None
    seen = card.card.seen if seen is None else seen
    if seen >= cfg.promote_threshold:
        return f"seen {seen} times"
    if meta.get(SEVERITY) == "high":
        return "severity high"
    if len(agents) >= cfg.agent_promote_threshold:
        return f"learned by {len(agents)} agents: {', '.join(agents)}"
    return None


def sightings(card: Card, by_ref: Mapping[str, LogEntry]) -> int:
    """How many times the card's lesson was told: the distinct log entries of this vault it
    cites, plus the card's own telling when its `seen` counts one more; never over `seen`."""
    entries = len({by_ref[s].ref for s in card.sources if s in by_ref})
    return min(card.seen, entries + 1) if entries else 0


def lesson_rule(card: Card, by_ref: Mapping[str, LogEntry]) -> str | None:
    """The rule the logs give a card: None unless it cites a log entry of this vault; then its
    `rule` key, else the first lesson line of the earliest entry it cites."""
    from cardvault.maintain.lessons import lesson_lines

    entries = sorted(
        {by_ref[s].ref: by_ref[s] for s in card.sources if s in by_ref}.values(),
        key=lambda e: (e.day, e.time, e.ordinal),
    )
    if not entries:
        return None
    rule = _rule_key(card)
    if rule:
        return one_line(rule)
    lines = [line for entry in entries for line in lesson_lines(entry)]
    return one_line(lines[0]) if lines else None


def learners(card: Card, by_ref: Mapping[str, LogEntry]) -> tuple[str, ...]:
    """The agents who learned a card's lesson (of the entries it cites, and `learned_by`)."""
    found = {by_ref[s].agent for s in card.sources if s in by_ref and by_ref[s].agent}
    found.update(n.strip().lower() for n in card.items(LEARNED_BY) if n.strip())
    return tuple(sorted(n for n in found if n))


def promotion(card: CardFile, today: dt.date, why: str, rule: str | None = None) -> WriteFile:
    """The card rewritten as promoted."""
    changes: dict[str, object] = {STATUS: "promoted", PROMOTED: today}
    if rule:
        changes[RULE] = one_line(rule)
    text = update_card_text(card.file.text, changes, remove=[DEMOTED], path=card.path)
    return WriteFile(card.path, text, card.file.digest, f"promoted {card.slug} ({why})", STEP, 1)


def one_line(text: str) -> str:
    """`text` on one line, trimmed to RULE_LIMIT characters, without managed-section markers
    and with any secret redacted (every agent loads AGENTS.md)."""
    from cardvault.guard import redact_text

    flat = " ".join(redact_text(without_markers(text)).split())
    return flat if len(flat) <= RULE_LIMIT else flat[: RULE_LIMIT - 1].rstrip() + "…"


def rule_line(state: VaultState, card: CardFile, rule: str) -> str:
    """The AGENTS.md line of `card` promoted with `rule`, citing it and who learned it."""
    agents = learners(card.card, state.entries_by_ref)
    # names come from the card's `learned_by` too: one line, like the rule itself
    who = f" — learned by {one_line(', '.join(agents))}" if agents else ""
    return f"- {one_line(rule)}{who} ({state.vault.rel(card.path)})"


def recorded_cards(state: VaultState) -> dict[Path, str]:
    """The live promoted cards AGENTS.md's rules section holds a line for -> that line (the
    citation moved to the card now holding the cited slug, as a merge's survivor does)."""
    agents = state.agents
    found: dict[Path, str] = {}
    for rule in read_rules(agents.text if agents else None, state.vault.agents_md):
        if not rule.generated or not rule.cites:
            continue
        cited = rule.cites[-1]
        card = state.card_at(state.vault.root / cited) or state.by_slug(Path(cited).stem)
        if card is None or card.archived or card.card.status != "promoted":
            continue
        rel = state.vault.rel(card.path)
        line = rule.text if rel == cited else recited(rule.text, rel)
        if card.path not in found or rel == cited:
            found[card.path] = line
    return found


def rules_changes(state: VaultState, promoted: Mapping[Path, str] | None = None) -> list[Change]:
    """The AGENTS.md write that brings its rules section up to date, with a line for each card
    of `promoted` (path -> rule)."""
    promoted = promoted or {}
    agents = state.agents
    path = state.vault.agents_md
    lines = dict(recorded_cards(state))
    for where, rule in promoted.items():
        card = state.card_at(where)
        if card is not None and rule.strip():
            lines[where] = rule_line(state, card, rule)
    current = get_section(agents.text, SECTION, path) if agents else None
    content = rebuilt_section(current, lines.values())
    if agents is None and not content:
        return []
    text = agents.text if agents else _NEW_AGENTS
    updated = set_section(text, SECTION, content, path)
    if agents is not None and updated == agents.text:
        return []
    expected = agents.digest if agents else ABSENT
    count = len(parse_rules(content))
    reason = f"AGENTS.md: learned rules now {count} line{'s' if count != 1 else ''}"
    return [WriteFile(path, updated, expected, reason, STEP)]


def promote_by_hand(state: VaultState, slug: str, rule: str | None) -> list[Change]:
    """`cardvault promote SLUG`: promote one live card now, with `rule` as its rule (else the
    line AGENTS.md has for it, else its `rule` key, else its lesson's rule)."""
    card = state.live_card(slug)
    if card.path in recorded_cards(state) and not rule:
        return rules_changes(state)
    text = rule or _rule_key(card.card) or lesson_rule(card.card, state.entries_by_ref)
    if not text:
        raise CardvaultError(
            f"{slug} holds no rule (no `rule:` and no lesson from the logs); give it one: "
            f'cardvault promote {slug} --rule "..."',
            card.path,
        )
    change = promotion(card, state.today, "by hand", rule)
    return [change, *rules_changes(state.after([change]), {card.path: text})]


def _rule_key(card: Card) -> str | None:
    rule = card.meta.get(RULE)
    return rule if isinstance(rule, str) and rule.strip() else None


def demote_by_hand(state: VaultState, slug: str) -> list[Change]:
    """`cardvault demote SLUG`: take a card's rule back out of AGENTS.md."""
    card = state.live_card(slug)
    if card.card.status != "promoted":
        raise CardvaultError(f"{slug} is not promoted", card.path)
    # `demoted:` keeps the pass from promoting it again
    changes = {STATUS: "active", DEMOTED: state.today}
    text = update_card_text(card.file.text, changes, remove=[PROMOTED], path=card.path)
    change = WriteFile(card.path, text, card.file.digest, f"demoted {card.slug}", STEP, 1)
    return [change, *rules_changes(state.after([change]))]
