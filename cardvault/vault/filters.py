"""The card filters `list` and `search` take (`--category`, `--status`): a value no card can
have is an error naming the valid ones, never a silently empty answer."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from cardvault.errors import CardvaultError
from cardvault.vault.fields import STATUSES

if TYPE_CHECKING:
    from cardvault.vault.layout import Vault


def check_filters(
    vaults: Iterable[Vault], category: str | None = None, status: str | None = None
) -> None:
    """Raise CardvaultError when `category` is none of the `vaults`' categories or `status`
    not a card status; the message lists the valid values."""
    known = list(dict.fromkeys(c for vault in vaults for c in vault.config.categories))
    if category is not None and category not in known:
        raise CardvaultError(f"unknown category {category!r} (valid: {', '.join(known)})")
    if status is not None and status not in STATUSES:
        raise CardvaultError(f"unknown status {status!r} (valid: {', '.join(STATUSES)})")
