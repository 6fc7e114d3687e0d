"""`checked:`: when a card was last confirmed against the project, and at which commit.

`checked: {date, commit}` (the commit as `SHORT` hex digits of the project's HEAD; no `commit`
when the project is no git repository or has no commit yet). Written:
- by `verify` (and maintain's verify step) on a card that cites lines (`src/app.py:12-30`, a
  link's `#L12-L30`) and has no record yet, when every cited file is as HEAD holds it (so the
  commit says exactly what was read) and no cited range runs past its file's end;
- by a "still right" answer to a stale question (review/act.py), on any card.
Once recorded, each run compares the cited lines as that commit held them with the lines now:
lines that changed make the card stale (`src/app.py:12-30: the lines changed since
1a2b3c4d5e6f, the commit the card was checked at`). A clone that lacks the commit (one rebased
or squashed away before it was pushed) cannot compare: the card keeps what its mark says of
those lines, and the run reports it, so a clone that can compare and one that cannot never
undo each other's mark. A card edited after its check (`updated` later than the record's
date) is recorded anew instead: its citations are the person's newer ones. So the value
changes only when a card is checked again, and a card's diff shows it once per check: nothing
is rewritten because the project moved on. A `checked:` key in another
form is the person's own: left alone, and the card's lines are not compared.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cardvault.vault.card import Card, as_date
from cardvault.vault.fields import CHECKED, UPDATED
from cardvault.vault.finding import Finding
from cardvault.verify.names import Named
from cardvault.verify.project import Project

SHORT = 12
_UNCOMPARED = (
    "{cite} of {slug} not compared: this clone has no commit {commit}, the one the card was "
    "checked at (rebased or squashed away?), or it did not hold the file; the card keeps the "
    "mark it has until it is checked again (edited, or answered still right in `cardvault review`)"
)


def is_ours(value: Any) -> bool:
    """Whether a card's `checked:` is absent or of this form (`{date, commit}`): a key of the
    same name a person gave another meaning (`checked: true`) is theirs, never overwritten."""
    return value is None or (isinstance(value, dict) and set(value) <= {"date", "commit"})


def checked_value(project: Path | None, today: dt.date) -> dict[str, object]:
    """The `checked:` value for a card confirmed today against `project`."""
    from cardvault.history import project_head

    head = project_head(project) if project is not None else None
    return {"date": today, "commit": head[:SHORT]} if head else {"date": today}


def line_verdict(
    card: Card, cited: Sequence[Named], project: Project, today: dt.date, marked: Sequence[str]
) -> tuple[list[str], dict[str, object] | None]:
    """Why the lines `card` cites are stale, and the `checked:` value to record (None: keep
    what the card has); `marked`: the reasons of the card's stale mark now. Files that are
    gone are the path check's to report."""
    head = project.head
    if not cited or head is None or not is_ours(card.meta.get(CHECKED)):
        return [], None
    commit, since = _recorded(card.meta.get(CHECKED))
    edited = card.date(UPDATED)
    anew = commit is None or (since is not None and edited is not None and edited > since)
    reasons: list[str] = []
    clean = True
    for named in cited:
        assert named.lines is not None
        now = project.read(named.text)
        if now is None:
            clean = False
            continue
        first, last = named.lines
        cite = f"`{named.text}:{first}" + (f"-{last}`" if last != first else "`")
        lines = now.splitlines()
        if last > len(lines):
            reasons.append(f"{cite}: the file has {len(lines)} lines")
        elif not anew and commit is not None:
            then = project.committed(commit, named.text)
            changed = (
                f"{cite}: the lines changed since {commit}, the commit the card was checked at"
            )
            if then is None:  # not compared here: the card keeps what its mark says of them
                reasons += [changed] if changed in marked else []
                project.problems.append(Finding(named.text, 0, _UNCOMPARED.format(
                    cite=cite, slug=card.slug, commit=commit)))  # fmt: skip
            elif then.splitlines()[first - 1 : last] != lines[first - 1 : last]:
                reasons.append(changed)
        elif project.committed(head, named.text) != now:
            clean = False  # not as HEAD holds it: no commit says what was read
    if anew and clean and not reasons:
        return reasons, {"date": today, "commit": head[:SHORT]}
    return reasons, None


def _recorded(value: Any) -> tuple[str | None, dt.date | None]:
    if not isinstance(value, dict) or not value.get("commit"):
        return None, None
    return str(value["commit"]), as_date(value.get("date"))
