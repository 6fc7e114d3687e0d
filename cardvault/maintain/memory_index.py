"""Index: MEMORY.md's managed `categories` table regenerated inside the file's byte budget
(vault/memory_table.py says what it holds), as a maintenance step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardvault.edits.changes import Change, Report, WriteFile
from cardvault.vault.config import VaultConfig
from cardvault.vault.memory_table import with_table

if TYPE_CHECKING:
    from cardvault.maintain.state import VaultState

STEP = "index"


def step(state: VaultState, cfg: VaultConfig) -> list[Change]:
    """The MEMORY.md write that makes its categories table current, if it is not already."""
    memory = state.memory
    if memory is None:
        return []
    text, fits = with_table(
        memory.text, state.vault, state.live, cfg.memory_byte_budget, memory.path
    )
    changes: list[Change] = []
    if text != memory.text:
        count = len(state.live)
        reason = (
            f"MEMORY.md: categories table regenerated ({count} card{'s' if count != 1 else ''})"
        )
        changes.append(WriteFile(memory.path, text, memory.digest, reason, STEP, 1))
    if not fits:
        size = len(text.encode("utf-8"))
        message = (
            f"MEMORY.md is {size} bytes even with the smallest table, over its budget of "
            f"{cfg.memory_byte_budget}: shorten its hand-written parts"
        )
        changes.append(Report("over-budget", message, (memory.path,), (), STEP))
    return changes
