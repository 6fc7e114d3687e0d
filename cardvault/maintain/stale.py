"""Verify: maintenance's step of `cardvault verify` (verify/marks.py).

Live cards are checked against the project the vault lives in; a card that names a file,
command or pinned version the project no longer has gets `stale: {reason, date}`. Marks are
only added or updated here, never cleared (`cardvault verify` clears them: verify/marks.py says
why). A vault that is its own repository has no project: nothing
changes. Problems reading the project are reported, never fatal.
"""

from __future__ import annotations

from cardvault.edits.changes import Change, Report
from cardvault.maintain.state import VaultState
from cardvault.vault.config import VaultConfig
from cardvault.verify.marks import check_cards, project_of, stale_changes
from cardvault.verify.project import Project

STEP = "verify"


def step(state: VaultState, cfg: VaultConfig) -> list[Change]:
    """Mark the live cards the project no longer bears out."""
    root = project_of(state.vault)
    if root is None:
        return []
    project = Project(root)
    checks = check_cards(state.live, state.vault, project)
    marks = stale_changes(checks, dict(state.files), state.today, clear=False)
    changes: list[Change] = list(marks)
    changes += [Report("skipped", str(problem), (), (), STEP) for problem in project.problems]
    return changes
