"""`cardvault verify` as a service: read the vault, check its cards, mark them through the door.

The plan is made under the vault lock from the cards as they are (edits/door.py), so a card
edited meanwhile is never overwritten. Each stale card is a question in the review queue
(verify/questions.py), written in the same commit.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from cardvault import history
from cardvault.edits.changes import Change, WriteFile, file_changes
from cardvault.edits.proposal import Planned, Proposal, Written, propose
from cardvault.vault.decisions import parse_queue, queue_path, render_queue
from cardvault.vault.fields import STALE
from cardvault.vault.files import ABSENT, read_if_present
from cardvault.vault.finding import Finding
from cardvault.vault.layout import Vault
from cardvault.vault.read import read_vault
from cardvault.verify.marks import STEP, CardCheck, check_cards, mark_cards, project_of
from cardvault.verify.project import Project
from cardvault.verify.questions import dismissed, stale_queue


@dataclass(frozen=True)
class VerifyResult:
    """What `verify` found and did."""

    project: Path | None
    checks: tuple[CardCheck, ...]
    marked: tuple[str, ...]  # slugs newly marked stale (or with new reasons)
    cleared: tuple[str, ...]  # slugs no longer stale
    problems: tuple[Finding, ...]
    commit: history.CommitResult | None = None
    asked: tuple[str, ...] = ()  # review questions asked about stale cards (their ids)
    recorded: tuple[str, ...] = ()  # slugs whose cited lines were recorded as checked now

    @property
    def stale(self) -> tuple[CardCheck, ...]:
        return tuple(c for c in self.checks if c.reasons)

    def to_dict(self) -> dict[str, object]:
        return {
            "project": str(self.project) if self.project else None,
            "checked": len(self.checks),
            "names": sum(c.checked for c in self.checks),
            "stale": [
                {"slug": c.slug, "path": str(c.path), "reasons": list(c.reasons)}
                for c in self.stale
            ],
            "marked": list(self.marked),
            "cleared": list(self.cleared),
            "problems": [str(p) for p in self.problems],
            "asked": list(self.asked),
            "recorded": list(self.recorded),
            "commit": self.commit.sha if self.commit else None,
        }


def verify_vault(
    vault: Vault, today: dt.date, project: Path | None = None, dry_run: bool = False
) -> VerifyResult | Planned[VerifyResult, VerifyResult]:
    """Check every live card against the project: what it found (no project, a dry run), or
    the marking and clearing for the app to land through the door."""
    root = project_of(vault, project)
    if root is None:
        alone = "no project to check against: the vault is alone in its repository; name one "
        return VerifyResult(None, (), (), (), (Finding("", 0, alone + "with --project PATH"),))

    def plan() -> Proposal[VerifyResult]:
        result, changes = _planned(vault, today, root)
        count = len(result.marked)
        message = f"verify: {count} stale" + (f", {len(result.cleared)} fresh again"
                                               if result.cleared else "")  # fmt: skip
        if result.recorded:
            message += f", {len(result.recorded)} checked at their commit"
        lines = "\n".join(c.reason for c in file_changes(changes))
        return propose(changes, f"{message}\n\n{lines}\n", result)

    if dry_run:
        return _planned(vault, today, root)[0]

    def result(written: Written[VerifyResult]) -> VerifyResult:
        return VerifyResult(**{**written.value.__dict__, "commit": written.commit})

    return Planned(plan, result)


def _planned(vault: Vault, today: dt.date, root: Path) -> tuple[VerifyResult, list[Change]]:
    snapshot = read_vault(vault)
    facts = Project(root)
    live = list(snapshot.live)
    cards = {c.path: c for c in live}
    queue = read_if_present(queue_path(vault.root), vault.root)
    items = parse_queue(queue.text, queue.path) if queue is not None else []
    checks = check_cards(live, vault, facts, today, dismissed(items))
    marking = mark_cards(checks, cards, vault, today)
    changes = marking.changes
    asked, lines = stale_queue(items, marking.marks, {vault.rel(c.path) for c in live}, today)
    if lines:
        expected = queue.digest if queue is not None else ABSENT
        path = queue_path(vault.root)
        changes.append(WriteFile(path, render_queue(asked), expected, "\n".join(lines), STEP))
    by_path = {c.path: c for c in checks}
    touched = [by_path[c.path] for c in changes if isinstance(c, WriteFile) and c.path in by_path]
    marked = tuple(c.slug for c in touched if c.reasons)
    cleared = tuple(c.slug for c in touched if not c.reasons and STALE in cards[c.path].card.meta)
    recorded = tuple(c.slug for c in touched if c.record is not None)
    kept = [
        Finding(vault.rel(c.path), 1, "still marked stale: what it names is installed here but "
                "was missing where it was marked; `cardvault review` settles it (still right)")
        for c in marking.held
    ]  # fmt: skip
    problems = (*snapshot.problems, *facts.problems, *kept)
    new = tuple(i.id for i in asked[len(items) :])
    found = VerifyResult(root, tuple(checks), marked, cleared, problems, None, new, recorded)
    return found, changes
