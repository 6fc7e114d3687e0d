"""Weak cross-project evidence: a question for a person, never a global card.

A pair of cards from two projects that look alike without being certainly the same lesson, or a
lesson found in fewer projects than `[global] promote_projects`, is asked about rather than
promoted. `ask` is the one place that turns them into questions. The review queue (issue 11,
`cardvault review`) was not on main when this was written, so `ask` returns them as findings
(`Report` changes of kind "review") that `maintain --global` shows and writes nowhere; routing
them into the queue changes this function alone.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardvault.edits.changes import Change, Report
from cardvault.vault.layout import Vault

if TYPE_CHECKING:
    from cardvault.scopes.crossproject import Member

KIND = "review"


@dataclass(frozen=True)
class Weak:
    """Cards that may tell one lesson: the members, their similarity (None for a group), why."""

    members: tuple[Member, ...]
    score: float | None
    why: str


def ask(global_vault: Vault, weak: Sequence[Weak], today: dt.date) -> list[Change]:
    """The questions weak evidence raises, one per group of cards."""
    questions: list[Change] = []
    for item in weak:
        cites = [m.cite for m in item.members]
        score = f" (similarity {item.score:.2f})" if item.score is not None else ""
        message = f"same lesson in {len(cites)} places?{score}: {item.why}: {', '.join(cites)}"
        texts = tuple(f"{m.cite}: {m.card.card.topic}" for m in item.members)
        paths = tuple(m.card.path for m in item.members)
        questions.append(Report(KIND, message, paths, texts, "global"))
    return questions
