"""How valuable a card is, independent of any task: frequency × impact × recency, on 0..1.

The self-learning-agent seed's promotion score: `seen` capped at 10, `impact` (else from
`severity`, else 0.5), and recency decaying 0.1 a week since the card was last used or
updated, with a floor so an old but frequent lesson still outranks an unknown one. `card_age`
says when a card was last edited and used, and whether `verify` found it stale.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from cardvault.vault.card import Card
from cardvault.vault.fields import CREATED, IMPACT, LAST_USED, SEVERITY, UPDATED

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


def card_age(card: Card, today: dt.date) -> str:
    """How old the card's knowledge is, in words, as a search hit of it says
    (`search.engine.Dates.facts`): `updated 40 days ago, last used 3 days ago`, then, for a
    card `verify` found stale, `; STALE since 2026-12-01: <reason>`."""
    from cardvault.search.engine import Dates

    return str(Dates.of(card.meta).facts(today)["age"])
