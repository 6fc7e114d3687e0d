"""The app's commands about this machine's hosts: `install`, `doctor`, `trust`, `mcp --config`,
`hook` (the resident process, `serve`, is app/resident.py); and the names the CLI's shared
modules show or parse with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cardvault.app.search import SearchCommands
from cardvault.scopes.scope import Scope
from cardvault.trust.settings import shown as quoted
from cardvault.vault.confine import shown
from cardvault.vault.progress import LINE_EVERY, ProgressLines

if TYPE_CHECKING:
    from cardvault.capture.session import SessionCapture
    from cardvault.doctor.checks import Check
    from cardvault.edits.proposal import OnWait
    from cardvault.hosts.install import InstallPlan
    from cardvault.trust.settings import Asked
    from cardvault.trust.store import Approval
    from cardvault.vault.layout import Vault

__all__ = [
    "LINE_EVERY", "ProgressLines", "Scope", "ServiceCommands", "quoted",
    "shown",
]  # fmt: skip


@dataclass(frozen=True)
class Doctored:
    """What `cardvault doctor` found (and fixed), in its order."""

    checks: list[Check]
    fixed: list[str]
    notices: tuple[str, ...]  # what opening the vault healed

    @property
    def ok(self) -> bool:
        """No check found something broken (an error)."""
        return all(check.status != "error" for check in self.checks)


@dataclass(frozen=True)
class Installed:
    """One `cardvault install` run: its plan, the diff of each changed file, whether written."""

    plan: InstallPlan
    label: str  # the host's name for people
    diffs: tuple[str, ...]
    written: bool

    @property
    def files(self) -> str:
        """The changed files as a person reads them."""
        return ", ".join(self.plan.shown(change.path) for change in self.plan.changed)


@dataclass(frozen=True)
class Trusted:
    """What `cardvault trust` approved (and what was approved already) for the vault at `root`."""

    root: Path
    approved: tuple[str, ...]
    already: tuple[str, ...]


@dataclass(frozen=True)
class Hooked:
    """What `cardvault hook EVENT` prints for its host, and what it did on the way."""

    output: str  # stdout, for the host
    notices: tuple[str, ...]  # the context pack's notices (session-start)
    captured: SessionCapture | None  # pre-compact and stop with a transcript


class ServiceCommands(SearchCommands):
    """Commands about this machine's hosts and processes."""

    def doctor(self, fix: bool = False, model: bool = True) -> Doctored:
        """`cardvault doctor`: every check (`model` False: the model is found, not loaded);
        with `fix`, the safe fix (this clone's merge drivers) made and the checks run again."""
        from cardvault.doctor.checks import Check
        from cardvault.doctor.run import fix_safe, run_checks
        from cardvault.errors import CardvaultError, VaultNotFoundError

        vault, opened = None, None
        try:
            vault = self.project()
        except VaultNotFoundError:
            pass
        except CardvaultError as exc:  # found, but it does not open: that is the finding
            opened = Check("vault", "error", str(exc), "fix the file and line named")
        project = _project_of(vault)
        checks = run_checks(vault, project, model, opened)
        fixed = fix_safe(vault, checks) if fix else []
        if fixed:
            checks = run_checks(vault, project, model, opened)
        return Doctored(checks, fixed, vault.notices if vault is not None else ())

    def install(
        self,
        host: str,
        project: bool = False,
        uninstall: bool = False,
        confirm: Callable[[tuple[str, ...]], bool] | None = None,
    ) -> Installed:
        """`cardvault install HOST` (`--project`, `--uninstall`): register the MCP server and the
        hooks with an agent host, or take them out. `confirm` gets each changed file's diff
        before anything is written; False writes nothing (`--dry-run`, a "no"). Without it,
        the changes are written (`--yes`)."""
        from cardvault.errors import VaultNotFoundError
        from cardvault.hosts.apply import apply_changes, unified_diff
        from cardvault.hosts.hosts import HOSTS
        from cardvault.hosts.install import plan, project_folder, project_vault

        folder = project_folder() if project else None
        vault = None
        if folder is not None and not uninstall:
            project_vault(folder)
        elif folder is None and not uninstall:
            try:  # user-level files pin the vault: they serve every project on this machine
                vault = self.root.resolve()
            except VaultNotFoundError as exc:
                raise VaultNotFoundError(
                    f"{exc.message}. User-level hooks use one vault from every project: run "
                    "this inside it or pass --vault PATH; or use --project in a project that "
                    "holds its vault"
                ) from exc
        planned = plan(host, folder, vault, uninstall)
        changed = planned.changed
        diffs = tuple(unified_diff(c, planned.shown(c.path)) for c in changed)
        written = bool(changed) and (confirm is None or confirm(diffs))
        if written:
            apply_changes(list(planned.changes))
        return Installed(planned, HOSTS[host].label, diffs, written)

    def trust(self, confirm: Callable[[list[Asked]], bool] | None = None) -> Trusted:
        """`cardvault trust`: approve the code-running values of the vault's own settings.
        `confirm` is shown those not approved yet; False records nothing (CardvaultError).
        Without it they are approved (`--yes`)."""
        from cardvault.errors import CardvaultError
        from cardvault.trust.settings import asked
        from cardvault.trust.store import approve
        from cardvault.vault.config import CONFIG_FILE, load_config

        root = self.project().root
        found = asked(root, load_config(root / CONFIG_FILE), self.env)  # as the file says
        waiting = [item for item in found if not item.trusted]
        already = tuple(item.setting.key for item in found if item.trusted)
        if not waiting:
            return Trusted(root, (), already)
        if confirm is not None and not confirm(waiting):
            raise CardvaultError("not approved: nothing recorded")
        approve(root, [(item.setting.key, item.value) for item in waiting], self.now(), self.env)
        return Trusted(root, tuple(item.setting.key for item in waiting), already)

    def trust_list(self) -> list[Approval]:
        """`cardvault trust --list`: every approval made, for every vault."""
        from cardvault.trust.store import read_approvals

        return read_approvals(self.env, strict=True)

    def trust_revoke(self) -> tuple[Path, list[Approval]]:
        """`cardvault trust --revoke`: forget the approvals of the vault named (even if it is
        gone), else of the one found here; (its root, what was revoked)."""
        import os

        from cardvault.trust.store import revoke

        root = Path(os.path.realpath(self.explicit)) if self.explicit is not None else self.root
        return root, revoke(root, self.env)

    def mcp_registration(self, host: str) -> tuple[str, str]:
        """`cardvault mcp --config HOST`: (the snippet, where it goes)."""
        from cardvault.hosts.registration import registration

        return registration(host, self.root)

    def hook(
        self,
        event: str,
        host: str = "claude-code",
        payload: bytes = b"",
        on_wait: OnWait | None = None,
    ) -> Hooked:
        """`cardvault hook EVENT --host HOST`, with the host's hook JSON (`payload`, at most
        `limits.HOOK_INPUT` bytes). The vault: the session's named one, else found from the
        input's `cwd`. session-start: the context pack for the host; pre-compact and stop:
        each new signal line of the transcript logged (one commit)."""
        from cardvault.hosts.hosts import EVENTS, HOSTS
        from cardvault.hosts.payload import parse_input, quiet_output, session_start_output
        from cardvault.vault.layout import find_vault

        if event not in EVENTS:
            raise ValueError(f"unknown hook event {event!r} (one of {', '.join(EVENTS)})")
        if host not in HOSTS:
            raise ValueError(f"unknown host {host!r} (one of {', '.join(HOSTS)})")
        given = parse_input(payload)
        session = self.with_options(find_vault(self.explicit, self.env, given.cwd).root)
        if event == "session-start":
            pack = session.context(scope=Scope.all)
            return Hooked(session_start_output(host, pack.text), tuple(pack.notices), None)
        if given.transcript is None:
            return Hooked(quiet_output(host), (), None)
        from cardvault.capture.session import SessionCapture, capture_transcript
        from cardvault.edits.door import Door

        via = f"{HOSTS[host].label} {event} hook"
        if given.session:
            via += f", session {given.session[:8]}"
        vault = session.project()
        done = capture_transcript(vault, given.transcript, via, self.now())
        captured = done if isinstance(done, SessionCapture) else Door(vault, on_wait).land(done)
        return Hooked(quiet_output(host), (), captured)


def _project_of(vault: Vault | None) -> Path | None:
    """The project folder when the vault is found from it (its project-level files count)."""
    from cardvault.errors import VaultNotFoundError
    from cardvault.hosts.install import project_folder, project_vault

    if vault is None:
        return None
    folder = project_folder()
    try:
        found = project_vault(folder)
    except VaultNotFoundError:
        return None
    return folder if found == vault.root.resolve() else None
