"""One maintenance run as one unit of work: one lock, one read, preconditions, plan, one commit.

The app lands a `Run` through the one door (edits/door.py): the lock is held from the one read
to the commit; a dry run never waits for the lock and writes nothing. Uncommitted edits of the
vault's files stop a run unless `commit_pending`. The caller's steps (forget/tombstone.py) and
the entry-id migration (entry_ids.py) land before the plan, each in its own commit (not on a dry
run or `--review`). A `--review` run commits on a new branch and leaves this clone's uses
unfolded (its commit may never land). The search index is refreshed after the lock is released.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cardvault import history
from cardvault.edits.changes import file_changes, reason_lines, reports, touched_paths
from cardvault.edits.proposal import Proposal, Written, propose
from cardvault.errors import CardvaultError, DirtyVaultError
from cardvault.maintain.calibration import threshold_notices
from cardvault.maintain.plan import ORDER, Plan, Progress, make_plan
from cardvault.maintain.similarity import Embeddings
from cardvault.maintain.state import load_state
from cardvault.search.model import ModelUnavailableError
from cardvault.vault.decisions import pending_items
from cardvault.vault.layout import Vault
from cardvault.vault.read import VaultSnapshot, read_vault
from cardvault.vault.uses import folding, mark_folded

NEEDS_MODEL = ("distill", "merge")
BRANCH_PREFIX = "cardvault/maintain-"
WATERMARK_FAILED = (
    "the uses just folded could not be marked as folded in .cardvault/uses.folded; "
    "make the cache folder writable, or the next run counts them again"
)


@dataclass(frozen=True)
class RunOptions:
    """How to run: the date that counts as today, which steps, and what to do with the plan."""

    now: dt.datetime
    only: tuple[str, ...] | None = None
    since: dt.date | None = None
    dry_run: bool = False
    review: bool = False
    commit_pending: bool = False


@dataclass(frozen=True)
class RunResult:
    """What a run planned and did."""

    plan: Plan
    written: tuple[Path, ...] = ()
    commit: history.CommitResult | None = None
    branch: str | None = None
    pending: history.CommitResult | None = None
    timings: dict[str, float] = field(default_factory=dict)
    notices: tuple[str, ...] = ()  # repairs of derived data (a damaged search index)
    ids: history.CommitResult | None = None  # log entries given ids first (entry_ids.py)

    @property
    def changed(self) -> bool:
        """Whether the run wrote files or a branch."""
        return bool(self.written) or self.branch is not None

    @property
    def review_pending(self) -> int:
        """Memory decisions waiting in the review queue once the plan is carried out."""
        return len(pending_items(self.plan.after.review_items))

    @property
    def reasons(self) -> list[str]:
        """Every action line of the plan's file changes, in order."""
        return reason_lines(self.plan.changes)

    def step_rows(self) -> list[tuple[str, int, int, str]]:
        """Each step: its name, its actions, the files it touches, the kinds it reported."""
        return [
            (
                step.name,
                step.count,
                len({p for c in file_changes(list(step.changes)) for p in touched_paths(c)}),
                ", ".join(sorted({r.kind for r in reports(list(step.changes))})),
            )
            for step in self.plan.steps
        ]

    @property
    def asked(self) -> list[str]:
        """Ids of the questions this run added to the review queue."""
        before = {item.id for item in self.plan.before.review_items}
        return [item.id for item in self.plan.after.review_items if item.id not in before]


def check_steps(only: Sequence[str] | None) -> tuple[str, ...] | None:
    """The selected step names, validated (None = all)."""
    if only is None:
        return None
    names = tuple(dict.fromkeys(n.strip() for part in only for n in part.split(",") if n.strip()))
    unknown = [n for n in names if n not in ORDER]
    if unknown or not names:
        raise CardvaultError(
            f"unknown step {', '.join(unknown) or '(none)'}; choose from {', '.join(ORDER)}"
        )
    return names


