"""`checked:`: when a card was last confirmed against the project, and at which commit.

`checked: {date, commit}` (the commit as 12 hex digits of the project's HEAD; no `commit` when
the project is no git repository or has no commit yet) is written when a person answers a stale
question "still right" (review/act.py). The value is small and changes only when the card is
checked again, so a card's diff shows it once per check.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

CHECKED = "checked"
SHORT = 12


def checked_value(project: Path | None, today: dt.date) -> dict[str, object]:
    """The `checked:` value for a card confirmed today against `project`."""
    from cardvault.history import project_head

    head = project_head(project) if project is not None else None
    return {"date": today, "commit": head[:SHORT]} if head else {"date": today}
