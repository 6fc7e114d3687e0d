"""The portable export format: a versioned JSON of cards, rules and (optionally) daily logs.

docs/insight.md shows the format. A card's `text` is its file byte for byte and is what import
reads; `meta` and `body` are there for other programs. `read_export` checks the shape and version
and returns every item it can use plus one `Finding` per thing that is wrong, so a caller can
refuse, or import the compatible part.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from cardvault.errors import CardFormatError, CardvaultError, UnsafePathError
from cardvault.limits import IMPORT
from cardvault.vault.bounded_data import json_loads
from cardvault.vault.card import Card, parse_card
from cardvault.vault.confine import confined, read_file
from cardvault.vault.files import ensure_within, text_problem
from cardvault.vault.finding import Finding
from cardvault.vault.layout import Vault
from cardvault.vault.lognames import is_log_path, log_day
from cardvault.vault.read import read_vault
from cardvault.vault.schema import schema_problems

T = TypeVar("T")
FORMAT = "cardvault-export"
VERSION = 1
CARD_PATH = re.compile(
    r"^memory/(cards|archive)/(?:[a-z0-9][a-z0-9-]*/)*([a-z0-9]+(?:-[a-z0-9]+)*)\.md$"
)


@dataclass(frozen=True)
class Export:
    """The export's JSON-ready data and the files it left out (they could not be read)."""

    data: dict[str, Any]
    skipped: tuple[str, ...]

    @property
    def text(self) -> str:
        """The export file's text (UTF-8, indented, keys in a stable order)."""
        return json.dumps(self.data, indent=2, ensure_ascii=False) + "\n"


def export_data(vault: Vault, exported: dt.datetime, logs: bool = False) -> Export:
    """The export of `vault`; a card that cannot be read is left out and named in `skipped`."""
    snapshot = read_vault(vault)
    cards = [
        {
            "path": snapshot.rel(card.path),
            "text": card.file.text,
            "meta": json_safe(card.card.meta),
            "body": card.card.body,
        }
        for card in snapshot.cards
    ]
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "exported": exported.isoformat(),
        "cards": cards,
        "rules": [rule.flat for rule in snapshot.rules],
    }
    if logs:
        data["logs"] = [
            {"path": rel, "text": log.file.text}
            for log in snapshot.logs
            if (rel := snapshot.rel(log.file.path)) not in snapshot.partial  # never cut short
        ]
    exported_folders = ("memory/cards/", "memory/archive/") + (("memory/",) if logs else ())
    skipped = [str(p) for p in snapshot.problems if p.path.startswith(exported_folders)]
    if snapshot.rule_problem is not None:
        skipped.append(f"AGENTS.md rules: {snapshot.rule_problem}")
    return Export(data, tuple(skipped))


def json_safe(value: Any) -> Any:
    """`value` with dates as ISO strings, so frontmatter survives JSON."""
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def problem(where: str, message: str, line: int = 0) -> Finding:
    """A thing in the way of an import, as a Finding (`where`: a note's path, or an item such as
    "card 3 (memory/...)"), redacted here: an item's text may hold a secret."""
    from cardvault.guard import redact_text

    return Finding(redact_text(where), line, redact_text(message))


@dataclass(frozen=True)
class ImportedCard:
    """A card item that passed validation: its index in the file, path and parsed card."""

    index: int
    rel: str
    card: Card

    @property
    def text(self) -> str:
        return self.card.text


@dataclass(frozen=True)
class ImportedLog:
    """A daily-log item that passed validation."""

    index: int
    rel: str
    text: str


@dataclass(frozen=True)
class ExportFile:
    """What an export file holds that this cardvault can use, and everything wrong with it."""

    cards: tuple[ImportedCard, ...]
    rules: tuple[str, ...]
    logs: tuple[ImportedLog, ...]
    problems: tuple[Finding, ...]


#: The longest rule line accepted (a promoted rule is at most 200 characters).
MAX_RULE_CHARS = 1000


def load_export(path: Path) -> Any:
    """The JSON in `path`; a file that is not JSON, or too big or deep to read, is an error
    naming its line. At most `limits.IMPORT` bytes are read (a size is not trusted: /dev/zero has
    none); a NUL byte is refused."""
    data = _read_export_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CardFormatError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", path, line) from exc
    del data  # the text alone is parsed
    try:
        return json_loads(text)
    except json.JSONDecodeError as exc:
        raise CardFormatError(f"not JSON: {exc.msg}", path, exc.lineno) from exc
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise CardFormatError(f"not an export: {exc}", path) from exc


def _read_export_bytes(path: Path) -> bytes:
    try:
        data = read_file(path, IMPORT, named=True).data
    except OSError as exc:
        raise CardFormatError(f"cannot read the export: {exc.strerror}", path) from exc
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise CardFormatError("not an export: binary data (NUL byte)", path, line)
    if len(data) > IMPORT:
        raise CardFormatError(f"export is over the {IMPORT:,}-byte limit (stopped reading)", path)
    return data


def read_export(data: Any, vault: Vault) -> ExportFile:
    """Validate export `data` against the format and `vault`'s settings."""
    if not isinstance(data, dict):
        return ExportFile((), (), (), (problem("", "the file must hold a JSON object"),))
    problems = _header_problems(data)
    cards = _valid(
        "card", _items(data, "cards", problems), lambda i, c: _card(i, c, vault), problems
    )
    rules = _rules(data.get("rules", []), problems)
    logs = _valid("log", _items(data, "logs", problems, required=False), _log, problems)
    return ExportFile(tuple(cards), tuple(rules), tuple(logs), tuple(problems))


