"""Cards that merge: which one survives, and the links that must follow it.

The survivor is the promoted card, else the earliest created, else the most linked to; links
to the others (`[[old-slug]]` and `memory/cards/old-slug.md`) in any card are rewritten to it.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from cardvault.edits.changes import Change, WriteFile
from cardvault.maintain.state import CardFile, VaultState
from cardvault.vault.card import as_date, keep_provenance
from cardvault.vault.fields import CREATED
from cardvault.vault.links import rename_links

STEP = "merge"


def survivor_order(cluster: list[CardFile], inbound: Counter[str]) -> list[CardFile]:
    """The cluster, survivor first: promoted, then earliest created, then most linked."""

    def key(card: CardFile) -> tuple[int, str, int, str]:
        created = as_date(card.card.meta.get(CREATED))
        return (
            0 if card.card.status == "promoted" else 1,
            created.isoformat() if created else "9999",
            -inbound[card.slug],
            card.slug,
        )

    return sorted(cluster, key=key)


def inbound_links(state: VaultState) -> Counter[str]:
    """How many `[[links]]` in other cards point at each slug."""
    linked = ({link.key for link in card.links} - {card.slug} for card in state.cards)
    return Counter(target for targets in linked for target in targets)


def rewrite_links(state: VaultState, renames: dict[str, str], skip: set[Path]) -> list[Change]:
    """Rewrite `[[old]]` (and `memory/cards/old.md`) to the new slug in every other card."""
    changes: list[Change] = []
    for card in state.cards:
        if card.path in skip or not any(old in card.file.text for old in renames):
            continue
        text = keep_provenance(card.card, rename_links(card.file.text, renames))
        if text != card.file.text:
            moved = ", ".join(
                f"[[{old}]] → [[{new}]]" for old, new in renames.items() if old in card.file.text
            )
            reason = f"rewrote links in {card.slug}: {moved}"
            changes.append(WriteFile(card.path, text, card.file.digest, reason, STEP))
    return changes
