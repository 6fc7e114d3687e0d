"""`cardvault check`: every rule a vault must keep, as `path:line: message` findings.

Errors break the format (exit 1); warnings are budgets and hygiene (exit 0). `plan_fixes` returns
the mechanical repairs (tag spelling, CRLF line endings, a missing final newline) as new file
texts; `check/fix.py` writes them through the one door (edits/door.py) in one commit.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from cardvault.errors import CardvaultError, UnsafePathError
from cardvault.vault.card import Card, parse_card, schema_problems, update_card_text
from cardvault.vault.daily import parse_log
from cardvault.vault.files import FileText, inside, read_text
from cardvault.vault.layout import SLUG_RE, Vault, card_candidates, iter_log_paths
from cardvault.vault.slugs import tagify
from cardvault.vault.tokens import count_tokens

WIKILINK = re.compile(r"\[\[([^\]|#]+)(?:[#|][^\]]*)?\]\]")


@dataclass(frozen=True)
class Finding:
    """One breach of a vault rule."""

    path: str
    line: int
    severity: str  # "error" | "warning"
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.severity}: {self.message} [{self.code}]"

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class Fix:
    """A mechanical repair: the file's new text, given the digest of the text it was made from."""

    path: Path
    text: str
    expected: str
    what: str


@dataclass
class _Scan:
    vault: Vault
    cards: list[tuple[FileText, Card]]
    findings: list[Finding]

    def add(self, path: Path | str, line: int, severity: str, code: str, message: str) -> None:
        rel = self.vault.rel(path) if isinstance(path, Path) else path
        self.findings.append(Finding(rel, line or 1, severity, code, message))


def run_checks(vault: Vault, secrets: bool = True) -> list[Finding]:
    """All findings for the vault, sorted by path and line."""
    scan = _Scan(vault, [], [])
    for path in _card_files(vault, scan):
        _check_card_file(scan, path)
    _check_duplicate_slugs(scan)
    _check_links(scan)
    _check_logs(scan)
    _check_memory_md(scan)
    _check_conflicts(scan)
    if secrets:
        _check_secrets(scan)
    return sorted(scan.findings, key=lambda f: (f.path, f.line, f.code))


def _card_files(vault: Vault, scan: _Scan) -> Iterable[Path]:
    """Live and archived card files; those leading outside the vault are reported, not read."""
    for archived in (False, True):
        for path in card_candidates(vault, archived):
            try:
                inside(vault.root, path)
            except UnsafePathError:
                scan.add(path, 1, "error", "outside-vault", "symlink leads outside the vault")
                continue
            if path.is_file():
                yield path


def _check_card_file(scan: _Scan, path: Path) -> None:
    try:
        file = read_text(path)
        card = parse_card(file.text, path)
    except CardvaultError as exc:
        scan.add(path, exc.line or 1, "error", "unreadable", exc.message)
        return
    scan.cards.append((file, card))
    for key, message in schema_problems(card.meta, scan.vault.config.categories):
        scan.add(path, card.key_line(key), "error", "schema", message)
    if not SLUG_RE.match(path.stem):
        scan.add(
            path,
            1,
            "warning",
            "slug",
            f"file name '{path.name}' is not a lowercase-hyphenated slug",
        )
    if card.newline == "\r\n":
        scan.add(path, 1, "warning", "crlf", "CRLF line endings (--fix converts to LF)")
    tokens = count_tokens(file.text)
    budget = scan.vault.config.card_token_budget
    if tokens > budget:
        scan.add(
            path,
            card.body_line,
            "warning",
            "card-budget",
            f"card is {tokens} tokens, over the budget of {budget}",
        )
    if not card.body.strip():
        scan.add(path, card.body_line, "warning", "empty-body", "card has no body")


def _check_duplicate_slugs(scan: _Scan) -> None:
    owners: dict[str, list[Card]] = defaultdict(list)
    for _, card in scan.cards:
        owners[card.slug].append(card)
    for slug, cards in owners.items():
        if len(cards) > 1:
            places = ", ".join(scan.vault.rel(c.path) for c in cards)
            for card in cards:
                scan.add(
                    card.path,
                    1,
                    "error",
                    "duplicate-slug",
                    f"slug '{slug}' is used by several files: {places}",
                )


def _known_targets(scan: _Scan) -> set[str]:
    targets = set()
    for _, card in scan.cards:
        targets.add(card.slug)
        targets.update(card.aliases)
    return targets