def _valid(
    kind: str, items: list[Any], check: Callable[[int, Any], T | str], problems: list[Finding]
) -> list[T]:
    """The items `check` accepts; a problem for each it answers with what is wrong."""
    valid = []
    for index, item in enumerate(items, start=1):
        found = check(index, item)
        if isinstance(found, str):
            rel = item.get("path") if isinstance(item, dict) else None
            where = f"{kind} {index}" + (f" ({_shown(rel)})" if isinstance(rel, str) else "")
            problems.append(problem(where, found))
        else:
            valid.append(found)
    return valid


def _header_problems(data: dict[str, Any]) -> list[Finding]:
    problems = []
    if data.get("format") != FORMAT:
        problems.append(problem("format", f"is {data.get('format')!r}, expected {FORMAT!r}"))
    version = data.get("version")
    if version != VERSION:
        message = f"{version!r} is not supported (this cardvault reads version {VERSION})"
        problems.append(problem("version", message))
    return problems


def _rules(raw: Any, problems: list[Finding]) -> list[str]:
    """The rule lines that can go into AGENTS.md's managed section as they are (one line, no
    cardvault marker: either would move the section's bounds)."""
    if not isinstance(raw, list):
        problems.append(problem("rules", "must be a list of text lines"))
        return []
    from cardvault.vault.sections import without_markers

    rules = []
    for number, rule in enumerate(raw, start=1):
        where = f"rule {number}"
        if not isinstance(rule, str):
            problems.append(problem(where, "must be text"))
        elif len(rule.strip().splitlines()) > 1:
            problems.append(problem(where, "must be one line"))
        elif without_markers(rule) != rule:
            problems.append(problem(where, "holds a cardvault section marker"))
        elif len(rule) > MAX_RULE_CHARS or text_problem(rule) is not None:
            problems.append(problem(where, f"must be text of at most {MAX_RULE_CHARS} characters"))
        elif rule.strip():
            rules.append(rule.strip())
    return rules


def _items(
    data: dict[str, Any], key: str, problems: list[Finding], required: bool = True
) -> list[Any]:
    value = data.get(key)
    if value is None and not required:
        return []
    if not isinstance(value, list):
        problems.append(problem(key, "missing" if value is None else "must be a list"))
        return []
    return value


def _card(index: int, item: Any, vault: Vault) -> ImportedCard | str:
    if not isinstance(item, dict):
        return "must be an object with 'path' and 'text'"
    rel, text = item.get("path"), item.get("text")
    if not isinstance(text, str):
        return "missing 'text' (the card file's exact text)"
    if not isinstance(rel, str) or not CARD_PATH.match(rel) or not _stays_inside(vault, rel):
        return "'path' must be memory/cards/<slug>.md or memory/archive/<slug>.md"
    if (trouble := text_problem(text)) is not None:
        return _at_line(*trouble)
    try:
        ensure_within(text, "card", vault.config.max_entry_bytes)
    except CardFormatError as exc:
        return exc.message
    try:
        card = parse_card(text, vault.root / rel)
    except CardvaultError as exc:
        return _at_line(f"bad frontmatter: {exc.message}", exc.line)
    found = schema_problems(card.meta, vault.config.categories)
    return "; ".join(message for _, message in found) if found else ImportedCard(index, rel, card)


def _log(index: int, item: Any) -> ImportedLog | str:
    rel = item.get("path") if isinstance(item, dict) else None
    text = item.get("text") if isinstance(item, dict) else None
    if not isinstance(rel, str) or not is_log_path(rel, text if isinstance(text, str) else ""):
        return "'path' must be a daily log's: memory/YYYY-MM-DD.md"
    if log_day(rel.rsplit("/", 1)[-1]) is None:
        return "'path' is not a real date"
    if not isinstance(text, str):
        return "missing 'text'"
    if (trouble := text_problem(text)) is not None:
        return _at_line(*trouble)
    return ImportedLog(index, rel, text)


def _shown(value: str) -> str:
    """A path from the file as a message shows it: escaped, and cut when long."""
    text = value if value.isprintable() else repr(value)[1:-1]
    return text if len(text) <= 100 else text[:97] + "..."


def _at_line(message: str, line: int | None) -> str:
    return f"line {line}: {message}" if line else message


def _stays_inside(vault: Vault, rel: str) -> bool:
    try:
        confined(vault.root, vault.root / rel)
    except UnsafePathError:
        return False
    return True


def export_target(vault: Vault, path: Path) -> Path:
    """`path`, unless it is inside the vault (UnsafePathError): a file there would be written
    past the write door, and `--force` would overwrite a card. Both the path as given and where
    it resolves count, so a vault folder that is a symlink to outside is still inside."""
    target = path.resolve()
    root = vault.root.resolve()
    given = Path(os.path.abspath(path))
    if any(where == base or base in where.parents
           for where in (target, given) for base in (root, vault.root.absolute())):  # fmt: skip
        raise UnsafePathError(
            "is inside the vault; write the export somewhere else (or '-' for stdout)", path
        )
    return path
