"""The app's commands on a vault's files as a whole: `init`, `capture`, `rename`, `check`,
`sync`, `import`, `export` (`forget` is app/forgetting.py). Each method is the whole command
(the vault resolved, the policy applied, the write made); the front ends only ask the user and
render its result."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from cardvault.app.writes import WriteCommands, init_vault
from cardvault.errors import CardvaultError

if TYPE_CHECKING:
    from cardvault.capture.record import KnownFix, Recorded
    from cardvault.capture.run import Failure, RunResult
    from cardvault.check.fixes import Fix
    from cardvault.edits.door import Door
    from cardvault.edits.proposal import OnWait
    from cardvault.history import CommitResult
    from cardvault.portable.folder import FolderPlan
    from cardvault.portable.format import Export
    from cardvault.portable.importer import ImportPlan, ImportResult
    from cardvault.scopes.registry import Registered
    from cardvault.search.engine import Progress
    from cardvault.sync.run import SyncResult
    from cardvault.vault.finding import Finding
    from cardvault.vault.layout import Vault
    from cardvault.write.init import InitResult
    from cardvault.write.rename import RenameResult


@dataclass(frozen=True)
class Initialized:
    """What `Session.init` did: the new vault; MEMORY.md's size and budget when the one the
    folder had is over the budget `check` holds it to; the registration with the global vault
    (None: already registered) or why it failed."""

    made: InitResult
    oversized: tuple[int, int] | None = None
    registered: Registered | None = None
    unregistered: str | None = None


@dataclass(frozen=True)
class Captured:
    """What `Session.capture` did: the run; when it failed, its description, the fixes the vault
    knows and where it was logged (None: not logged); warnings for what could not be done (a
    capture never changes how the command ended); the signals the command ran with ignored."""

    run: RunResult
    failure: Failure | None = None
    fixes: tuple[KnownFix, ...] = ()
    recorded: Recorded | None = None
    warnings: tuple[str, ...] = ()
    ignored: str = ""


@dataclass(frozen=True)
class Checked:
    """What `Session.check` found, and with `fix` the repairs made and their commit."""

    findings: tuple[Finding, ...]
    fixed: tuple[Fix, ...] = ()
    commit: CommitResult | None = None
    notes: tuple[str, ...] = ()

    def count(self, severity: str) -> int:
        return sum(1 for finding in self.findings if finding.severity == severity)


@dataclass(frozen=True)
class ImportedNotes:
    """What `Session.import_notes` planned and, unless a dry run, wrote."""

    folder: FolderPlan
    commit: CommitResult | None = None
    notes: tuple[str, ...] = ()
    dry_run: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON form: everything the plan holds, each card with its outcome."""
        from cardvault.vault.fields import CATEGORY, CREATED, TAGS, TOPIC, UPDATED

        folder = self.folder
        outcomes = {o.index: o for o in folder.plan.outcomes}
        cards = []
        for index, card in enumerate(folder.cards, start=1):
            outcome = outcomes.get(index)
            cards.append(
                {
                    "note": card.note, "card": card.rel, "slug": card.slug, TOPIC: card.topic,
                    CATEGORY: card.category, "category_from": card.category_from,
                    TAGS: list(card.tags), CREATED: card.dates.created.isoformat(),
                    UPDATED: card.dates.updated.isoformat(), "dates_from": card.dates.source,
                    "outcome": outcome.kind if outcome else "not imported",
                    "detail": outcome.detail if outcome else "",
                }
            )  # fmt: skip
        return {
            "source": str(folder.source),
            "kind": folder.kind,
            "notes": folder.notes,
            "counts": folder.plan.counts(),
            "link_counts": folder.link_counts(),
            "cards": cards,
            "links": [vars(link) for link in folder.links],
            "skipped": [vars(skip) for skip in folder.skipped],
            "problems": [str(p) for p in folder.plan.problems],
            "dry_run": self.dry_run,
            "commit": self.commit.sha if self.commit else None,
        }


