"""Promote: recurring or severe lessons become one-line rules in AGENTS.md.

A live card is due when `seen` reaches `promote_threshold`, its `severity` is high, or
`[agents] promote_threshold` different agents learned it (the agents of the log entries it cites
in `sources`, and its `learned_by`), unless a person demoted it (`demoted:` date) or it is marked
`stale:` (verify runs first: an outdated rule is not handed to every agent; it is promoted once
the stale question is answered "still right", which takes the mark away). The rule line
of a lesson agents learned names them:
`- <rule> — learned by ada, bob (memory/cards/<slug>.md)`. Promoting sets `status: promoted`
and `promoted: <date>`.
AGENTS.md's managed `rules` section then lists one line per promoted card,
`- <rule> (memory/cards/<slug>.md)`, sorted, so the section's diff is one line per change. The
rule is the card's `rule` key, else its first sentence. Rules written there by hand (and
comments) are kept (vault/rules.py reads and rebuilds the section). `demote` reverses a
promotion.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

from cardvault.edits.changes import Change, WriteFile
from cardvault.errors import CardvaultError
from cardvault.maintain.reverts import refused
from cardvault.maintain.state import CardFile, VaultState
from cardvault.maintain.text import first_sentence
from cardvault.vault.card import Card
from cardvault.vault.config import VaultConfig
from cardvault.vault.daily import LogEntry
from cardvault.vault.files import ABSENT
from cardvault.vault.rules import SECTION, parse_rules, rebuilt_section
from cardvault.vault.sections import get_section, set_section
from cardvault.verify.marks import STALE

STEP = "promote"
RULE_LIMIT = 200
_NEW_AGENTS = "# AGENTS.md\n\n## Learned rules\n"


def step(state: VaultState, cfg: VaultConfig) -> list[Change]:
    """Promote every due card, then bring AGENTS.md's rules section up to date."""
    changes: list[Change] = []
    by_ref = _entries_by_ref(state)
    for card in state.live:
        if card.card.meta.get(STALE):
            continue
        why = due(card, cfg, learners(card.card, by_ref))
        if why and not refused(state, "promote", state.vault.rel(card.path)):
            changes.append(promotion(card, state.today, why))
    return changes + rules_changes(state.after(changes))


def due(card: CardFile, cfg: VaultConfig, agents: Sequence[str] = ()) -> str | None:
    """Why `card` should be promoted now ("seen 3", "severity high", "learned by 2 agents"),
    or None. `agents`: who learned it (`learners`)."""
    meta = card.card.meta
    if card.card.status in ("promoted", "archived") or meta.get("demoted"):
        return None
    if card.card.seen >= cfg.promote_threshold:
        return f"seen {card.card.seen}"
    if meta.get("severity") == "high":
        return "severity high"
    if len(agents) >= cfg.agent_promote_threshold:
        return f"learned by {len(agents)} agents: {', '.join(agents)}"
    return None


def learners(card: Card, by_ref: Mapping[str, LogEntry]) -> tuple[str, ...]:
    """The agents who learned a card's lesson, sorted: those of the log entries it cites, and
    its `learned_by` names."""
    found = {by_ref[s].agent for s in card.sources if s in by_ref and by_ref[s].agent}
    named = card.meta.get("learned_by")
    if isinstance(named, list):
        found.update(str(n).strip().lower() for n in named if str(n).strip())
    return tuple(sorted(n for n in found if n))


def _entries_by_ref(state: VaultState) -> dict[str, LogEntry]:
    from cardvault.vault.entry_ids import entries_by_ref

    return entries_by_ref(state.entries)


def promotion(card: CardFile, today: dt.date, why: str, rule: str | None = None) -> WriteFile:
    """The card rewritten as promoted."""
    from cardvault.vault.card import update_card_text

    changes: dict[str, object] = {"status": "promoted", "promoted": today}
    if rule:
        changes["rule"] = one_line(rule)
    text = update_card_text(card.file.text, changes, remove=["demoted"], path=card.path)
    return WriteFile(card.path, text, card.file.digest, f"promoted {card.slug} ({why})", STEP, 1)


def demotion(card: CardFile, today: dt.date) -> WriteFile:
    """The card rewritten as no longer promoted (and not promoted again automatically)."""
    from cardvault.vault.card import update_card_text

    changes = {"status": "active", "demoted": today}
    text = update_card_text(card.file.text, changes, remove=["promoted"], path=card.path)
    return WriteFile(card.path, text, card.file.digest, f"demoted {card.slug}", STEP, 1)


def one_line(text: str) -> str:
    """`text` on one line, trimmed to RULE_LIMIT characters, without managed-section markers
    (a rule line sits inside one) and with any secret redacted (AGENTS.md is loaded by every
    agent and committed)."""
    from cardvault.guard import redact_text
    from cardvault.vault.sections import without_markers

    flat = " ".join(redact_text(without_markers(text)).split())
    return flat if len(flat) <= RULE_LIMIT else flat[: RULE_LIMIT - 1].rstrip() + "…"


def rule_text(card: CardFile) -> str:
    """The card's rule: its `rule` key, else its first sentence, else its topic."""
    rule = card.card.meta.get("rule")
    if isinstance(rule, str) and rule.strip():
        return one_line(rule)
    return one_line(first_sentence(card.card.body, RULE_LIMIT) or card.card.topic)


def generated_rules(state: VaultState) -> list[str]:
    """One rule line per promoted live card, citing the card (and who learned it)."""
    vault = state.vault
    by_ref = _entries_by_ref(state)
    lines = []
    for card in state.live:
        if card.card.status == "promoted":
            agents = learners(card.card, by_ref)
            # names come from the card's `learned_by` too: one line, like the rule itself
            who = f" — learned by {one_line(', '.join(agents))}" if agents else ""
            lines.append(f"- {rule_text(card)}{who} ({vault.rel(card.path)})")
    return lines


def rules_changes(state: VaultState) -> list[Change]:
    """The AGENTS.md write that makes its rules section match the promoted cards, if any."""
    agents = state.agents
    path = state.vault.agents_md
    current = get_section(agents.text, SECTION, path) if agents else None
    content = rebuilt_section(current, generated_rules(state))
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
    """`cardvault promote SLUG`: promote one live card now (with an optional rule text)."""
    card = _live(state, slug)
    if card.card.status == "promoted" and not rule:
        return rules_changes(state)
    change = promotion(card, state.today, "by hand", rule)
    return [change, *rules_changes(state.after([change]))]


def demote_by_hand(state: VaultState, slug: str) -> list[Change]:
    """`cardvault demote SLUG`: take a card's rule back out of AGENTS.md."""
    card = _live(state, slug)
    if card.card.status != "promoted":
        raise CardvaultError(f"{slug} is not promoted", card.path)
    change = demotion(card, state.today)
    return [change, *rules_changes(state.after([change]))]


def _live(state: VaultState, slug: str) -> CardFile:
    from cardvault.errors import NotFoundError

    card = state.one_card(slug)
    if card is None:
        archived = state.by_slug(slug, archived=True)
        if archived is not None:
            raise CardvaultError(
                f"{slug} is archived; move it back to memory/cards first", archived.path
            )
        raise NotFoundError(f"no live card with slug or alias '{slug}'")
    return card
