"""The card filters `list` and `search` take (`--category`, `--status`): a value no card can
have is an error naming the valid ones, never a silently empty answer."""

from __future__ import annotations

from collections.abc import Iterable

from cardvault.errors import CardvaultError
from cardvault.vault.fields import STATUSES


def check_filters(
    categories: Iterable[str], category: str | None = None, status: str | None = None
) -> None:
    """Raise CardvaultError when `category` is not one of `categories` (the vaults' own) or
    `status` not a card status; the message lists the valid values."""
    known = list(dict.fromkeys(categories))
    if category is not None and category not in known:
        raise CardvaultError(f"unknown category {category!r} (valid: {', '.join(known)})")
    if status is not None and status not in STATUSES:
        raise CardvaultError(f"unknown status {status!r} (valid: {', '.join(STATUSES)})")
