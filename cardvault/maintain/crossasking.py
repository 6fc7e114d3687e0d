"""The cards `maintain --global` compares (`Member`), and weak cross-project evidence: a
`cross-project` question in the global review queue, never a card.

Members are named by their citation (`<context key>:memory/cards/<slug>.md`). Accepting the
question promotes them (crossproject.promotion_by_answer); rejecting it keeps them apart.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from cardvault.maintain.asking import new_item
from cardvault.maintain.state import CardFile
from cardvault.maintain.text import first_sentence
from cardvault.vault.decisions import Member as Asked
from cardvault.vault.decisions import ReviewItem
from cardvault.vault.layout import Vault

KIND = "cross-project"


@dataclass(frozen=True)
class Member:
    """A project card taking part, with its rule in that project (maintain/promote.py)."""

    project: str
    card: CardFile
    rel: str
    vault: Vault = field(compare=False, repr=False)
    rule: str = field(default="", compare=False)

    @property
    def cite(self) -> str:
        """How the global vault cites it: `<key>:memory/cards/<slug>.md`."""
        return f"{self.project}:{self.rel}"


@dataclass(frozen=True)
class Weak:
    """Cards that may tell one lesson: the members, their similarity (None for a group), why."""

    members: tuple[Member, ...]
    score: float | None
    why: str

    @property
    def message(self) -> str:
        """The question in one line, as `maintain --global` reports it."""
        cites = [m.cite for m in self.members]
        score = f" (similarity {self.score:.2f})" if self.score is not None else ""
        return f"same lesson in {len(cites)} places?{score}: {self.why}: {', '.join(cites)}"


def question(weak: Weak, today: dt.date) -> ReviewItem:
    """One weak group as a pending `cross-project` review item."""
    members = [
        Asked(key=m.cite, path=m.cite, text=_said(m))
        for m in sorted(weak.members, key=lambda m: m.cite)
    ]
    evidence: dict[str, object] = {"why": weak.why}
    if weak.score is not None:
        evidence["similarity"] = weak.score
    evidence["projects"] = sorted({m.project for m in weak.members})
    return new_item(KIND, members, evidence, today)


def _said(member: Member) -> str:
    card = member.card.card
    first = first_sentence(card.body, 300)
    return f"{card.topic}: {first}" if first else card.topic
