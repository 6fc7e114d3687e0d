"""`checked: {date, commit}`: when a card was last confirmed against the project, and at which
commit (`SHORT` hex digits of HEAD). Recorded by `verify` on a card citing lines whose files
are as HEAD holds them (so the commit says what was read), and by a "still right" answer.

Each run compares the cited lines at that commit with the lines now: changed lines make the
card stale. A clone lacking the commit keeps what the mark says of those lines, so a clone that
can compare and one that cannot never undo each other's mark. A card edited after its check is
recorded anew; a `checked:` of another form is the person's own and left alone.
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
