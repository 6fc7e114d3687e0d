"""`cardvault check --fix`: the repairs of check/fixes.py, planned for the one door.

The repairs are planned under the vault lock (so they are made from the files as they are when
the write happens) and written all or nothing; nothing is written when there is nothing to fix.
"""

from __future__ import annotations

from collections.abc import Callable

from cardvault.check.fixes import Fix, plan_fixes
from cardvault.edits.changes import WriteFile
from cardvault.edits.proposal import Proposal, propose
from cardvault.vault.layout import Vault


def fix_message(vault: Vault, fixes: list[Fix]) -> str:
    """The commit message: a count, then one line per file and what was repaired."""
    lines = "\n".join(f"{vault.rel(f.path)}: {f.what}" for f in fixes)
    return f"check: fix {len(fixes)} file(s)\n\n{lines}\n"


def plan_fixes_write(vault: Vault) -> Callable[[], Proposal[list[Fix]]]:
    """The planning function of the mechanical repairs; its value is the repairs made."""

    def plan() -> Proposal[list[Fix]]:
        fixes = plan_fixes(vault)
        changes = [WriteFile(f.path, f.text, f.expected, f.what, "fix", 1) for f in fixes]
        return propose(changes, fix_message(vault, fixes), fixes)

    return plan