def _check_links(scan: _Scan) -> None:
    targets = _known_targets(scan)
    for file, card in scan.cards:
        for match in WIKILINK.finditer(file.text):
            target = match.group(1).strip()
            if target.removesuffix(".md").split("/")[-1] not in targets:
                line = file.text.count("\n", 0, match.start()) + 1
                scan.add(card.path, line, "error", "broken-link", f"[[{target}]] links to no card")


def _check_logs(scan: _Scan) -> None:
    targets = _known_targets(scan)
    for path in iter_log_paths(scan.vault):
        try:
            file = read_text(path)
            entries = parse_log(file.text, path, scan.vault.config.signal_words)
        except CardvaultError as exc:
            scan.add(path, exc.line or 1, "error", "unreadable", exc.message)
            continue
        except ValueError:
            scan.add(path, 1, "error", "log-name", "log file name is not a valid date")
            continue
        for entry in entries:
            for slug in entry.card_links:
                if slug.removesuffix(".md").split("/")[-1] not in targets:
                    line = _line_of(file.text, f"card: {slug}", entry.line)
                    scan.add(path, line, "warning", "broken-link", f"→ card: {slug} names no card")


def _line_of(text: str, needle: str, after_line: int) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if number >= after_line and needle in line:
            return number
    return after_line


def _check_conflicts(scan: _Scan) -> None:
    """Live cards that contradict each other ("always use X" / "never use X"), lexically."""
    from cardvault.maintain.contradict import conflicting_pairs

    archive = scan.vault.archive_dir
    live = [(c.slug, c.body) for _, c in scan.cards if archive not in c.path.parents]
    cards = {c.slug: (file, c) for file, c in scan.cards}
    for left, right, found in conflicting_pairs(live):
        for (slug, mine), (other, theirs) in (
            ((left, found.first), (right, found.second)),
            ((right, found.second), (left, found.first)),
        ):
            file, card = cards[slug]
            line = _line_of(file.text, mine.sentence[:40], card.body_line)
            where = scan.vault.rel(cards[other][1].path)
            message = f'contradicts {where}: "{mine.sentence}" vs "{theirs.sentence}"'
            scan.add(card.path, line, "warning", "conflict", message)


def _check_memory_md(scan: _Scan) -> None:
    path = scan.vault.memory_md
    if not path.exists():
        scan.add(
            path, 1, "warning", "missing", "MEMORY.md is missing (the index loaded every session)"
        )
        return
    size = path.stat().st_size
    budget = scan.vault.config.memory_byte_budget
    if size > budget:
        scan.add(
            path,
            1,
            "error",
            "memory-budget",
            f"MEMORY.md is {size} bytes, over its budget of {budget}",
        )


def _check_secrets(scan: _Scan) -> None:
    from cardvault import guard

    files: list[tuple[Path, str]] = [(card.path, file.text) for file, card in scan.cards]
    for path in iter_log_paths(scan.vault):
        try:
            files.append((path, read_text(path).text))
        except CardvaultError:
            continue
    for extra in (scan.vault.memory_md, scan.vault.agents_md):
        if extra.exists():
            try:
                files.append((extra, read_text(extra).text))
            except CardvaultError as exc:
                scan.add(extra, exc.line or 1, "error", "unreadable", exc.message)
    for path, text in files:
        for found in guard.scan_text(text):
            message = f"possible secret: {found.kind} (value not shown); remove it from the file"
            scan.add(path, found.line, "error", "secret", message)


def plan_fixes(vault: Vault) -> list[Fix]:
    """Mechanical repairs: tag spelling, CRLF to LF, a final newline. Pure: writes nothing."""
    fixes = []
    for path in _card_files(vault, _Scan(vault, [], [])):
        try:
            file = read_text(path)
            card = parse_card(file.text, path)
        except CardvaultError:
            continue
        fix = _card_fix(file, card)
        if fix is not None:
            fixes.append(fix)
    return fixes


def _card_fix(file: FileText, card: Card) -> Fix | None:
    text, what = file.text, list[str]()
    if card.newline == "\r\n":
        text, what = text.replace("\r\n", "\n"), [*what, "CRLF to LF"]
    tags = card.meta.get("tags")
    if isinstance(tags, str):
        tags = tags.split(",")
    if isinstance(tags, list):
        fixed = list(dict.fromkeys(t for t in (tagify(str(x)) for x in tags) if t))
        if fixed != card.meta.get("tags"):
            text = update_card_text(text, {"tags": fixed}, path=file.path)
            what.append("tags")
    if text and not text.endswith("\n"):
        text, what = text + "\n", [*what, "final newline"]
    return Fix(file.path, text, file.digest, ", ".join(what)) if what else None
