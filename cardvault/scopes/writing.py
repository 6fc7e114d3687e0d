"""The writes scopes/ makes (registration, hot memory, global promotion), through the one
applier under the vault lock, each recorded by one commit.

Kept in one function so that it follows the write door (edits/) as that evolves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from cardvault import history
from cardvault.edits.apply import apply_changes, compose
from cardvault.edits.changes import Change
from cardvault.edits.lock import vault_lock
from cardvault.vault.layout import Vault


def write_changes(
    vault: Vault, plan: Callable[[], Sequence[Change]], message: str | Callable[[], str]
) -> history.CommitResult | None:
    """Under the vault lock, make the changes `plan()` returns (planned under the lock, so
    against the files as they are), apply them all or nothing and commit them with `message`
    (or what `message()` says once planned); None when there was nothing to change."""
    with vault_lock(vault):
        changes = list(plan())
        if not compose(changes):
            return None
        commits: list[history.CommitResult] = []

        text = message if isinstance(message, str) else message()

        def record(paths: list[Path]) -> None:
            commits.append(history.commit(vault, text, paths))

        apply_changes(vault, changes, finish=record)
        return commits[0]
