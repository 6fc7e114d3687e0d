"""Where a vault's root is: `--vault`, else $CARDVAULT_VAULT, else the nearest folder upwards
holding `cardvault.toml` (the way git finds its repository).

Standard library only and cheap to import: the CLI's fast path uses it to find a resident
process's socket before importing anything heavy. `layout.find_vault` opens what it finds.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

CONFIG_FILE = "cardvault.toml"
ENV_VAR = "CARDVAULT_VAULT"


def locate_root(
    explicit: Path | None = None, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> Path | None:
    """The folder named by `explicit` or $CARDVAULT_VAULT (unchecked: the caller opens it), else
    the nearest folder from `cwd` upwards that holds cardvault.toml, else None."""
    env = os.environ if env is None else env
    if explicit is not None:
        return explicit
    if env.get(ENV_VAR):
        return Path(env[ENV_VAR])
    start = (cwd or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        if (folder / CONFIG_FILE).is_file():
            return folder
    return None
