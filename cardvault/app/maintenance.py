"""The app's maintenance commands: `maintain` and `maintain --global`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from cardvault.app.review import ReviewCommands
from cardvault.app.writes import WriteCommands

if TYPE_CHECKING:
    from cardvault.edits.door import OnWait
    from cardvault.maintain.crossproject import GlobalResult
    from cardvault.maintain.run import RunOptions, RunResult
    from cardvault.review.judge import JudgeOutcome
    from cardvault.scopes.registry import Registered
    from cardvault.search.engine import Progress


@dataclass(frozen=True)
class Maintained:
    """What `Session.maintain` did: the run; the project's registration with the global vault
    (None: already registered, a dry run, or inside the global vault) or why it failed; the
    judge's answers to the pending questions (None: no judge, or nothing for it to answer)."""

    run: RunResult
    registered: Registered | None = None
    unregistered: str | None = None
    judged: JudgeOutcome | None = None


class MaintainCommands(WriteCommands, ReviewCommands):
    """The maintenance pass (it registers the project and lets the judge answer, through the
    other commands of the session it is part of)."""

    def maintain(
        self,
        options: RunOptions,
        progress: Progress | None = None,
        on_wait: OnWait | None = None,
    ) -> Maintained:
        """`cardvault maintain`: the maintenance pass over the project vault, one unit of work
        (maintain/run.py: one lock, one read, the steps that precede the plan under it); then,
        unless it was a dry run, the project registers with the global vault (a failure is
        said, never a failed run), and unless it was a dry run or `--review`, the vault's judge
        (`[maintain] judge`) answers the questions pending."""
        from cardvault.errors import CardvaultError
        from cardvault.forget.tombstone import before_maintenance
        from cardvault.maintain.run import run_maintenance

        vault = self.project()
        before = (before_maintenance,)  # nothing is distilled from a forgotten entry
        run = run_maintenance(vault, options, progress, on_wait=on_wait, before=before)
        done = Maintained(run)
        if not options.dry_run:
            try:
                done = replace(done, registered=self.register())
            except (CardvaultError, OSError) as exc:
                done = replace(done, unregistered=str(exc))
        if not (options.dry_run or options.review) and vault.config.judge and run.review_pending:
            done = replace(done, judged=self.review_judge())
        return done

    def maintain_global(self, dry_run: bool = False) -> GlobalResult:
        """`cardvault maintain --global`: cross-project promotion in the global vault."""
        from cardvault.maintain.crossproject import run_global

        return run_global(self.vault_for(to_global=True), self.now(), dry_run)
