"""The writes scopes/ makes (registration, hot memory, global promotion), through the one write
door (edits/door.py): planned under the vault lock, applied all or nothing, one commit each."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cardvault import history
from cardvault.edits.apply import compose
from cardvault.edits.changes import Change
from cardvault.edits.door import Proposal, locked_write, propose
from cardvault.vault.layout import Vault


def write_changes(
    vault: Vault, plan: Callable[[], Sequence[Change]], message: str | Callable[[], str]
) -> history.CommitResult | None:
    """Make the changes `plan()` returns (planned under the lock, so against the files as they
    are) and commit them with `message` (or what `message()` says once planned); None when
    there was nothing to change."""

    def proposal() -> Proposal[None]:
        changes = list(plan())
        text = message if isinstance(message, str) else (message() if compose(changes) else "")
        return propose(changes, text, None)

    return locked_write(vault, proposal).commit
