"""A new vault's first commit (write/init.py's plan) landed through a door opened on the
folder the plan made. Here, below the app, because scopes/home.py makes the global vault on
first use; the plan carries the merge drivers' `.gitattributes` in that commit."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from cardvault.edits.door import Door
from cardvault.edits.proposal import Planned
from cardvault.vault.layout import Vault

T = TypeVar("T")
R = TypeVar("R")


def land_new_vault(root: Path, planned: Planned[T, R]) -> R:
    """Land `planned`, init's plan for the folder `root`, in one commit."""
    return planned.result(Door(Vault(root.resolve())).commit(planned.plan, merge_setup=False))
