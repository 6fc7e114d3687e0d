"""Uses: the reads this clone's ledger recorded (vault/uses.py) folded into the cards.

A used card's `uses` grows by the uses recorded since the last fold and `last_used` becomes the
later date; `updated` is left alone (a read is no edit). A card merged away hands its uses to
the survivor through its alias. The run that commits the fold moves the clone's watermark
(maintain/run.py), so a second run folds nothing.
"""

from __future__ import annotations

from pathlib import Path

from cardvault.edits.changes import Change, WriteFile
from cardvault.maintain.state import VaultState
from cardvault.vault.card import Card, update_card_text
from cardvault.vault.config import VaultConfig
from cardvault.vault.fields import LAST_USED, USES
from cardvault.vault.uses import Use

STEP = "uses"


def step(state: VaultState, cfg: VaultConfig) -> list[Change]:
    """Write each used card's new `uses` and `last_used`."""
    per_card: dict[Path, Use] = {}
    for name, use in state.uses.uses.items():
        card = state.by_slug(name, archived=True)  # a slug wins over an alias
        if card is not None:
            seen = per_card.get(card.path)
            per_card[card.path] = (
                Use(seen.count + use.count, max(seen.last, use.last)) if seen else use
            )
    changes: list[Change] = []
    for path, use in sorted(per_card.items()):
        card = state.files[path]
        text = update_card_text(card.file.text, folded(card.card, use), path=path)
        if text == card.file.text:
            continue
        reason = f"{card.slug}: used {use.count} time(s), last {use.last.isoformat()}"
        changes.append(WriteFile(path, text, card.file.digest, reason, STEP, use.count))
    return changes


def folded(card: Card, use: Use) -> dict[str, object]:
    """The frontmatter values once `use` is counted in: `uses` summed, `last_used` the later."""
    before = card.meta.get(USES)
    count = before if isinstance(before, int) and not isinstance(before, bool) else 0
    last = card.date(LAST_USED)
    return {
        USES: max(count, 0) + use.count,
        LAST_USED: max(last, use.last) if last else use.last,
    }
