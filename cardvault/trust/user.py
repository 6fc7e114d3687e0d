"""The user's own configuration: a folder outside every vault, and the `config.toml` in it.

The folder is `$CARDVAULT_CONFIG_DIR` when set, else the platform's user configuration folder
(docs/security.md). Its `config.toml` may hold the settings that run code
(settings.CODE_SETTINGS) and the resident process's `[serve]` choices for every vault; nothing
else. It is read on every opening of a vault: a stat and, when present, one small parse.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardvault.errors import ConfigError
from cardvault.limits import VAULT_FILE
from cardvault.vault.bounded_data import toml_loads
from cardvault.vault.config import parse_config
from cardvault.vault.confine import read_file
from cardvault.vault.files import decode

ENV_VAR = "CARDVAULT_CONFIG_DIR"
CONFIG_NAME = "config.toml"
#: (section, key) of the settings the user's file may hold (the settings that run code).
USER_KEYS = (
    ("maintain", "judge"),
    ("search", "model"),
    ("serve", "auto"),
    ("serve", "idle_minutes"),
)


@dataclass(frozen=True)
class UserSettings:
    """The code-running settings the user set for every vault (None: not set)."""

    values: Mapping[str, Any]
    path: Path

    def get(self, key: str) -> Any:
        """The user's value for `key` (`maintain.judge`), or None."""
        return self.values.get(key)


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's cardvault configuration folder (not created here)."""
    env = os.environ if env is None else env
    explicit = env.get(ENV_VAR)
    if explicit:
        return Path(explicit).expanduser()
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        # platformdirs' rule on these systems, without its import on every command
        base = env.get("XDG_CONFIG_HOME", "").strip()
        return (Path(base) if base else Path.home() / ".config") / "cardvault"
    from platformdirs import user_config_dir

    return Path(user_config_dir("cardvault", appauthor=False))


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the user's `config.toml` is (it may not exist)."""
    return config_dir(env) / CONFIG_NAME


def read_user_settings(env: Mapping[str, str] | None = None) -> UserSettings:
    """The user's settings; empty when the file does not exist. ConfigError names the file and
    the key when it holds something else than the settings that run code, or a bad value."""
    path = user_config_path(env)
    try:  # the user's own file: links and pipes open as in any program
        read = read_file(path, VAULT_FILE, named=True)
    except (FileNotFoundError, NotADirectoryError):
        return UserSettings({}, path)
    except OSError as exc:
        raise ConfigError(f"cannot read your cardvault settings: {exc.strerror}", path) from exc
    try:  # bounded and checked as a vault file is
        data = toml_loads(decode(read.data, path, read.info.st_size))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"your cardvault settings are not valid TOML: {exc}", path) from exc
    values: dict[str, Any] = {}
    for section, table in data.items():
        keys = table.items() if isinstance(table, dict) else [("", table)]
        for key, value in keys:
            if (section, key) not in USER_KEYS:
                allowed = ", ".join(f"{s}.{k}" for s, k in USER_KEYS)
                raise ConfigError(
                    f"'{section}.{key}' does not belong in your own settings: only the settings "
                    f"that run code and the resident process's do ({allowed}); the rest are "
                    "each vault's (cardvault.toml)",
                    path,
                )
            values[f"{section}.{key}"] = value
    parse_config(data, path)  # types and command lines, checked as the vault's are
    return UserSettings(values, path)


def inside(path: Path, root: Path) -> bool:
    """Whether `path` lies in the folder `root` (both resolved): the user's files must not be
    part of a vault, where a remote could supply them."""
    try:
        return Path(os.path.realpath(path)).is_relative_to(Path(os.path.realpath(root)))
    except OSError:
        return True
