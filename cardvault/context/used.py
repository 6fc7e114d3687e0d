"""Cards read for a task, recorded in the use ledger (vault/uses.py, DESIGN §10) at no commit.

A pack records one use of each card it packed for the task (`record_pack`), never of a card
filling the budget by value; an agent's read or `show` of a card records one (`read_used`).
Rules, MEMORY.md and hot memory load every session and are no use of a card.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from pathlib import PurePosixPath

from cardvault.context.pack import Decision
from cardvault.errors import CardvaultError, UnsafePathError
from cardvault.vault.card import Card
from cardvault.vault.layout import Vault, check_slug
from cardvault.vault.read import find_card, read_card
from cardvault.vault.uses import record_uses

HOW = "context"


def packed_cards(decisions: tuple[Decision, ...]) -> dict[str, list[str]]:
    """Vault name -> the slugs of the cards the pack included for the task, in pack order."""
    found: dict[str, list[str]] = {}
    for decision in decisions:
        item = decision.item
        if decision.included and item.kind == "card" and item.for_task:
            rel = item.source.removeprefix(f"{item.vault}:")  # "global:memory/cards/x.md"
            found.setdefault(item.vault, []).append(PurePosixPath(rel).stem)
    return found


def record_pack(decisions: tuple[Decision, ...], vaults: Mapping[str, Vault], day: dt.date) -> int:
    """Record a use of each packed card in its vault's ledger; how many were recorded."""
    recorded = 0
    for name, slugs in packed_cards(decisions).items():
        vault = vaults.get(name)
        if vault is not None:
            recorded += record_uses(vault, slugs, HOW, day)
    return recorded


def read_used(vault: Vault, name: str, day: dt.date, how: str = "read") -> Card:
    """The card named `name` (a slug or an alias), read for a task: one use recorded under
    its slug. `how` "show" (`cardvault show`) records only when an agent is named (`--agent`,
    $CARDVAULT_AGENT): a person looking at a card is not memory in use. NotFoundError when
    there is no such card."""
    card = named_card(vault, name)
    if how != "show" or vault.agent:
        record_uses(vault, [card.slug], how, day)
    return card


def named_card(vault: Vault, name: str) -> Card:
    """The card named `name`: memory/cards/<name>.md when it exists (one file read, where
    resolving an alias reads the whole vault), else the read path's slug-or-alias lookup."""
    try:
        direct = vault.cards_dir / f"{check_slug(name)}.md"
    except UnsafePathError:
        direct = None
    if direct is not None and (direct.is_file() or direct.is_symlink()):
        try:
            return read_card(direct, vault.root)  # a symlink is refused, never followed
        except PermissionError as exc:  # said as the read path says it: path:1
            raise CardvaultError(f"cannot read: {exc.strerror}", direct, 1) from exc
    return find_card(vault, name).card
