"""The projects a global vault knows: `projects.toml` at its root, one table per context key.

```toml
["github.com/acme/web"]
paths = ["/home/ada/src/web"]
registered = 2026-03-19
```

A project registers itself so that `maintain --global` can look across every project on this
machine. A path is registered under one key only (registering it under a new key, as after
`git remote add`, moves it); a path that no longer holds a vault is skipped with a notice.
"""

from __future__ import annotations

import datetime as dt
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

from cardvault import history
from cardvault.edits.changes import Change, WriteFile
from cardvault.edits.proposal import Planned, Written, propose
from cardvault.errors import ConfigError
from cardvault.scopes.key import context_key
from cardvault.vault.bounded_data import toml_loads
from cardvault.vault.files import ABSENT, read_if_present
from cardvault.vault.layout import Vault

REGISTRY_FILE = "projects.toml"
_HEADER = "# Projects registered with this global vault (cardvault writes this file).\n"


@dataclass(frozen=True)
class Project:
    """A registered project: its context key, where its clones are, when it registered."""

    key: str
    paths: tuple[str, ...]
    registered: str


@dataclass(frozen=True)
class Registered:
    """What registering did: the key, and the commit (None when it was registered already)."""

    key: str
    commit: history.CommitResult | None


def registry_path(global_vault: Vault) -> Path:
    """Where the global vault lists its projects."""
    return global_vault.root / REGISTRY_FILE


def read_projects(global_vault: Vault) -> dict[str, Project]:
    """The registered projects by key (none when the file is missing); ConfigError naming the
    file on a broken one."""
    path = registry_path(global_vault)
    found = read_if_present(path, global_vault.root)
    if found is None:
        return {}
    text = found.text
    try:
        data = toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", path, getattr(exc, "lineno", None)) from exc
    projects = {}
    for key, table in data.items():
        paths = table.get("paths") if isinstance(table, dict) else None
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise ConfigError(f"project '{key}' needs paths = [\"...\"]", path)
        projects[key] = Project(key, tuple(paths), str(table.get("registered", "")))
    return projects


def render_projects(projects: dict[str, Project]) -> str:
    """The registry file's text, projects sorted by key."""
    blocks = [_HEADER]
    for key in sorted(projects):
        project = projects[key]
        paths = ", ".join(json.dumps(p) for p in project.paths)
        blocks.append(f"\n[{json.dumps(key)}]\npaths = [{paths}]\n")
        if project.registered:
            blocks.append(f"registered = {project.registered}\n")
    return "".join(blocks)


def register(global_vault: Vault, project: Vault, today: dt.date) -> Planned[None, Registered]:
    """The registration of `project` under its context key (nothing to commit when this path
    is known already)."""
    key = context_key(project.root)
    where = str(project.root)

    def plan() -> list[Change]:
        projects = read_projects(global_vault)
        known = projects.get(key)
        if known is not None and where in known.paths:
            return []
        earlier = _moved_away(projects, where)
        paths = (*known.paths, where) if known else (where,)
        since = known.registered if known else (earlier or today.isoformat())
        projects[key] = Project(key, paths, since)
        path = registry_path(global_vault)
        found = read_if_present(path, global_vault.root)
        expected = found.digest if found else ABSENT
        text = render_projects(projects)
        return [WriteFile(path, text, expected, f"registered {key} at {where}", "register", 1)]

    message = f"scope: register {key}"

    def result(written: Written[None]) -> Registered:
        return Registered(key, written.commit)

    return Planned(lambda: propose(plan(), message, None), result)


def _moved_away(projects: dict[str, Project], where: str) -> str | None:
    """Take `where` out of every project it is registered under (a vault is one project: its
    key changes when a remote is added); when it was, the earliest date it registered."""
    since = []
    for key, project in list(projects.items()):
        if where in project.paths:
            since.append(project.registered)
            rest = tuple(p for p in project.paths if p != where)
            if rest:
                projects[key] = Project(key, rest, project.registered)
            else:
                del projects[key]
    return min(since) if since else None


def open_projects(global_vault: Vault) -> tuple[list[tuple[str, Vault]], list[str]]:
    """Each registered project's vault on this machine (its first path that holds one), by key,
    and a notice for each project none of whose paths does."""
    from cardvault.errors import CardvaultError
    from cardvault.vault.layout import open_vault_at

    found: dict[Path, tuple[str, Vault]] = {}
    notices: list[str] = []
    for key, project in sorted(read_projects(global_vault).items()):
        vault = None
        for text in project.paths:
            try:
                vault = open_vault_at(Path(text))
            except CardvaultError:
                continue
            if vault.root != global_vault.root:
                break
            vault = None
        if vault is None:
            notices.append(f"{key}: no vault at {', '.join(project.paths)}; skipped")
        elif vault.root not in found or key == context_key(vault.root):
            found[vault.root] = (key, vault)  # one vault is one project, under its own key
    return sorted(found.values(), key=lambda kv: kv[0]), notices
