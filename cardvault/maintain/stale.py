"""Verify: maintenance's step of `cardvault verify` (verify/marks.py).

A live card that names a file, command, pinned version or code symbol the project no longer has
gets `stale: {reason, date}` and a review question, unless a question about those reasons was
asked or dismissed already. A mark is cleared here only when a person edited out what it cites.
A vault that is its own repository has no project: nothing changes.
"""

from __future__ import annotations

from cardvault.edits.changes import Change, Report
from cardvault.maintain.state import VaultState
from cardvault.vault.config import VaultConfig
from cardvault.verify.marks import EDITED, check_cards, mark_cards, project_of
from cardvault.verify.project import Project
from cardvault.verify.questions import dismissed, stale_queue

STEP = "verify"


def step(state: VaultState, cfg: VaultConfig) -> list[Change]:
    """Mark the live cards the project no longer bears out, and ask about them."""
    root = project_of(state.vault)
    if root is None:
        return []
    project = Project(root)
    items = list(state.review_items)
    checks = check_cards(state.live, state.vault, project, state.today, dismissed(items))
    marking = mark_cards(checks, dict(state.files), state.vault, state.today, EDITED)
    changes: list[Change] = marking.changes
    live = {state.vault.rel(c.path) for c in state.live}
    asked, lines = stale_queue(items, marking.marks, live, state.today)
    if lines:
        changes.append(state.queue_write(asked, lines, STEP))
    changes += [Report("skipped", str(problem), (), (), STEP) for problem in project.problems]
    return changes
