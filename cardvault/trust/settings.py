"""The settings that run code, and what opening a vault makes of each (`settle`).

From a vault's `cardvault.toml` such a setting is honoured only when it is the built-in default
or approved with `cardvault trust` (store.py); otherwise the user's own value (user.py) or the
default takes its place and an `Ignored` says what was set aside. A future setting that runs
anything is one more entry in CODE_SETTINGS.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardvault.trust.store import is_approved
from cardvault.trust.user import UserSettings, inside, read_user_settings, user_config_path
from cardvault.vault.config import BUNDLED_MODELS, CONFIG_FILE, VaultConfig

DEFAULTS = VaultConfig()


@dataclass(frozen=True)
class CodeSetting:
    """A setting whose value makes cardvault run something: its key, field and what it runs."""

    key: str  # "maintain.judge"
    field: str  # the VaultConfig field
    runs: str  # what the value is, for messages
    instead: str  # what happens while it is not allowed
    runs_nothing: tuple[str, ...] = ()  # values that run no code (allowed like the default)

    @property
    def shown_key(self) -> str:
        section, name = self.key.split(".", 1)
        return f"[{section}] {name}"

    def runs_code(self, value: Any) -> bool:
        """Whether `value` needs approval: it is neither the default nor one that runs nothing."""
        return value != getattr(DEFAULTS, self.field) and value not in self.runs_nothing


CODE_SETTINGS = (
    CodeSetting("maintain.judge", "judge", "a command", "not run; questions stay pending"),
    CodeSetting(
        "search.model",
        "model",
        "a model (a package imported, or a folder whose code is loaded)",
        f"not loaded; searching with the default model {DEFAULTS.model}",
        runs_nothing=BUNDLED_MODELS,
    ),
)


@dataclass(frozen=True)
class Ignored:
    """A code-running setting of the vault that was set aside, and where it was set."""

    setting: CodeSetting
    value: str
    file: Path
    yours: bool = False  # the user's own value is used in its place

    def note(self) -> str:
        """One line: what was ignored, why, what is used instead, and how to allow it."""
        instead = (
            f"not used; yours ({user_config_path()}) is" if self.yours else (self.setting.instead)
        )
        return (
            f"{self.file}: {self.setting.shown_key} = {shown(self.value)} is {self.setting.runs} "
            f"from the vault's own settings: {instead}. Allow it with `cardvault trust` (it "
            f"shows the value and asks), or set it in {user_config_path()}"
        )

    def to_json(self) -> dict[str, str]:
        """The note as data, for `--json` output."""
        return {"setting": self.setting.key, "value": self.value, "file": str(self.file)}


@dataclass(frozen=True)
class Asked:
    """A code-running value a vault's settings hold (for `cardvault trust`)."""

    setting: CodeSetting
    value: str
    trusted: bool
    vault_files: tuple[str, ...]  # words of the value naming files in the vault


def settle(
    root: Path, config: VaultConfig, env: Mapping[str, str] | None = None
) -> tuple[VaultConfig, tuple[Ignored, ...]]:
    """The settings the vault at `root` runs with: each code-running value of `config` kept if
    it is the default or approved, else replaced by the user's value or the default."""
    user = _user_settings(root, env)
    values: dict[str, Any] = {}
    ignored: list[Ignored] = []
    for setting in CODE_SETTINGS:
        own = getattr(config, setting.field)
        mine = user.get(setting.key)
        if not setting.runs_code(own):
            if mine is not None:
                values[setting.field] = mine
        elif not is_approved(root, setting.key, own, env):
            values[setting.field] = mine if mine is not None else getattr(DEFAULTS, setting.field)
            where = config.source or root / CONFIG_FILE
            ignored.append(Ignored(setting, own, where, yours=mine is not None))
    if not values:
        return config, tuple(ignored)
    return dataclasses.replace(config, **values), tuple(ignored)


def users_own(root: Path, key: str, env: Mapping[str, str] | None = None) -> Any:
    """The user's own value of the code-running setting `key` for the vault at `root` (their
    settings file, which applies to every vault without approval), or None."""
    return _user_settings(root, env).get(key)


def _user_settings(root: Path, env: Mapping[str, str] | None) -> UserSettings:
    """The user's settings, unless their file lies inside the vault (then a remote could
    supply it: nothing of it is used)."""
    settings = read_user_settings(env)
    if inside(settings.path, root):
        return UserSettings({}, settings.path)
    return settings


def asked(root: Path, config: VaultConfig, env: Mapping[str, str] | None = None) -> list[Asked]:
    """Each code-running value the vault's own settings (`config`, as read from the file) hold
    that is not the default, with whether it is approved."""
    found = []
    for setting in CODE_SETTINGS:
        value = getattr(config, setting.field)
        if not setting.runs_code(value):
            continue
        trusted = is_approved(root, setting.key, value, env)
        found.append(Asked(setting, value, trusted, _vault_files(root, value)))
    return found


def _vault_files(root: Path, value: str) -> tuple[str, ...]:
    """Words of `value` that name a file or folder inside the vault: approving the value
    approves whatever those files hold at each run."""
    try:
        words = shlex.split(value)
    except ValueError:
        words = value.split()
    named = []
    for word in words:
        try:
            candidate = Path(word).expanduser()
            path = candidate if candidate.is_absolute() else root / candidate
            if word and path.exists() and inside(path, root):
                named.append(word)
        except (OSError, ValueError, RuntimeError):
            continue
    return tuple(named)


def shown(value: str, limit: int = 80) -> str:
    """`value` quoted for a one-line message: control characters escaped, long values cut."""
    text = "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f'"{text}"'
