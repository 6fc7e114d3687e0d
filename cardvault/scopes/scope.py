"""Which vaults a read covers.

`project` is the vault found from here (`--vault`, $CARDVAULT_VAULT, walking up); `global` the
global vault; `all` both, project first. Nothing of another project is ever in scope: only what
was promoted or written to the global vault crosses from one project to another. The app
session resolves a scope into its vaults (`app/wiring.py`: `Wiring.scope`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

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
