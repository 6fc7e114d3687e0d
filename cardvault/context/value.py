"""How valuable a card is, independent of any task: frequency × impact × recency, on 0..1.

The self-learning-agent seed's promotion score: `seen` capped at 10, `impact` (else from
`severity`, else 0.5), and recency decaying 0.1 a week since the card was last used or
updated, with a floor so an old but frequent lesson still outranks an unknown one. `card_age`
says when a card was last edited and used, and whether `verify` found it stale.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardvault.vault.card import Card, as_date
from cardvault.vault.fields import CREATED, IMPACT, LAST_USED, SEVERITY, STALE, UPDATED
from cardvault.vault.layout import FileStat, Vault, files_at

if TYPE_CHECKING:
    from cardvault.vault.snapshot import CardFile

FREQUENCY_CAP = 10
DEFAULT_IMPACT = 0.5
SEVERITY_IMPACT = {"high": 1.0, "medium": 0.6, "low": 0.3}
RECENCY_DECAY_PER_WEEK = 0.1
RECENCY_FLOOR = 0.1


@dataclass(frozen=True)
class CardValue:
    """The three factors of a card's value and their product."""

    frequency: float
    impact: float
    recency: float

    @property
    def score(self) -> float:
        """frequency × impact × recency, in 0..1."""
        return self.frequency * self.impact * self.recency

    def explain(self) -> str:
        """The product written out, e.g. `seen 0.3 × impact 1.0 × recency 0.8 = 0.24`."""
        return (
            f"frequency {self.frequency:.1f} × impact {self.impact:.1f} × "
            f"recency {self.recency:.1f} = {self.score:.2f}"
        )


def card_value(card: Card, today: dt.date) -> CardValue:
    """The value of `card` as of `today` (see the module docstring for the rule)."""
    frequency = min(max(card.seen, 1), FREQUENCY_CAP) / FREQUENCY_CAP
    return CardValue(frequency, card_impact(card), card_recency(card, today))


def card_impact(card: Card) -> float:
    """`impact` when valid, else the impact `severity` implies, else the default."""
    impact = card.meta.get(IMPACT)
    if isinstance(impact, int | float) and not isinstance(impact, bool) and 0 <= impact <= 1:
        return float(impact)
    severity = card.meta.get(SEVERITY)
    if isinstance(severity, str) and severity in SEVERITY_IMPACT:
        return SEVERITY_IMPACT[severity]
    return DEFAULT_IMPACT


def card_recency(card: Card, today: dt.date) -> float:
    """1.0 for a card touched in the last week, 0.1 less per week since, floored at 0.1."""
    dates = [d for d in (card.date(k) for k in (LAST_USED, UPDATED, CREATED)) if d]
    if not dates:
        return RECENCY_FLOOR
    last = max(dates)
    weeks = max((today - last).days, 0) // 7
    return max(RECENCY_FLOOR, round(1.0 - RECENCY_DECAY_PER_WEEK * weeks, 6))


def days_ago(then: dt.date, today: dt.date) -> str:
    """`today`, `yesterday`, `12 days ago` (a future date reads as today)."""
    days = max((today - then).days, 0)
    return "today" if days == 0 else "yesterday" if days == 1 else f"{days} days ago"


def card_age(card: Card, today: dt.date) -> str:
    """How old the card's knowledge is, in words: `updated 40 days ago, last used 3 days ago`,
    then, for a card `verify` found stale, `STALE since 2026-12-01: <reason>`."""
    return str(age_facts(card, today)["age"])


def age_facts(card: Card, today: dt.date) -> dict[str, object]:
    """What a search hit says of its card: its age in words (`age`, as `card_age`), in days
    since it was edited (`age_days`, when dated), and `stale: True` when `verify` marked it."""
    meta = card.meta
    edited = as_date(meta.get(UPDATED)) or as_date(meta.get(CREATED))
    parts = [f"updated {days_ago(edited, today)}" if edited else "never dated"]
    used = as_date(meta.get(LAST_USED))
    if used is not None:
        parts.append(f"last used {days_ago(used, today)}")
    line = ", ".join(parts)
    stale = meta.get(STALE)
    if isinstance(stale, dict):
        since = as_date(stale.get("date"))
        reason = " ".join(str(stale.get("reason", "")).split())
        line += f"; STALE since {since.isoformat() if since else '?'}: {reason}"
    facts: dict[str, object] = {"age": line}
    if edited is not None:
        facts["age_days"] = max((today - edited).days, 0)
    if isinstance(stale, dict):
        facts[STALE] = True
    return facts


def hit_ages(
    vault: Vault,
    rels: Iterable[str],
    today: dt.date,
    stamps: Mapping[str, FileStat] | None = None,
    read: Mapping[str, CardFile] | None = None,
) -> dict[str, dict[str, object]]:
    """What an agent is told of each search hit's card (by path) besides the hit (`age_facts`),
    reading in one pass the cards the search's sync did not; nothing for a log hit or a card
    that cannot be read."""
    from cardvault.vault.read import read_files

    cards = {rel for rel in rels if rel.startswith(("memory/cards/", "memory/archive/"))}
    ready = read or {}
    known = stamps or {}
    files = {rel: known[rel] for rel in cards if rel in known and rel not in ready}
    unstamped = {rel for rel in cards if rel not in known and rel not in ready}
    if unstamped:  # not compared by the sync (a watched vault left unchanged)
        files.update(files_at(vault, unstamped))
    found = {rel: ready[rel] for rel in cards if rel in ready}
    if files:
        found.update(read_files(vault, files).cards)
    return {rel: age_facts(card.card, today) for rel, card in sorted(found.items())}
