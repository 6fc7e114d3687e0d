"""The app's maintenance commands: `maintain`, `maintain --global`, and the steps a person runs
on one card (`promote`, `demote`, `archive`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from cardvault.app.review import ReviewCommands
from cardvault.app.writes import WriteCommands

if TYPE_CHECKING:
    from cardvault.edits.apply import AfterWrite
    from cardvault.edits.proposal import OnWait
    from cardvault.maintain.by_hand import HandResult
    from cardvault.maintain.crossproject import GlobalResult
    from cardvault.maintain.run import Before, RunOptions, RunResult
    from cardvault.review.judge import JudgeOutcome
    from cardvault.scopes.registry import Registered
    from cardvault.search.engine import Progress
    from cardvault.trust.settings import Ignored
    from cardvault.vault.layout import Vault

JUDGE_KEY = "maintain.judge"


@dataclass(frozen=True)
class Maintained:
    """What `Session.maintain` did: the run; the project's registration with the global vault (or
    why it failed); the judge's answers; the judge the vault sets but this machine has not
    approved (`ignored`, when it had questions to answer)."""

    run: RunResult
    dry_run: bool = False
    registered: Registered | None = None
    unregistered: str | None = None
    judged: JudgeOutcome | None = None
    ignored: tuple[Ignored, ...] = ()

    @property
    def set_aside(self) -> list[str]:
        """What to say of the judge set aside until approved."""
        return [item.note() for item in self.ignored]

    @property
    def pending(self) -> int:
        """Memory decisions left in the review queue once the run and the judge are done."""
        return self.judged.pending if self.judged is not None else self.run.review_pending

    def to_json(self) -> dict[str, Any]:
        """The outcome as plain data (what `maintain --json` prints)."""
        from cardvault.edits.changes import touched_paths

        result, plan = self.run, self.run.plan
        vault = plan.before.vault
        data: dict[str, Any] = {
            "dry_run": self.dry_run,
            "counts": plan.counts(),
            "changes": [
                {
                    "step": c.step,
                    "kind": type(c).__name__,
                    "paths": [vault.rel(p) for p in touched_paths(c)],
                    "reason": c.reason,
                }
                for c in plan.file_changes
            ],
            "conflicts": [_report_json(vault, r) for r in plan.reports if r.kind == "conflict"],
            "flags": [_report_json(vault, r) for r in plan.reports if r.kind != "conflict"],
            "problems": list(plan.before.problems),
            "notices": list(result.notices),
            "review_pending": self.pending,
            "asked": result.asked,
            "commit": result.commit.sha if result.commit else None,
            "branch": result.branch,
            "pending_commit": result.pending.sha if result.pending else None,
            "ids_commit": result.ids.sha if result.ids else None,
            "timings": {k: round(v, 3) for k, v in result.timings.items()},
        }
        if self.dry_run:
            data["diff"] = plan.diff()
            data["message"] = plan.commit_message() if not plan.empty else None
        if self.judged is not None:
            done = self.judged.result
            data["judge"] = {
                "settled": [item.to_json() for item in self.judged.settled],
                "messages": list(self.judged.messages),
                "commit": done.commit.sha if done and done.commit else None,
            }
        if self.ignored:
            data["ignored"] = [item.to_json() for item in self.ignored]
        return data


@dataclass(frozen=True)
class MaintainedGlobal:
    """What `Session.maintain_global` did, and the project's registration."""

    result: GlobalResult
    registered: Registered | None = None
    unregistered: str | None = None


def _report_json(vault: Any, report: Any) -> dict[str, Any]:
    return {
        "kind": report.kind,
        "step": report.step,
        "message": report.message,
        "paths": [vault.rel(p) for p in report.paths],
        "texts": list(report.texts),
    }


def run_maintenance(
    vault: Vault,
    options: RunOptions,
    progress: Progress | None = None,
    embedder: Any = None,
    after_write: AfterWrite | None = None,
    on_wait: OnWait | None = None,
    before: Sequence[Before] = (),
) -> RunResult:
    """One maintenance run landed (maintain/run.py): the door taken once, and under its lock
    the steps that precede the plan, then the plan, each landed."""
    from cardvault.edits.door import Door
    from cardvault.maintain.run import Run

    run = Run(vault, options, progress, embedder, before)
    if options.dry_run:
        return run.dry()
    door = Door(vault, on_wait)
    with run.folding():
        written = door.commit(
            lambda: run.plan(door.write),
            branch=run.branch,
            after_write=after_write,
            commit_pending=options.commit_pending,
        )
        result = run.landed(written)
    return run.refreshed(result)


class MaintainCommands(WriteCommands, ReviewCommands):
    """The maintenance pass (it registers the project and lets the judge answer, through the
    other commands of the session it is part of), and the by-hand steps on one card."""

    def maintain(
        self,
        dry_run: bool = False,
        review: bool = False,
        only: Sequence[str] | None = None,
        since: dt.date | None = None,
        commit_pending: bool = False,
        progress: Progress | None = None,
        on_wait: OnWait | None = None,
    ) -> Maintained:
        """`cardvault maintain`: the maintenance pass over the project vault, one unit of work
        (maintain/run.py). `only` names steps; `since` limits distilling to entries from that day
        on; `review` commits on a new branch; `commit_pending` commits hand edits first. Unless a
        dry run, the project then registers with the global vault (a failure is said, never a failed
        run), and unless a dry run or `review`, the vault's judge answers the questions pending."""
        from cardvault.forget.tombstone import before_maintenance
        from cardvault.maintain.run import RunOptions

        vault = self.project()
        options = RunOptions(
            self.now(), tuple(only) if only else None, since, dry_run, review, commit_pending
        )
        before = (before_maintenance,)  # nothing is distilled from a forgotten entry
        run = run_maintenance(vault, options, progress, on_wait=on_wait, before=before)
        done = Maintained(run, dry_run)
        if not dry_run:
            done = replace(done, **self.registration())
        if run.review_pending and not vault.config.judge:
            judge = tuple(item for item in vault.ignored if item.setting.key == JUDGE_KEY)
            done = replace(done, ignored=judge)
        if not (dry_run or review) and vault.config.judge and run.review_pending:
            done = replace(done, judged=self.review_judge())
        return done

    def maintain_global(self, dry_run: bool = False) -> MaintainedGlobal:
        """`cardvault maintain --global`: cross-project promotion in the global vault; run
        inside a project, the project registers with the global vault first."""
        from cardvault.edits.door import Door
        from cardvault.maintain.crossproject import GlobalResult, run_global

        joined = self.registration()
        vault = self.vault_for(to_global=True)
        done = run_global(vault, self.now(), dry_run)
        result = done if isinstance(done, GlobalResult) else Door(vault).land(done)
        return MaintainedGlobal(result, **joined)

    def promote(self, slug: str, rule: str | None = None) -> HandResult:
        """`cardvault promote`: the card's rule (`rule`, else its own) into AGENTS.md."""
        from cardvault.maintain.by_hand import promote_card

        return self.landed(lambda vault: promote_card(vault, slug, self.now().date(), rule))

    def demote(self, slug: str) -> HandResult:
        """`cardvault demote`: take the card's rule back out of AGENTS.md; one commit."""
        from cardvault.maintain.by_hand import demote_card

        return self.landed(lambda vault: demote_card(vault, slug, self.now().date()))

    def archive(self, slug: str) -> HandResult:
        """`cardvault archive`: move the card to memory/archive/ now; one commit."""
        from cardvault.maintain.by_hand import archive_card

        return self.landed(lambda vault: archive_card(vault, slug, self.now().date()))
