"""The steps a person runs on one card: `promote SLUG`, `demote SLUG`, `archive SLUG`.

Each plans the card's change plus the AGENTS.md rules and MEMORY.md table it affects, for the
app to land through the one door in one commit.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cardvault import history
from cardvault.edits.changes import Change, Report, reason_lines, reports
from cardvault.edits.proposal import Planned, Proposal, Written, door_notes, propose
from cardvault.maintain import memory_index
from cardvault.maintain.archive import archive_by_hand
from cardvault.maintain.promote import demote_by_hand, promote_by_hand
from cardvault.maintain.state import VaultState, load_state
from cardvault.vault.layout import Vault


@dataclass(frozen=True)
class HandResult:
    """The changes made and the commit that records them (None when nothing changed)."""

    changes: tuple[Change, ...]
    written: tuple[Path, ...]
    commit: history.CommitResult | None
    notes: list[str] = field(default_factory=list)  # what the write door had to do first

    @property
    def reasons(self) -> list[str]:
        """Every action line of the changes, in order."""
        return reason_lines(list(self.changes))

    @property
    def reports(self) -> list[Report]:
        """What the steps found but did not change (a card that cannot be promoted...)."""
        return reports(list(self.changes))


#: A by-hand step's write, for the app to land.
ByHand = Planned[None, HandResult]


def promote_card(vault: Vault, slug: str, today: dt.date, rule: str | None = None) -> ByHand:
    """Promote `slug` now, with `rule` as its rule text when given."""
    return _run(vault, today, f"promote: {slug}", lambda s: promote_by_hand(s, slug, rule))


def demote_card(vault: Vault, slug: str, today: dt.date) -> ByHand:
    """Take `slug`'s rule out of AGENTS.md and mark it not to be promoted again."""
    return _run(vault, today, f"demote: {slug}", lambda s: demote_by_hand(s, slug))


def archive_card(vault: Vault, slug: str, today: dt.date) -> ByHand:
    """Move `slug` to memory/archive/ now."""
    return _run(vault, today, f"archive: {slug}", lambda s: archive_by_hand(s, slug))


def _run(
    vault: Vault, today: dt.date, subject: str, plan: Callable[[VaultState], list[Change]]
) -> ByHand:
    def proposal() -> Proposal[None]:
        state = load_state(vault, today)
        changes = plan(state)
        changes += memory_index.step(state.after(changes), vault.config)
        message = subject + "\n\n" + "\n".join(reason_lines(changes)) + "\n"
        return propose(changes, message, None)

    return Planned(proposal, _result)


def _result(written: Written[None]) -> HandResult:
    return HandResult(written.changes, written.paths, written.commit, door_notes(written))
