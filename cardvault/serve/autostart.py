"""Warm by default: the first command that loads a vault's model starts its resident process.

A cold `search`, `context` or `index` answers its own call, then `start_resident` launches
`cardvault serve` for the vault detached and returns at once; the next `search` is answered
warm (cli/entry.py). Off with `[serve] auto = false` (the vault's cardvault.toml, or the
user's config.toml, which wins) or CARDVAULT_NO_AUTOSERVE=1. The server exits after `[serve]
idle_minutes` without a request and runs through launch.py (`python -I`), never importing from
the vault's folder. Two cold commands racing may both launch one: the second finds the serve
lock held and exits at once.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cardvault.vault.config import VaultConfig

#: Set (to anything but "" or "0") to never start a resident process on one's own.
NO_AUTOSERVE_VAR = "CARDVAULT_NO_AUTOSERVE"


@dataclass(frozen=True)
class ServeSettings:
    """Whether to start a resident process unasked, and its idle timeout in minutes."""

    auto: bool
    idle_minutes: float


def serve_settings(vault_auto: bool, vault_idle_minutes: float) -> ServeSettings:
    """The vault's `[serve]` settings, overridden by the user's config.toml and the env var."""
    from cardvault.trust.user import read_user_settings

    auto, idle = vault_auto, vault_idle_minutes
    with contextlib.suppress(Exception):  # a broken user file is reported by the commands
        user = read_user_settings()
        mine_auto, mine_idle = user.get("serve.auto"), user.get("serve.idle_minutes")
        auto = auto if mine_auto is None else bool(mine_auto)
        idle = idle if mine_idle is None else float(mine_idle)
    return ServeSettings(auto and not _switched_off(), idle)


def _switched_off() -> bool:
    """Whether $CARDVAULT_NO_AUTOSERVE turns starting unasked off, whatever the settings say."""
    return os.environ.get(NO_AUTOSERVE_VAR, "") not in ("", "0")


def serve_command(root: Path, idle_minutes: float) -> list[str]:
    """The isolated command line of a foreground `cardvault serve` for the vault at `root`."""
    from cardvault.launch import python_command

    idle = f"{idle_minutes:g}"
    return python_command("cardvault", "--vault", str(root), "serve", "--idle-timeout", idle)


def start_resident(root: Path, config: VaultConfig) -> int | None:
    """Launch the resident process of the vault at `root` (settings `config`) unless it is off
    (the env var first: it makes the settings files moot) or one runs; its pid, or None. A
    failed launch is not raised: the command that asked has answered, the next runs cold."""
    if _switched_off():
        return None
    settings = serve_settings(config.serve_auto, config.serve_idle_minutes)
    if not settings.auto:
        return None
    from cardvault.serve.control import clear_stale_socket, lock_holder, spawn_detached

    root = root.resolve()
    try:
        if lock_holder(root) is not None:
            return None
        clear_stale_socket(root)
        return spawn_detached(root, serve_command(root, settings.idle_minutes))
    except OSError:
        return None
