"""The app's commands on a vault's files as a whole: `init`, `capture`, `rename`, `forget`,
`check`, `sync`, `import`, `export`. Each method is the whole command (the vault resolved, the
policy applied, the write made); the front ends only ask the user and render its result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from cardvault.app.writes import WriteCommands

if TYPE_CHECKING:
    from cardvault.capture.record import KnownFix, Recorded
    from cardvault.capture.run import Failure, RunResult
    from cardvault.check.fixes import Fix
    from cardvault.edits.door import OnWait
    from cardvault.forget.plan import ForgetPlan, ForgetResult
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


class ForgetScope(StrEnum):
    """Where `forget` removes a topic."""

    project = "project"
    global_ = "global"
    everywhere = "everywhere"


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
class ForgetPlans:
    """What `Session.forget_plan` found: the non-empty plan of each vault in scope, by name
    ("project", "global", a project's key); whether an interrupted forget of the query was
    finished first; warnings (projects not found, cards not searched); and, when no scope was
    given, whether the global vault holds the topic too (a front end may ask where)."""

    query: str
    plans: tuple[tuple[str, Vault, ForgetPlan], ...]
    resumed: bool = False
    warnings: tuple[str, ...] = ()
    global_too: bool = False

    @property
    def shown_query(self) -> str:
        """The query as messages name it (forget/plan.py `shown_query`)."""
        from cardvault.forget.plan import shown_query

        return shown_query(self.query)

    @property
    def widened(self) -> int:
        """Cards planned only because their text mentions the query."""
        return sum(len(plan.cards) for _, _, plan in self.plans if plan.matched_by == "body")


@dataclass(frozen=True)
class ImportedNotes:
    """What `Session.import_notes` planned and, unless a dry run, wrote."""

    folder: FolderPlan
    commit: CommitResult | None = None
    notes: tuple[str, ...] = ()


class VaultCommands(WriteCommands):
    """Commands on a vault's files as a whole."""

    def init(self, path: Path) -> Initialized:
        """`cardvault init`: make a vault at `path` (no vault is needed to call it), then
        register it with the global vault (a failure is said, never a failed init)."""
        from cardvault.write.init import init_vault

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
            recorded = record_failure(vault, failure, self.now(), on_wait=on_wait)
        except Exception as exc:
            where = f"{failure.category}, signature {failure.signature}"
            warnings.append(f"failure not logged ({where}): {exc}")
        return Captured(run, failure, tuple(fixes), recorded, tuple(warnings))

    def rename(self, slug: str, new: str, on_wait: OnWait | None = None) -> RenameResult:
        """`cardvault rename SLUG NEW`: rename a card and every link to it, in one commit."""
        from cardvault.write.rename import rename_card

        return rename_card(self.project(), slug, new, on_wait=on_wait)

    def check(self, fix: bool = False, on_wait: OnWait | None = None) -> Checked:
        """`cardvault check [--fix]`: with `fix`, repair the mechanical problems first (one
        commit); then every finding of the vault as it is."""
        from cardvault.check.run import run_checks

        vault = self.project()
        done = Checked(())
        if fix:
            from cardvault.check.repair import apply_fixes
            from cardvault.edits.door import door_notes

            written = apply_fixes(vault, on_wait=on_wait)
            done = Checked((), tuple(written.value), written.commit, tuple(door_notes(written)))
        return replace(done, findings=tuple(run_checks(vault)))

    def sync(self, remote: str | None = None, on_wait: OnWait | None = None) -> SyncResult:
        """`cardvault sync`: commit, fetch, merge with cardvault's drivers, push."""
        from cardvault.sync.run import sync_vault

        return sync_vault(self.project(), remote, self.now().date(), on_wait=on_wait)

    def forget_plan(
        self, query: str, scope: ForgetScope | str | None = None, on_wait: OnWait | None = None
    ) -> ForgetPlans:
        """`cardvault forget`, the plan (nothing removed): what forgetting `query` removes in
        each vault of `scope` (default: the project, or the global vault outside one), made
        after finishing an interrupted write of those vaults (a plan of half-written files
        would name what the finished write already took). Hand it to `forget`."""
        from cardvault.edits.door import finish_interrupted
        from cardvault.forget.plan import plan_forget, resumed_forget

        named, notices, global_too = self._forget_vaults(query, scope)
        warnings = [notice for _, vault in named for notice in vault.notices] + notices
        recoveries = [finish_interrupted(vault, on_wait) for _, vault in named]
        today = self.now().date()  # the record's name, as every write's date
        plans = [(name, vault, plan_forget(vault, query, today)) for name, vault in named]
        warnings += [
            f"not searched (unreadable): {p}" for _, _, plan in plans for p in plan.unreadable
        ]
        return ForgetPlans(
            query,
            tuple(found for found in plans if not found[2].empty),
            any(resumed_forget(recovery, query) for recovery in recoveries),
            tuple(warnings),
            global_too,
        )

    def _forget_vaults(
        self, query: str, scope: ForgetScope | str | None
    ) -> tuple[list[tuple[str, Vault]], list[str], bool]:
        """The vaults `scope` covers, by name; notices; whether the global vault holds the
        topic too when no scope was given."""
        from cardvault.errors import VaultNotFoundError
        from cardvault.forget.plan import plan_forget

        chosen = ForgetScope(scope) if scope is not None else None
        home = self.global_vault()
        try:
            project: Vault | None = self.project()
        except VaultNotFoundError:
            if home is None or chosen is ForgetScope.project:
                raise
            project = None
        if project is not None and home is not None and project.root == home.root:
            project = None
        global_too = bool(
            chosen is None and project and home and not plan_forget(home, query).empty
        )
        if chosen is None:
            chosen = ForgetScope.project if project is not None else ForgetScope.global_
        named: list[tuple[str, Vault]] = []
        if project is not None and chosen is not ForgetScope.global_:
            named.append(("project", project))
        if home is not None and chosen is not ForgetScope.project:
            named.append(("global", home))
        warnings: list[str] = []
        if home is not None and chosen is ForgetScope.everywhere:
            from cardvault.scopes.registry import open_projects

            found, warnings = open_projects(home)
            seen = {vault.root for _, vault in named}
            named += [(key, vault) for key, vault in found if vault.root not in seen]
        return named, warnings, global_too

    def forget(
        self, plans: ForgetPlans, match_text: bool = False, on_wait: OnWait | None = None
    ) -> list[tuple[str, Vault, ForgetResult]]:
        """`cardvault forget`, the removal: carry out each plan of `forget_plan` (one commit per
        vault; a file changed since is refused). NotFoundError when nothing matched (unless an
        interrupted forget of the query was just finished); cards matched only by their text
        go only with `match_text` (the CLI's yes at the prompt, or --yes --match-text)."""
        from cardvault.errors import NotFoundError
        from cardvault.forget.plan import apply_forget

        shown = plans.shown_query
        if not plans.plans and not plans.resumed:
            raise NotFoundError(f"nothing in the vault matches {shown}")
        if plans.widened and not match_text:
            raise NotFoundError(
                f"no card's slug, topic or tags match {shown}; the {plans.widened} card(s) "
                "above only mention it in their text. Nothing removed: to remove them, run again "
                "with --yes --match-text (or without --yes, and answer the prompt)"
            )
        return [
            (name, vault, apply_forget(vault, plan, on_wait=on_wait))
            for name, vault, plan in plans.plans
        ]

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
        return apply_import(vault, plan, file.name, replan=planned, on_wait=on_wait)

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
        from cardvault.errors import CardvaultError
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
            return ImportedNotes(latest[0])

        def replan() -> ImportPlan:
            latest[0] = planned()
            return latest[0].plan

        done = apply_import(vault, latest[0].plan, latest[0].source.name, replan, on_wait=on_wait)
        return ImportedNotes(latest[0], done.commit, done.notes)

    def export(self, target: Path | None = None, logs: bool = False, force: bool = False) -> Export:
        """`cardvault export`: the vault's cards, AGENTS.md rules and, with `logs`, daily logs
        as portable JSON, written to `target` (outside the vault; an existing file only with
        `force`), or only returned when `target` is None."""
        from cardvault.edits.atomic import atomic_write
        from cardvault.errors import CardvaultError
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
    from cardvault.errors import CardvaultError

    listing = "\n".join(f"  - {p}" for p in problems)
    hint = (
        f"--partial imports the {usable} valid card(s)" if usable else "nothing in it is importable"
    )
    raise CardvaultError(f"cannot import {file}:\n{listing}\n({hint})")