class VaultCommands(WriteCommands):
    """Commands on a vault's files as a whole."""

    def init(self, path: Path) -> Initialized:
        """`cardvault init`: make a vault at `path` (no vault is needed to call it), then
        register it with the global vault (a failure is said, never a failed init)."""
        made = init_vault(path)
        done = Initialized(made, _oversized(made.vault) if "MEMORY.md" in made.kept else None)
        return replace(done, **self.with_options(made.vault.root).registration())

    def capture(
        self, argv: Sequence[str], echo: BinaryIO | None = None, on_wait: OnWait | None = None
    ) -> Captured:
        """`cardvault capture -- CMD`: run `argv` (its stderr echoed to `echo`); when it fails,
        log the failure and look up the fixes the vault knows. Trouble with the vault becomes a
        warning: the caller exits with the command's own code."""
        from cardvault.capture.record import ignored_note
        from cardvault.capture.run import run_command

        run = run_command(argv, echo)
        if not run.failed:
            return Captured(run)
        return replace(self._captured(run, on_wait), ignored=ignored_note(run.ignored))

    def _captured(self, run: RunResult, on_wait: OnWait | None) -> Captured:
        from cardvault.capture.record import known_fixes, record_failure
        from cardvault.capture.run import describe_failure
        from cardvault.edits.door import Door

        try:
            failure = describe_failure(run)
            vault = self.project()
        except Exception as exc:  # capturing must never change how the command ended
            return Captured(run, warnings=(f"failure not captured: {exc}",))
        warnings = list(vault.notices)
        fixes: list[KnownFix] = []
        try:
            fixes = known_fixes(vault, failure)
        except Exception as exc:
            warnings.append(f"could not look up known fixes: {exc}")
        recorded = None
        try:
            recorded = Door(vault, on_wait).land(record_failure(vault, failure, self.now()))
        except Exception as exc:
            where = f"{failure.category}, signature {failure.signature}"
            warnings.append(f"failure not logged ({where}): {exc}")
        return Captured(run, failure, tuple(fixes), recorded, tuple(warnings))

    def rename(self, slug: str, new: str, on_wait: OnWait | None = None) -> RenameResult:
        """`cardvault rename SLUG NEW`: rename a card and every link to it, in one commit."""
        from cardvault.write.rename import rename_card

        return self.landed(lambda vault: rename_card(vault, slug, new), on_wait=on_wait)

    def check(self, fix: bool = False, on_wait: OnWait | None = None) -> Checked:
        """`cardvault check`: every finding, after the repairs `fix` makes (one commit)."""
        from cardvault.check.run import run_checks

        vault = self.project()
        done = Checked(())
        if fix:
            from cardvault.check.fixes import plan_fixes
            from cardvault.edits.door import Door
            from cardvault.edits.proposal import door_notes

            written = Door(vault, on_wait).commit(lambda: plan_fixes(vault))
            done = Checked((), tuple(written.value), written.commit, tuple(door_notes(written)))
        return replace(done, findings=tuple(run_checks(vault)))

    def sync(self, remote: str | None = None, on_wait: OnWait | None = None) -> SyncResult:
        """`cardvault sync`: commit, fetch, merge with cardvault's drivers, push; its steps
        landed one by one through the door (sync/run.py: the steps, the merge computed)."""
        from cardvault import history
        from cardvault.edits.door import Door, refuse_unfinished_git
        from cardvault.edits.lock import SYNC_LOCK, vault_lock
        from cardvault.history import remote as git_remote
        from cardvault.sync.run import index_notes

        vault = self.project()
        top = history.work_tree_of(vault.root)
        if top is None:
            raise CardvaultError(
                "the vault is not in a git repository: nothing to sync", vault.root
            )
        refuse_unfinished_git(vault)
        local = git_remote.current_branch(top)
        name = remote or git_remote.default_remote(top, local)
        git_remote.check_remote(top, name)
        branch = git_remote.followed_branch(top, local, name) or local
        with vault_lock(vault, on_wait=on_wait, name=SYNC_LOCK):  # one sync of a clone at a time
            # an interrupted write finished (and said so), hand edits committed in bounded steps
            door = Door(vault, on_wait)
            entered = door.commit_hand_edits()
            result = _exchange(door, top, name, (local, branch), self.now().date())
        return replace(
            result, pending=entered.pending, notes=[*result.notes, *index_notes(vault, result)]
        )

    def import_export(
        self,
        file: Path,
        dry_run: bool = False,
        partial: bool = False,
        redact: bool = False,
        on_wait: OnWait | None = None,
    ) -> ImportResult:
        """`cardvault import FILE`: merge an export into the project vault in one commit
        (refused, nothing written, when an item has problems, unless `partial`)."""
        from cardvault.edits.door import Door
        from cardvault.portable.format import load_export, read_export
        from cardvault.portable.importer import ImportResult, apply_import, plan_import

        vault = self.project()
        export_file = read_export(load_export(file), vault)
        if export_file.problems and not partial:
            _refuse(file, export_file.problems, len(export_file.cards))
        today = self.now().date()

        def planned() -> ImportPlan:
            return plan_import(vault, export_file, today, redact=redact)

        plan = planned()
        if plan.problems and not partial:
            _refuse(file, plan.problems, len(plan.outcomes))
        if dry_run:
            return ImportResult(plan, None)
        return Door(vault, on_wait).land(apply_import(vault, plan, file.name, replan=planned))

    def import_notes(
        self,
        source: Path,
        dry_run: bool = False,
        partial: bool = False,
        redact: bool = False,
        category: str | None = None,
        progress: Progress | None = None,
        on_wait: OnWait | None = None,
    ) -> ImportedNotes:
        """`cardvault import FOLDER`: the folder's notes as cards in one commit (planned again
        if a file changed meanwhile; refused when a note has problems, unless `partial`)."""
        from cardvault.edits.door import Door
        from cardvault.portable.folder import plan_folder
        from cardvault.portable.importer import apply_import

        vault = self.project()
        today = self.now().date()

        def planned(progress: Progress | None = None) -> FolderPlan:
            return plan_folder(vault, source, today, category, redact, progress)

        latest = [planned(progress)]
        problems = latest[0].plan.problems
        if not latest[0].notes and not problems:
            raise CardvaultError("no Markdown notes (*.md) in this folder", source)
        if problems and not partial and not dry_run:
            _refuse(source, problems, len(latest[0].plan.outcomes))
        if dry_run:
            return ImportedNotes(latest[0], dry_run=True)

        def replan() -> ImportPlan:
            latest[0] = planned()
            return latest[0].plan

        landing = apply_import(vault, latest[0].plan, latest[0].source.name, replan)
        done = Door(vault, on_wait).land(landing)
        return ImportedNotes(latest[0], done.commit, done.notes)

    def export(self, target: Path | None = None, logs: bool = False, force: bool = False) -> Export:
        """`cardvault export`: the vault's cards, AGENTS.md rules and, with `logs`, daily logs
        as portable JSON, written to `target` (outside the vault; an existing file only with
        `force`), or only returned when `target` is None."""
        from cardvault.edits.atomic import atomic_write
        from cardvault.portable.format import export_data, export_target
        from cardvault.vault.files import ABSENT, current_digest

        vault = self.project()
        expected = ABSENT
        if target is not None:
            export_target(vault, target)  # refused before anything is read
            expected = current_digest(target)
            if expected != ABSENT and not force:
                raise CardvaultError("exists; pass --force to overwrite it", target)
        export = export_data(vault, self.now(), logs=logs)
        if target is not None:
            atomic_write(target, export.text, expected)
        return export


