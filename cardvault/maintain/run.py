"""One maintenance run as a service: lock, safety checks, plan, then dry-run, review or apply.

- The vault's lock is held for the whole run; a second run fails at once with LockedError.
- Uncommitted changes in the vault stop a run (DirtyVaultError) unless `commit_pending`, which
  first commits them as their own "hand edits" commit, so the maintenance commit holds
  maintenance alone. A dry run reads the work tree as it is and writes nothing.
- A plan with no file change makes no commit. Otherwise the applier writes everything
  atomically and one git commit records it; if the writes or the commit fail, every file is
  restored. `review` writes no file: it commits the same tree on a new branch.
Never prints: progress goes to the callback, the outcome comes back as a RunResult.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardvault import history
from cardvault.edits.apply import AfterWrite, apply_changes, check_unchanged, final_texts
from cardvault.edits.lock import vault_lock
from cardvault.errors import CardvaultError, DirtyVaultError
from cardvault.maintain.plan import ORDER, Plan, Progress, make_plan
from cardvault.maintain.similarity import Embeddings
from cardvault.maintain.state import load_state
from cardvault.search.model import ModelUnavailableError
from cardvault.vault.layout import Vault

NEEDS_MODEL = ("distill", "merge")
BRANCH_PREFIX = "cardvault/maintain-"


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
    embedded: int = 0
    dirty: tuple[str, ...] = ()
    notices: tuple[str, ...] = ()  # repairs of derived data (a damaged search index)

    @property
    def changed(self) -> bool:
        """Whether the run wrote files or a branch."""
        return bool(self.written) or self.branch is not None


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


def run_maintenance(
    vault: Vault,
    options: RunOptions,
    progress: Progress | None = None,
    embedder: Any = None,
    after_write: AfterWrite | None = None,
) -> RunResult:
    """Plan and carry out one maintenance run (see the module docstring)."""
    only = check_steps(options.only)
    with vault_lock(vault):
        dirty = tuple(history.uncommitted(vault))
        pending = _settle_pending(vault, options, dirty)
        timings: dict[str, float] = {}
        start = time.perf_counter()
        needs_model = any(name in NEEDS_MODEL for name in (only or ORDER))
        embeddings = Embeddings(vault, embedder, progress) if needs_model else None
        state = load_state(vault, options.now.date(), embeddings, options.since)
        timings["read"] = time.perf_counter() - start
        try:
            plan = make_plan(state, vault.config, only, progress)
        except ModelUnavailableError as exc:
            raise CardvaultError(
                f"{exc.message}; the steps that need no model still run with "
                "--only promote,archive,index",
                exc.path,
            ) from exc
        for outcome in plan.steps:
            timings[outcome.name] = outcome.seconds
            if outcome.model_seconds:
                timings[f"{outcome.name}: model"] = outcome.model_seconds
        if embeddings is not None:
            timings["index sync"] = embeddings.index_seconds
            timings["embedding"] = embeddings.embed_seconds
        computed = embeddings.computed if embeddings else 0
        notices = tuple(dict.fromkeys(embeddings.notices)) if embeddings else ()
        result = RunResult(
            plan, pending=pending, timings=timings, embedded=computed, dirty=dirty, notices=notices
        )
        if options.dry_run or plan.empty:
            return result
        return _carry_out(vault, plan, options, result, after_write)


def _settle_pending(
    vault: Vault, options: RunOptions, dirty: tuple[str, ...]
) -> history.CommitResult | None:
    if not dirty or options.dry_run:
        return None
    if options.commit_pending:
        root = history.work_tree(vault) or vault.root
        return history.commit(vault, "hand edits", [root / path for path in dirty])
    shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
    raise DirtyVaultError(
        f"uncommitted changes in the vault ({shown}); commit them first, or run with "
        "--commit-pending to commit them as 'hand edits' before maintaining",
        vault.root,
    )


def _carry_out(
    vault: Vault, plan: Plan, options: RunOptions, result: RunResult, after_write: AfterWrite | None
) -> RunResult:
    from dataclasses import replace

    message = plan.commit_message()
    start = time.perf_counter()
    if options.review:
        if not history.is_repo(vault.root):
            raise CardvaultError("--review needs the vault to be a git repository", vault.root)
        check_unchanged(plan.changes)
        branch = f"{BRANCH_PREFIX}{options.now:%Y%m%d-%H%M%S}"
        commit = history.commit_to_branch(vault, branch, message, final_texts(plan.changes))
        timings = {**result.timings, "commit": time.perf_counter() - start}
        return replace(result, commit=commit, branch=branch, timings=timings)
    commits: list[history.CommitResult] = []

    def record(paths: list[Path]) -> None:
        commits.append(history.commit(vault, message, paths))

    written = apply_changes(vault, plan.changes, after_write, finish=record)
    timings = {**result.timings, "write + commit": time.perf_counter() - start}
    embeddings = plan.before.embeddings
    if embeddings is not None and not embeddings.pending_preload:
        import contextlib
        import sqlite3

        start = time.perf_counter()
        # a cache: if this fails, the next search brings it up to date itself
        with contextlib.suppress(CardvaultError, OSError, sqlite3.Error):
            embeddings.refresh_index()
        timings["index refresh"] = time.perf_counter() - start
    return replace(result, written=tuple(written), commit=commits[0], timings=timings)
