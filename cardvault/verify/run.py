"""`cardvault verify` as a service: read the vault, check its cards, mark them through the door.

The plan is made under the vault lock from the cards as they are (edits/door.py), so a card
edited meanwhile is never overwritten; `dry_run` reads only and writes nothing.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from cardvault import history
from cardvault.edits.changes import Change, WriteFile, file_changes
from cardvault.edits.door import Proposal, locked_write, propose
from cardvault.vault.finding import Finding
from cardvault.vault.layout import Vault
from cardvault.vault.read import read_vault
from cardvault.verify.marks import CardCheck, check_cards, project_of, stale_changes
from cardvault.verify.project import Project


@dataclass(frozen=True)
class VerifyResult:
    """What `verify` found and did."""

    project: Path | None
    checks: tuple[CardCheck, ...]
    marked: tuple[str, ...]  # slugs newly marked stale (or with new reasons)
    cleared: tuple[str, ...]  # slugs no longer stale
    problems: tuple[Finding, ...]
    commit: history.CommitResult | None = None

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
            "commit": self.commit.sha if self.commit else None,
        }


def verify_vault(
    vault: Vault, today: dt.date, project: Path | None = None, dry_run: bool = False
) -> VerifyResult:
    """Check every live card against the project; mark and clear through the door."""
    root = project_of(vault, project)
    if root is None:
        alone = "no project to check against: the vault is alone in its repository; name one "
        return VerifyResult(None, (), (), (), (Finding("", 0, alone + "with --project PATH"),))

    def plan() -> Proposal[VerifyResult]:
        result, changes = _planned(vault, today, root)
        count = len(result.marked)
        message = f"verify: {count} stale" + (f", {len(result.cleared)} fresh again"
                                               if result.cleared else "")  # fmt: skip
        lines = "\n".join(c.reason for c in file_changes(changes))
        return propose(changes, f"{message}\n\n{lines}\n", result)

    if dry_run:
        return _planned(vault, today, root)[0]
    written = locked_write(vault, plan)
    return VerifyResult(**{**written.value.__dict__, "commit": written.commit})


def _planned(vault: Vault, today: dt.date, root: Path) -> tuple[VerifyResult, list[Change]]:
    snapshot = read_vault(vault)
    facts = Project(root)
    live = list(snapshot.live)
    checks = check_cards(live, vault, facts)
    changes = stale_changes(checks, {c.path: c for c in live}, today)
    by_path = {c.path: c for c in checks}
    touched = [by_path[c.path] for c in changes if isinstance(c, WriteFile)]
    marked = tuple(c.slug for c in touched if c.reasons)
    cleared = tuple(c.slug for c in touched if not c.reasons)
    problems = (*snapshot.problems, *facts.problems)
    return VerifyResult(root, tuple(checks), marked, cleared, problems), changes
