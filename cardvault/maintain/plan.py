"""A maintenance plan: the steps run in order over an in-memory state, nothing written.

Every step is `step(state, cfg) -> list[Change]` and sees the state the earlier steps' changes
leave (`VaultState.after`), so a card distilled to `seen: 3` is promoted in the same run. Merge
runs once (no chains through a card merged this run). The plan knows what each step did, its
commit message and the unified diff it would make.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cardvault.edits.apply import compose
from cardvault.edits.changes import (
    Change,
    FileChange,
    Report,
    file_changes,
    reason_lines,
    reports,
)
from cardvault.maintain import archive, distill, memory_index, merge, promote, reverts, stale, uses
from cardvault.maintain.asking import queue_changes
from cardvault.maintain.state import VaultState
from cardvault.vault.config import VaultConfig
from cardvault.vault.files import ABSENT
from cardvault.vault.progress import Progress

Step = Callable[[VaultState, VaultConfig], list[Change]]
#: The steps in order, each with how its count reads in the commit subject.
STEPS: dict[str, tuple[Step, str]] = {
    "distill": (distill.step, "distilled"),
    "merge": (merge.step, "merged"),
    # before promote: a card the project no longer bears out is no rule
    "verify": (stale.step, "found stale"),
    "promote": (promote.step, "promoted"),
    "uses": (uses.step, "counted uses"),
    "archive": (archive.step, "archived"),
    "index": (memory_index.step, "reindexed"),
}
ORDER = tuple(STEPS)
#: Not steps of their own: reverted maintenance read as answers (before the steps), and pending
#: questions whose members moved closed with the reason (after them).
CLOSING = "questions"
VERBS = {name: verb for name, (_, verb) in STEPS.items()}
VERBS |= {reverts.STEP: "recorded reverts", CLOSING: "closed questions"}
_NO_NEWLINE = "\\ No newline at end of file\n"


@dataclass(frozen=True)
class StepOutcome:
    """What one step planned."""

    name: str
    changes: tuple[Change, ...]
    seconds: float = 0.0  # wall time of the step
    model_seconds: float = 0.0  # of which spent in the model or syncing the search index

    @property
    def count(self) -> int:
        """Actions this step took (entries distilled, cards merged away, promoted, archived)."""
        return sum(c.tally for c in file_changes(list(self.changes)))


@dataclass(frozen=True)
class Plan:
    """The steps' outcomes and the states before and after them."""

    before: VaultState
    after: VaultState
    steps: tuple[StepOutcome, ...]

    @property
    def changes(self) -> list[Change]:
        return [c for outcome in self.steps for c in outcome.changes]

    @property
    def file_changes(self) -> list[FileChange]:
        return file_changes(self.changes)

    @property
    def reports(self) -> list[Report]:
        return reports(self.changes)

    @property
    def empty(self) -> bool:
        """True when no file would change."""
        return not compose(self.changes)

    def counts(self) -> dict[str, int]:
        """Actions per step."""
        return {outcome.name: outcome.count for outcome in self.steps}

    def commit_message(self) -> str:
        """Subject with the counts, body with every change, one per line."""
        parts = [f"{VERBS[name]} {count}" for name, count in self.counts().items() if count]
        subject = "maintain: " + (", ".join(parts) if parts else "updated")
        return subject + "\n\n" + "\n".join(reason_lines(self.changes)) + "\n"

    def diff(self) -> str:
        """The unified diff of every file the plan would write, move or remove."""
        vault = self.before.vault
        texts = {c.path: c.file.text for c in self.before.cards}
        for file in (self.before.memory, self.before.agents, self.before.queue):
            if file is not None:
                texts[file.path] = file.text
        chunks = []
        for op in compose(self.changes):
            old = texts.get(op.path, "") if op.expected != ABSENT else ""
            new = op.text or ""
            name = vault.rel(op.path)
            before = f"a/{name}" if op.expected != ABSENT else "/dev/null"
            after = f"b/{name}" if op.text is not None else "/dev/null"
            lines = difflib.unified_diff(
                old.splitlines(keepends=True), new.splitlines(keepends=True), before, after
            )
            chunks += [line if line.endswith("\n") else f"{line}\n{_NO_NEWLINE}" for line in lines]
        return "".join(chunks)


def make_plan(
    state: VaultState,
    cfg: VaultConfig,
    only: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> Plan:
    """Run the selected steps (all, in ORDER, by default) over `state`."""
    selected = [name for name in ORDER if only is None or name in only]
    answers = reverts.step(state)  # reverted maintenance, read as answers, before any step
    outcomes = [StepOutcome(reverts.STEP, tuple(answers))] if answers else []
    current = state.after(answers)
    for number, name in enumerate(selected, start=1):
        if progress is not None:
            progress(f"step: {name}", number - 1, len(selected))
        start, model_start = time.perf_counter(), _model_time(current)
        changes = STEPS[name][0](current, cfg)
        spent = time.perf_counter() - start
        outcomes.append(
            StepOutcome(name, tuple(changes), spent, _model_time(current) - model_start)
        )
        current = current.after(changes)
    closing = queue_changes(current, [], CLOSING)  # questions whose members moved meanwhile
    if closing:
        outcomes.append(StepOutcome(CLOSING, tuple(closing)))
        current = current.after(closing)
    if progress is not None:
        progress("planned", len(selected), len(selected))
    return Plan(state, current, tuple(outcomes))


def _model_time(state: VaultState) -> float:
    found = state.embeddings
    return 0.0 if found is None else found.embed_seconds + found.index_seconds
