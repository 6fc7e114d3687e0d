"""`cardvault install`'s service: which files of which host, at which level, and the plan.

User-level files (home folder) name this install of cardvault and the vault by absolute path.
Project-level files (`--project`: the git work tree's top, else the current folder) name bare
`cardvault` and no vault: hooks and server find the vault from the project folder, as a
teammate's clone will; a vault not found that way is refused.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cardvault import history
from cardvault.errors import VaultNotFoundError
from cardvault.hosts.hosts import HOSTS, home_folder, host_files
from cardvault.hosts.plan import FileChange, plan_changes
from cardvault.hosts.state import read_records
from cardvault.vault.root import locate_root


@dataclass(frozen=True)
class InstallPlan:
    """The changes of one `install` run, and how to name its files to a person."""

    host: str
    project: Path | None
    uninstall: bool
    changes: tuple[FileChange, ...]

    @property
    def changed(self) -> tuple[FileChange, ...]:
        return tuple(change for change in self.changes if change.changed)

    def shown(self, path: Path, env: Mapping[str, str] | None = None) -> str:
        """`path` as a person reads it: relative to the project, or under `~`."""
        if self.project is not None and self.project in path.parents:
            return path.relative_to(self.project).as_posix()
        home = home_folder(os.environ if env is None else env)
        if home in path.parents:
            return "~/" + path.relative_to(home).as_posix()
        return str(path)


def project_folder(cwd: Path | None = None) -> Path:
    """The project a `--project` install is for: the git work tree's top, else `cwd`."""
    start = (cwd or Path.cwd()).resolve()
    return history.work_tree_of(start) or start


def project_vault(project: Path) -> Path:
    """The vault found from `project` as a teammate's hooks will find it (walking up, no
    environment variable); VaultNotFoundError when there is none."""
    root = locate_root(None, env={}, cwd=project)
    if root is None:
        raise VaultNotFoundError(
            f"no vault in {project} or above it: project-level hooks find the vault from the "
            "project folder (`cardvault init` there), or install at user level (without "
            "--project) to use a vault elsewhere"
        )
    return root.resolve()


def plan(
    host: str, project: Path | None, vault: Path | None, uninstall: bool = False
) -> InstallPlan:
    """What installing (or uninstalling) `host` at project or user level changes."""
    if host not in HOSTS:
        raise ValueError(f"unknown host {host!r}")
    targets = host_files(host, project, vault)
    records = read_records()
    changes = plan_changes(targets, records, project, uninstall)
    return InstallPlan(host, project, uninstall, tuple(changes))
