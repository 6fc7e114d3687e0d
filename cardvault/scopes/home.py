"""Where the global vault lives (the app makes it on its first write: app/writes.py).

An ordinary vault at `$CARDVAULT_HOME`, else at the user data folder platformdirs names. Reads
never create it (a missing global vault reads as empty).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from cardvault.vault.config import CONFIG_FILE
from cardvault.vault.layout import Vault, open_vault_at

HOME_VAR = "CARDVAULT_HOME"


def global_root(env: Mapping[str, str] | None = None) -> Path:
    """The global vault's folder: $CARDVAULT_HOME, else the user data folder. On Linux and the
    BSDs that is $XDG_DATA_HOME/cardvault, else ~/.local/share/cardvault (platformdirs' rule,
    read from `env`, which may be a caller's environment: `cardvault serve` answering it)."""
    env = os.environ if env is None else env
    unix = sys.platform not in ("darwin", "win32")
    if env.get(HOME_VAR):
        named = env[HOME_VAR]
        home = env.get("HOME")
        if unix and home and (named == "~" or named.startswith("~/")):
            named = home + named[1:]
        return Path(named).expanduser().resolve()
    if not unix:
        from platformdirs import user_data_dir

        return Path(user_data_dir("cardvault", appauthor=False)).resolve()
    data = env.get("XDG_DATA_HOME", "").strip()
    if not data:
        data = str(Path(env["HOME"]) / ".local" / "share") if env.get("HOME") else "~/.local/share"
    return (Path(data).expanduser() / "cardvault").resolve()


def global_vault(env: Mapping[str, str] | None = None) -> Vault | None:
    """The global vault, or None when it was never created."""
    root = global_root(env)
    if not (root / CONFIG_FILE).is_file():
        return None
    return open_vault_at(root)
