"""Archive: cards nobody has touched for `archive_days` move to memory/archive/.

A card's last touch is the latest of `updated`, `last_used` and the use this clone's ledger
recorded but has not folded yet (vault/uses.py), else `created`. Promoted cards stay; the rest
move with `status: archived`, still found by search with `--archived`. A card a folder import
wrote (`imported: DATE`) keeps its note's old dates, so it waits `archive_days` from its import
(reported as held back): by use alone every old note would be archived on the first run.
"""

from __future__ import annotations

import datetime as dt

from cardvault.edits.changes import Change, MoveFile, Report
from cardvault.errors import CardvaultError
from cardvault.maintain.reverts import refused
from cardvault.maintain.state import CardFile, VaultState
from cardvault.vault.card import Card, update_card_text
from cardvault.vault.config import VaultConfig
from cardvault.vault.fields import CREATED, IMPORTED, LAST_USED, STATUS, UPDATED
from cardvault.vault.uses import Use

STEP = "archive"


def step(state: VaultState, cfg: VaultConfig) -> list[Change]:
    """Move every stale, unpromoted live card to the archive; report imported ones held back."""
    cutoff = state.today - dt.timedelta(days=cfg.archive_days)
    changes: list[Change] = []
    held: list[CardFile] = []
    for card in state.live:
        last = last_activity(card.card, state.uses.of((card.slug, *card.card.aliases)))
        if card.card.status == "promoted" or last is None or last >= cutoff:
            continue
        if refused(state, "archive", state.vault.rel(card.path)):
            continue  # a person reverted its archiving (maintain/reverts.py)
        imported = card.card.date(IMPORTED)
        if imported is not None and imported >= cutoff:
            held.append(card)
            continue
        changes.append(archival(state, card, f"last touched {last.isoformat()}"))
    if held:
        changes.append(_held_back(held, cfg))
    return changes


def _held_back(held: list[CardFile], cfg: VaultConfig) -> Report:
    days = sorted({d.isoformat() for c in held if (d := c.card.date(IMPORTED)) is not None})
    message = (
        f"not archived: {len(held)} card(s) imported on {', '.join(days[:3])}"
        f"{' …' if len(days) > 3 else ''} whose own dates are over {cfg.archive_days} days old; "
        f"an import counts as a touch, so they wait {cfg.archive_days} days from it"
    )
    return Report("skipped", message, tuple(c.path for c in held[:20]), (), STEP)


def last_activity(card: Card, use: Use | None = None) -> dt.date | None:
    """The latest of `updated`, `last_used` and `use`; `created` when none is set."""
    recorded = use.last if use is not None else None
    dates = [d for d in (card.date(UPDATED), card.date(LAST_USED), recorded) if d]
    return max(dates, default=card.date(CREATED))


def archival(state: VaultState, card: CardFile, why: str) -> Change:
    """The move of `card` to the archive (a Report when the archive already has that name)."""
    vault = state.vault
    target = vault.archive_dir / card.path.relative_to(vault.cards_dir)
    if any(c.path == target for c in state.cards) or target.exists():
        message = f"{card.slug}: not archived, {vault.rel(target)} already exists"
        return Report("skipped", message, (card.path, target), (), STEP)
    text = update_card_text(card.file.text, {STATUS: "archived"}, path=card.path)
    reason = f"archived {card.slug} ({why})"
    return MoveFile(card.path, target, text, card.file.digest, reason, STEP, 1)


def archive_by_hand(state: VaultState, slug: str) -> list[Change]:
    """`cardvault archive SLUG`: archive one live card now, whatever its age."""
    card = state.live_card(slug)
    if card.card.status == "promoted":
        raise CardvaultError(
            f"{card.slug} is promoted (its rule is in AGENTS.md); "
            f"run `cardvault demote {card.slug}` first",
            card.path,
        )
    return [archival(state, card, "by hand")]