def _oversized(vault: Vault) -> tuple[int, int] | None:
    """The size and budget of the MEMORY.md a folder had, when it is over the budget."""
    try:
        size = vault.memory_md.lstat().st_size
    except OSError:
        return None
    budget = vault.config.memory_byte_budget
    return (size, budget) if size > budget else None


def _refuse(file: Path, problems: Sequence[object], usable: int) -> None:
    """Stop an import with every problem of `file` listed (CardvaultError)."""
    listing = "\n".join(f"  - {p}" for p in problems)
    hint = (
        f"--partial imports the {usable} valid card(s)" if usable else "nothing in it is importable"
    )
    raise CardvaultError(f"cannot import {file}:\n{listing}\n({hint})")


def _exchange(
    door: Door, top: Path, remote: str, branches: tuple[str, str], today: dt.date
) -> SyncResult:
    """Fetch, merge and push until the push goes through (or a conflict). The network waits
    (fetch, push) and the merge's computation hold no lock; landing the merge, and removing
    again what it brought back of forgotten entries (forget/tombstone.py), do. `branches`:
    ours, and the remote's it follows (its upstream's name, else the same)."""
    from cardvault import history
    from cardvault.forget.tombstone import still_forgotten
    from cardvault.history import remote as git_remote
    from cardvault.sync import run
    from cardvault.sync.run import SyncResult

    (local, branch), vault = branches, door.vault
    outcomes: list[str] = []
    notes: list[str] = []
    forgotten = None
    for attempt in range(1, run.ATTEMPTS + 1):
        before = git_remote.remote_head(top, remote, branch)
        exists = git_remote.fetch(top, remote, branch)
        followed = not exists and git_remote.followed_branch(top, local, remote) == branch
        if followed and git_remote.gone(top, remote, branch):
            raise CardvaultError(
                f"{remote} has no branch '{branch}' any more, which '{local}' follows (deleted "
                f"or renamed there?): nothing pushed; follow the team's branch "
                f"(`git branch -u {remote}/NAME`) or unset it (`git branch --unset-upstream`) "
                "to publish this one, then sync again",
                top,
            )
        target, prepared, dropped = f"{remote}/{branch}", None, None
        if exists:
            dropped = git_remote.dropped_tip(top, remote, branch, before)
            if dropped is not None:
                notes.append(run.REWRITTEN.format(remote=remote, branch=branch))
            prepared = run.prepare(vault, top, target, today, dropped)  # the long part, unlocked
        with door.holding() as entered:
            if prepared is not None:
                assert entered.recovery is not None
                if not run.still_current(vault, prepared, entered.recovery.finished):
                    prepared = run.prepare(vault, top, target, today, dropped)
                if prepared.conflicts:
                    return SyncResult(
                        remote, branch, "conflict", False, attempt,
                        conflicts=prepared.conflicts,
                    )  # fmt: skip
                if prepared.merge.new is not None:
                    door.merge(prepared.changes, prepared.merge)
                outcomes.append(prepared.merge.how)
            else:
                outcomes.append("new branch")
            forgotten = door.write(still_forgotten(vault, today)).commit or forgotten
            published = history.head(vault)
            foreign = run.not_ours(vault, git_remote.unpublished(top, remote, branch))
        if foreign:
            return SyncResult(
                remote, branch, run.how(outcomes), False, attempt, refused=run.refusal(foreign),
                forgotten=forgotten, notes=notes,
            )  # fmt: skip
        if git_remote.push(top, remote, branch, published or "HEAD", local):
            return SyncResult(
                remote, branch, run.how(outcomes), True, attempt, forgotten=forgotten,
                notes=notes,
            )  # fmt: skip
    raise CardvaultError(
        f"the push to {remote} was rejected {run.ATTEMPTS} times (others keep pushing); try again",
        top,
    )
