"""Which vaults a read covers, and results named by the vault they came from.

`project` is the vault found from here (`--vault`, $CARDVAULT_VAULT, walking up); `global` the
global vault; `all` both, project first. Nothing of another project is ever in scope: only what
was promoted or written to the global vault crosses from one project to another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from cardvault.errors import VaultNotFoundError
from cardvault.vault.layout import Vault

T = TypeVar("T")


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


def resolve(scope: Scope, find_project: Callable[[], Vault], global_vault: Vault | None) -> InScope:
    """The vaults `scope` covers. The project is found only when the scope needs it; with
    `all`, a missing project (or global vault) leaves the other alone, with a notice."""
    notices: list[str] = []
    vaults: list[Scoped] = []
    if scope in (Scope.project, Scope.all):
        try:
            project = find_project()
        except VaultNotFoundError:
            if scope is Scope.project or global_vault is None:
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


def merge_ranked(
    per_vault: Sequence[tuple[str, Sequence[T]]], score: Callable[[T], float], k: int
) -> list[tuple[str, T]]:
    """Hits of several vaults as one ranking: by score, the earlier vault (project) first on a
    tie, then each vault's own order; at most `k`."""
    tagged = [
        (-score(hit), order, rank, name, hit)
        for order, (name, hits) in enumerate(per_vault)
        for rank, hit in enumerate(hits)
    ]
    tagged.sort(key=lambda row: row[:3])
    return [(name, hit) for _, _, _, name, hit in tagged[:k]]


def named(rows: Iterable[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """JSON rows with the vault they came from (`"vault": "project"` or `"global"`)."""
    return [{**row, "vault": name} for row in rows]