@dataclass
class Run:
    """One maintenance run for the app to land through the door: `plan` is called under the
    lock, `landed` makes the result, `dry` plans without the door."""

    vault: Vault
    options: RunOptions
    progress: Progress | None = None
    embedder: Any = None
    before: Sequence[Before] = ()

    def __post_init__(self) -> None:
        vault, options, progress = self.vault, self.options, self.progress
        self.only = check_steps(options.only)
        needs_model = any(name in NEEDS_MODEL for name in (self.only or ORDER))
        self.embeddings = Embeddings(vault, self.embedder, progress) if needs_model else None
        self.branch: str | None = None
        self.planned_at: list[float] = []
        self.said: list[str] = []  # what the steps before the plan did, each attempt's
        self.ids: history.CommitResult | None = None  # log entries given ids (entry_ids.py)
        if options.dry_run:
            return
        if self.embeddings is not None:  # the slow part, before the lock: writers need not wait
            # the index's vectors read now, so the plan embeds only what changed; a missing model
            # is the plan's to report, under the lock, with its advice
            with contextlib.suppress(ModelUnavailableError):
                self.embeddings.vectors([])
        if options.review:
            if not history.is_repo(vault.root):
                raise CardvaultError("--review needs the vault to be a git repository", vault.root)
            self.branch = f"{BRANCH_PREFIX}{options.now:%Y%m%d-%H%M%S}"
            self.only = tuple(name for name in (self.only or ORDER) if name != "uses")
        self.folds = self.branch is None and (self.only is None or "uses" in self.only)

    def dry(self) -> RunResult:
        """The run planned from the work tree as it is, without the lock."""
        return _planned(_read(self.vault), self.options, self.only, self.progress, self.embeddings)

    def folding(self) -> contextlib.AbstractContextManager[Any]:
        """The fold lock (vault/uses.py) to hold around the landing, when the run folds uses."""
        return folding(self.vault) if self.folds else contextlib.nullcontext()

    def plan(self, land: Land) -> Proposal[RunResult]:
        """Under the lock: with commit_pending the door has committed every hand edit already."""
        vault, options = self.vault, self.options
        dirty = () if options.commit_pending else tuple(history.uncommitted(vault))
        _refuse_pending(vault, dirty)
        read = _read(vault)
        if self.branch is None:  # a --review branch leaves this branch's files as they are
            read = self._prepare(land, read)
        result = _planned(read, options, self.only, self.progress, self.embeddings)
        message = "" if result.plan.empty else result.plan.commit_message()
        self.planned_at.append(time.perf_counter())
        # the status above was taken under the lock: hand edits stopped the run or were committed
        return propose(result.plan.changes, message, result, committed=True, read=read.snapshot)

    def _prepare(self, land: Land, read: Read) -> Read:
        """Land the steps that precede the plan, reading the vault again after each commit."""
        from cardvault.maintain.entry_ids import id_changes

        for step in self.before:
            proposal = step(read.snapshot, self.options.now.date())
            done = land(replace(proposal, committed=True)).commit
            if done is not None:
                self.said.append(f"{proposal.value}: commit {(done.sha or '')[:10]}")
                read = _read(self.vault)
        migration = id_changes(read.snapshot)
        if migration.changes:
            migrate = propose(migration.changes, migration.message, None, True, read.snapshot)
            done = land(migrate).commit
            self.ids = self.ids or done
            read = _read(self.vault)
        return read

    def landed(self, written: Written[RunResult]) -> RunResult:
        """The run's result of what landed (inside `folding`: the watermark moves here)."""
        result = replace(written.value, pending=written.pending)
        if self.folds and not mark_folded(self.vault, result.plan.before.uses):
            result = replace(result, notices=(*result.notices, WATERMARK_FAILED))
        result = replace(result, ids=self.ids, notices=(*self.said, *result.notices))
        if written.commit is None:
            return result
        label = "commit" if self.branch else "write + commit"
        timings = {**result.timings, label: time.perf_counter() - self.planned_at[-1]}
        return replace(result, written=written.paths, commit=written.commit,
                       branch=self.branch, timings=timings)  # fmt: skip

    def refreshed(self, result: RunResult) -> RunResult:
        """After the lock: the search index brought up to date (a cache: a failure here is
        caught up by the next search)."""
        import sqlite3

        embeddings = result.plan.before.embeddings
        if not result.commit or self.branch or embeddings is None or embeddings.pending_preload:
            return result
        start = time.perf_counter()
        with contextlib.suppress(CardvaultError, OSError, sqlite3.Error):
            embeddings.refresh_index()
        return replace(
            result, timings={**result.timings, "index refresh": time.perf_counter() - start}
        )


@dataclass(frozen=True)
class Read:
    snapshot: VaultSnapshot
    seconds: float


def _read(vault: Vault) -> Read:
    start = time.perf_counter()
    snapshot = read_vault(vault, verify=True)
    return Read(snapshot, time.perf_counter() - start)


def _planned(
    read: Read,
    options: RunOptions,
    only: tuple[str, ...] | None,
    progress: Progress | None,
    embeddings: Embeddings | None,
) -> RunResult:
    vault = read.snapshot.vault
    start = time.perf_counter()
    state = load_state(vault, options.now.date(), embeddings, options.since, read.snapshot)
    timings = {"read": read.seconds + time.perf_counter() - start}
    try:
        plan = make_plan(state, vault.config, only, progress)
    except ModelUnavailableError as exc:
        raise CardvaultError(
            f"{exc.message}; the steps that need no model still run with "
            "--only promote,uses,verify,archive,index",
            exc.path,
        ) from exc
    for outcome in plan.steps:
        timings[outcome.name] = outcome.seconds
        if outcome.model_seconds:
            timings[f"{outcome.name}: model"] = outcome.model_seconds
    if embeddings is not None:
        timings["index sync"] = embeddings.index_seconds
        timings["embedding"] = embeddings.embed_seconds
    notices = tuple(dict.fromkeys(embeddings.notices)) if embeddings else ()
    notices += tuple(threshold_notices(vault.config))
    return RunResult(plan, timings=timings, notices=notices)


def _refuse_pending(vault: Vault, dirty: tuple[str, ...]) -> None:
    if not dirty:
        return
    shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
    raise DirtyVaultError(
        f"uncommitted changes in the vault ({shown}); commit them first, or run with "
        "--commit-pending to commit them as 'hand edits' before maintaining",
        vault.root,
    )


#: A caller's step before the plan, planned from the run's snapshot under its lock and committed
#: on its own; the proposal's value is what a person hears of it.
Before = Callable[[VaultSnapshot, dt.date], Proposal[str]]


#: How the app lands a step before the plan, under the run's lock (the door's `write`).
Land = Callable[[Proposal[Any]], Written[Any]]
