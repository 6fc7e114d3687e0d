"""Forgotten stays forgotten: what a merge brought back of entries a forget removed, removed again.

A forget records the ids of the log entries it removed (vault/forgotten.py); another clone may
have distilled, asked about or written back such an entry before it saw the forget. After a
merge (and before `maintain`), `plan_still_forgotten` removes exactly that with forget's own
rules (`plan_removal`); a card that also holds other lessons is kept and named in `mentions`.
Nothing is recorded again: `git revert` of a forget removes its record, and with it this.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from cardvault.edits.proposal import Proposal, propose
from cardvault.forget.logs import Needles
from cardvault.forget.plan import ForgetPlan, message_of, plan_removal
from cardvault.vault.forgotten import forgotten_refs
from cardvault.vault.layout import Vault
from cardvault.vault.read import VaultSnapshot, read_vault

MATCHED_BY = "forgotten"
_REMOVED_AGAIN = "removed again what a merge brought back of forgotten entries"


def plan_still_forgotten(
    vault: Vault, today: dt.date | None = None, snapshot: VaultSnapshot | None = None
) -> ForgetPlan | None:
    """The removal of what the vault's forgets removed and is back (None: the vault records
    no forget, or nothing of one is back), planned from `snapshot` when the caller holds one
    (else the vault is read, and only when it records a forget)."""
    refs = forgotten_refs(vault.root)
    if not refs:
        return None
    if snapshot is None:
        snapshot = read_vault(vault, verify=True)
    needles = Needles(phrases=None, slugs=frozenset(), sources=refs, query_words=frozenset())
    plan = plan_removal(vault, snapshot, [], needles, today or dt.date.today())
    if not plan.changes():
        return None
    return replace(plan, matched_by=MATCHED_BY)


def _counts(plan: ForgetPlan) -> str:
    return (
        f"{len(plan.cards)} card(s), {plan.log_lines} log line(s), "
        f"{len(plan.questions)} review question(s)"
    )


def commit_message(plan: ForgetPlan) -> str:
    """The subject and body of the commit that removes it again (places, never the text)."""
    why = [
        "A forget recorded these entries' ids (memory/forgotten/); another clone had worked",
        "with them before it saw the forget. To bring them back, `git revert` that forget",
        "(its record goes with it), then this commit: the record alone removes them again.",
    ]
    return message_of(f"forget: {_REMOVED_AGAIN}: {_counts(plan)}", why, plan)


def still_forgotten(
    vault: Vault, today: dt.date | None = None, snapshot: VaultSnapshot | None = None
) -> Proposal[ForgetPlan | None]:
    """The write that removes again what is back (no change when nothing is), for a caller
    that holds the vault lock: sync after its merge."""
    found = plan_still_forgotten(vault, today, snapshot)
    if found is None:
        return propose([], "", None)
    return propose(found.changes(), commit_message(found), found)


def before_maintenance(snapshot: VaultSnapshot, today: dt.date) -> Proposal[str]:
    """`still_forgotten` as the step `maintain` runs before its plan (maintain/run.py
    `Before`): from the run's snapshot, under its lock, in its own commit; the value is what a
    person hears of it."""
    proposal = still_forgotten(snapshot.vault, today, snapshot)
    found = proposal.value
    said = "" if found is None else f"{_REMOVED_AGAIN} ({_counts(found)})"
    return propose(proposal.changes, proposal.message, said, read=snapshot)
