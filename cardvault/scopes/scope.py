"""Which vaults a read covers.

`project` is the vault found from here (`--vault`, $CARDVAULT_VAULT, walking up); `global` the
global vault; `all` both, project first. Nothing of another project is ever in scope: only what
was promoted or written to the global vault crosses from one project to another.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from cardvault.errors import VaultNotFoundError
from cardvault.vault.layout import Vault


class Scope(StrEnum):
    """The vaults a read covers."""

    project = "project"
    global_ = "global"
    all = "all"


PROJECT, GLOBAL = "project", "global"


@dataclass(frozen=True)
class Scoped:
    """A vault in scope and the name its results carry ("project" or "global")."""

    name: str
    vault: Vault


@dataclass(frozen=True)
class InScope:
    """The vaults of a scope (project first) and what the reader should be told."""

    vaults: tuple[Scoped, ...]
    notices: tuple[str, ...] = ()

    def get(self, name: str) -> Vault | None:
        """The vault named `name`, if in scope."""
        return next((s.vault for s in self.vaults if s.name == name), None)


def resolve(
    scope: Scope,
    find_project: Callable[[], Vault],
    global_vault: Vault | None,
    project_named: bool = False,
) -> InScope:
    """The vaults `scope` covers. The project is found only when the scope needs it; with
    `all`, a missing project (or global vault) leaves the other alone, with a notice, unless
    the project was named (`project_named`: --vault or $CARDVAULT_VAULT): a named folder that
    holds no vault is an error, never quietly the global vault instead."""
    notices: list[str] = []
    vaults: list[Scoped] = []
    if scope in (Scope.project, Scope.all):
        try:
            project = find_project()
        except VaultNotFoundError:
            if scope is Scope.project or global_vault is None or project_named:
                raise
            notices.append("no project vault here: the global vault only")
        else:
            if global_vault is None or project.root != global_vault.root:
                vaults.append(Scoped(PROJECT, project))
    if scope in (Scope.global_, Scope.all):
        if global_vault is not None:
            vaults.append(Scoped(GLOBAL, global_vault))
        elif scope is Scope.global_:
            notices.append("no global vault yet (the first `--global` write creates it)")
    return InScope(tuple(vaults), tuple(notices))
