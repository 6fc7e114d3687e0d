"""The vault read once: every card, log entry, AGENTS.md rule and MEMORY.md, over the catalog.

`read_vault` is the one read path. Every service — check, list, stats, graph, context, forget,
export, import, maintain, capture — takes what it needs from the `VaultSnapshot` it returns, so
they all see the same cards, the same rules and the same links. A file that cannot be read or
parsed is a `Problem` in the snapshot, never an exception that stops the run.

Reading goes through the catalog (catalog.py): files whose stat is unchanged are not opened,
changed files are parsed only when their digest changed. `snapshot.parsed` counts the files
parsed by this read (0 on an unchanged vault).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import logging
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from cardvault.errors import CardvaultError
from cardvault.vault.card import Card
from cardvault.vault.catalog import Catalog, Row, fingerprint, racy
from cardvault.vault.daily import LogEntry
from cardvault.vault.files import FileText, decode, digest_bytes, digest_text, read_text
from cardvault.vault.layout import FileStat, Vault, walk
from cardvault.vault.links import WikiLink, link_key, name_table, wiki_links
from cardvault.vault.records import (
    RECORD_VERSION,
    RecordError,
    card_record,
    decode_card,
    decode_log,
    dumps,
    error_record,
    loads,
    loads_many,
    log_record,
)
from cardvault.vault.rules import Rule, read_rules
from cardvault.vault.tokens import count_tokens

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CardFile:
    """A card and the exact text (and digest) it was parsed from."""

    file: FileText
    card: Card
    archived: bool
    counted: int | None = field(default=None, compare=False, repr=False)
    linked: tuple[WikiLink, ...] | None = field(default=None, compare=False, repr=False)

    @property
    def slug(self) -> str:
        return self.card.slug

    @property
    def path(self) -> Path:
        return self.file.path

    @property
    def tokens(self) -> int:
        """The card file's size under the token rule."""
        return self.counted if self.counted is not None else count_tokens(self.file.text)

    @property
    def links(self) -> tuple[WikiLink, ...]:
        """Its wiki-links, frontmatter included."""
        return self.linked if self.linked is not None else wiki_links(self.file.text)


@dataclass(frozen=True)
class LogFile:
    """A daily log and its entries."""

    file: FileText
    entries: tuple[LogEntry, ...]


@dataclass(frozen=True)
class Problem:
    """A file the read path could not use: where, what kind of trouble, and the message."""

    rel: str
    line: int
    code: str  # "unreadable" | "outside-vault" | "log-name"
    message: str

    def __str__(self) -> str:
        return f"{self.rel}:{self.line}: {self.message}"


@dataclass(frozen=True)
class VaultSnapshot:
    """Everything in the vault's Markdown as of one read. Treat as read-only."""

    vault: Vault
    cards: tuple[CardFile, ...]  # live first, then archived; path order in each
    logs: tuple[LogFile, ...]  # oldest first
    memory: FileText | None
    agents: FileText | None
    problems: tuple[Problem, ...] = ()
    parsed: int = 0
    notices: tuple[str, ...] = ()
    stamps: Mapping[str, FileStat] = field(default_factory=dict, compare=False, repr=False)
    digests: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    #: Each agent's hot memory (memory/agents/<name>.md) by agent name.
    hot: Mapping[str, FileText] = field(default_factory=dict)

    @cached_property
    def live(self) -> tuple[CardFile, ...]:
        """Cards under memory/cards."""
        return tuple(c for c in self.cards if not c.archived)

    @cached_property
    def archived(self) -> tuple[CardFile, ...]:
        """Cards under memory/archive."""
        return tuple(c for c in self.cards if c.archived)

    @cached_property
    def entries(self) -> tuple[LogEntry, ...]:
        """Every log entry, in file order, oldest log first."""
        return tuple(entry for log in self.logs for entry in log.entries)

    @cached_property
    def names(self) -> dict[str, str]:
        """Card name (slug or alias) -> slug, over live and archived cards; slugs win."""
        return name_table((c.slug, c.card.aliases) for c in self.cards)

    @cached_property
    def _by_slug(self) -> dict[str, CardFile]:
        found: dict[str, CardFile] = {}
        for card in self.cards:  # live before archived: a live card wins its slug
            found.setdefault(card.slug, card)
        return found

    def card(self, name: str) -> CardFile | None:
        """The card a name (slug, alias, `[[link]]` target) points at, live first."""
        slug = self.names.get(link_key(name))
        return None if slug is None else self._by_slug.get(slug)

    def rel(self, path: Path) -> str:
        """`path` relative to the vault root."""
        return self.vault.rel(path)

    @property
    def rules(self) -> tuple[Rule, ...]:
        """AGENTS.md's learned rules (none when its rules section is broken: see rule_problem)."""
        return self._rules[0]

    @property
    def rule_problem(self) -> CardvaultError | None:
        """Why AGENTS.md's rules section cannot be read, if it cannot."""
        return self._rules[1]

    @cached_property
    def _rules(self) -> tuple[tuple[Rule, ...], CardvaultError | None]:
        text = self.agents.text if self.agents else None
        try:
            return tuple(read_rules(text, self.vault.agents_md)), None
        except CardvaultError as exc:
            return (), exc


def read_vault(vault: Vault, verify: bool = False) -> VaultSnapshot:
    """Read the vault through its catalog (see the module docstring).

    With `verify` (every command that plans a write passes it), each catalog row's text is
    also checked against the digest it is stored under, so a damaged or tampered catalog can
    never feed a change: such rows are parsed again from their files. Costs ~40 ms at 10,000
    cards, which read-only commands do not pay.
    """
    start = time.perf_counter()
    with _collector_paused():
        snapshot = _read(vault, verify)
    log.debug(
        "read %s: %d files, %d parsed, %.3f s",
        vault.root, len(snapshot.stamps), snapshot.parsed, time.perf_counter() - start,
    )  # fmt: skip
    return snapshot


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Keep Python's cyclic garbage collector off the snapshot: paused while it is built (it
    would scan the tens of thousands of new objects several times over: half the read time at
    10,000 cards), then the objects are moved out of its reach (`gc.freeze`), or the first
    collection after would scan them all once more. None of them forms a cycle; reference
    counting still frees them when the snapshot goes."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _read(vault: Vault, verify: bool) -> VaultSnapshot:
    found = walk(vault)
    problems = [
        Problem(rel, 1, "outside-vault", "symlink leads outside the vault") for rel in found.outside
    ]
    with Catalog.open(vault.cache_dir, _fingerprint(vault)) as catalog:
        known = catalog.rows()
        if verify:
            known = {rel: row for rel, row in known.items() if _intact(row)}
        rows, changed, parsed = _refresh(vault, found.files, known)
        cards, logs, damaged = _decode(found.files, rows, problems)
        if damaged:  # rows that no longer decode: parse those files again
            again = {rel: found.files[rel] for rel in damaged}
            fixed, redone, count = _refresh(vault, again, {})
            more_cards, more_logs, _ = _decode(found.files, fixed, problems)
            cards, logs = _merged(cards, more_cards), _merged(logs, more_logs)
            rows.update(fixed)
            changed += redone
            parsed += count
        catalog.store(changed, [rel for rel in known if rel not in found.files])
        notices = tuple(catalog.notices)
    memory, agents = (_optional(vault, p, problems) for p in (vault.memory_md, vault.agents_md))
    hot = _hot_memories(vault, problems)
    return VaultSnapshot(
        vault=vault, cards=cards, logs=logs, memory=memory, agents=agents,
        problems=tuple(sorted(problems, key=lambda p: (p.rel, p.line))), parsed=parsed,
        notices=notices, stamps=found.files, digests={rel: r.digest for rel, r in rows.items()},
        hot=hot,
    )  # fmt: skip


def read_card(path: Path) -> Card:
    """One card file read and parsed directly, without the catalog (tests, one-off tools)."""
    from cardvault.vault.card import parse_card

    return parse_card(read_text(path).text, path)


def find_card(vault: Vault, name: str) -> CardFile:
    """The card whose slug or alias is `name` (live first, then archived)."""
    from cardvault.errors import NotFoundError

    found = read_vault(vault).card(name)
    if found is None:
        raise NotFoundError(f"no card with slug or alias '{name}'")
    return found


def _intact(row: Row) -> bool:
    """Whether a row's text is the text of the bytes its digest names."""
    return row.text is None or digest_text(row.text) == row.digest


def remembered(
    snapshot: VaultSnapshot,
    name: str,
    payloads: Mapping[str, Any],
    compute: Callable[[Any], Any],
) -> dict[str, Any]:
    """`compute(payload)` for each file (by relative path), kept in the catalog as fact `name`
    under the file's digest: only files that changed since are computed again. Values must be
    JSON-able. Used for per-file work that is slow at 10,000 files (check findings, secret scans).
    """
    digests = {rel: snapshot.digests[rel] for rel in payloads if rel in snapshot.digests}
    with Catalog.open(snapshot.vault.cache_dir, _fingerprint(snapshot.vault)) as catalog:
        values = catalog.facts(name, digests)
        missing = {rel: payload for rel, payload in payloads.items() if rel not in values}
        fresh = {rel: compute(payload) for rel, payload in missing.items()}
        catalog.store_facts(
            name, {rel: (digests[rel], v) for rel, v in fresh.items() if rel in digests}
        )
    return {**values, **fresh}


@dataclass(frozen=True)
class FilesRead:
    """Some files of the vault as the read path has them: parsed cards and logs, the files that
    could not be used, and each file's digest (all by relative path)."""

    cards: dict[str, CardFile]
    logs: dict[str, LogFile]
    problems: dict[str, Problem]
    digests: dict[str, str]


def read_files(vault: Vault, files: Mapping[str, FileStat]) -> FilesRead:
    """The given files (stat-ed by `walk` or `files_at`) through the catalog: what changed is
    parsed and kept for every other command, the rest comes from the catalog. For a caller that
    needs a few files, not the snapshot (the search index's sync)."""
    problems: list[Problem] = []
    with _collector_paused(), Catalog.open(vault.cache_dir, _fingerprint(vault)) as catalog:
        rows, changed, _ = _refresh(vault, files, catalog.rows(files))
        cards, logs, damaged = _decode(files, rows, problems)
        if damaged:
            again, redone, _ = _refresh(vault, {rel: files[rel] for rel in damaged}, {})
            more_cards, more_logs, _ = _decode(files, again, problems)
            cards, logs = cards + more_cards, logs + more_logs
            rows.update(again)
            changed += redone
        catalog.store(changed, [])
    return FilesRead(
        cards={vault.rel(card.path): card for card in cards},
        logs={vault.rel(log.file.path): log for log in logs},
        problems={problem.rel: problem for problem in problems},
        digests={rel: row.digest for rel, row in rows.items()},
    )


def _fingerprint(vault: Vault) -> str:
    """What every record depends on besides its file: the settings, and cardvault's own code
    (so an upgrade, or a developer's edit, re-reads the vault rather than trusting old records)."""
    settings = dataclasses.replace(vault.config, source=None)
    return fingerprint(RECORD_VERSION, settings, _code_stamp())


@functools.cache
def _code_stamp() -> str:
    from cardvault import __version__

    package = Path(__file__).resolve().parents[1]
    stamps = [__version__]
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        stamps.append(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}")
    return "\n".join(stamps)


def _refresh(
    vault: Vault, files: Mapping[str, FileStat], known: Mapping[str, Row]
) -> tuple[dict[str, Row], list[Row], int]:
    """The current row of every file, the rows to store, and how many files were parsed."""
    rows: dict[str, Row] = {}
    changed: list[Row] = []
    parsed = 0
    for rel, stat in files.items():
        row = known.get(rel)
        if row is not None and not row.racy and (row.size, row.mtime_ns, row.kind) == (
            stat.size, stat.mtime_ns, stat.kind,
        ):  # fmt: skip
            rows[rel] = row
            continue
        try:
            data = stat.path.read_bytes()
        except FileNotFoundError:
            continue  # removed since the walk
        except OSError as exc:
            data = f"cannot read: {exc.strerror}".encode()
            unreadable = True
        else:
            unreadable = False
        digest = digest_bytes(data)
        keep = row is not None and row.digest == digest and row.kind == stat.kind
        if row is not None and keep:
            text, stored = row.text, row.record
        else:
            text, record = _parse(vault, stat, data, unreadable)
            stored = dumps(record)
            parsed += 1
        fresh = Row(
            rel, stat.kind, stat.size, stat.mtime_ns, digest, racy(stat.mtime_ns), text, stored
        )
        rows[rel] = fresh
        if fresh != row:
            changed.append(fresh)
    return rows, changed, parsed


def _parse(
    vault: Vault, stat: FileStat, data: bytes, unreadable: bool
) -> tuple[str | None, dict[str, Any]]:
    if unreadable:
        return None, error_record(CardvaultError(data.decode(), stat.path))
    try:
        text = decode(data, stat.path)
    except CardvaultError as exc:
        return None, error_record(exc)
    if stat.kind == "log":
        return text, log_record(text, stat.path, vault.config.signal_words)
    return text, card_record(text, stat.path)


def _decode(
    files: Mapping[str, FileStat], rows: Mapping[str, Row], problems: list[Problem]
) -> tuple[tuple[CardFile, ...], tuple[LogFile, ...], list[str]]:
    """Cards (live first) and logs from their rows, in path order, and the rels of rows that
    could not be decoded."""
    cards: list[CardFile] = []
    logs: list[LogFile] = []
    damaged: list[str] = []
    ordered = list(rows.values())
    try:
        records = loads_many([row.record for row in ordered])
    except RecordError:
        records = [_loads_or_none(row.record) for row in ordered]
    for row, record in zip(ordered, records, strict=True):
        stat = files[row.rel]
        try:
            if "error" in record:
                error = record["error"]
                line, code = int(error["line"]), str(error["code"])
                problems.append(Problem(row.rel, line, code, str(error["message"])))
                continue
            path = Path(stat.abspath)
            file = FileText(path, row.text, row.digest)  # type: ignore[arg-type]
            if stat.kind == "log":
                logs.append(LogFile(file, decode_log(record, path)))
            else:
                card, tokens, links = decode_card(record, file.text, path)
                cards.append(CardFile(file, card, stat.kind == "archived", tokens, links))
        except (KeyError, TypeError, ValueError, CardvaultError):
            damaged.append(row.rel)
    cards.sort(key=lambda c: c.archived)
    return tuple(cards), tuple(logs), damaged


def _merged(items: tuple[Any, ...], more: tuple[Any, ...]) -> tuple[Any, ...]:
    """Two path-ordered runs of cards or logs as one (live cards before archived ones)."""
    if not more:
        return items
    joined = sorted([*items, *more], key=lambda item: str(item.file.path))
    return tuple(sorted(joined, key=lambda item: getattr(item, "archived", False)))


def _loads_or_none(stored: str) -> Any:
    try:
        return loads(stored)
    except RecordError:
        return None  # TypeError on use: the row counts as damaged


def _hot_memories(vault: Vault, problems: list[Problem]) -> dict[str, FileText]:
    """memory/agents/<name>.md by agent name (small files, read whole on every read)."""
    try:
        names = sorted(e.name for e in os.scandir(vault.agents_dir) if e.name.endswith(".md"))
    except OSError:
        return {}
    found: dict[str, FileText] = {}
    for name in names:
        file = _optional(vault, vault.agents_dir / name, problems)
        if file is not None:
            found[name[: -len(".md")]] = file
    return found


def _optional(vault: Vault, path: Path, problems: list[Problem]) -> FileText | None:
    if not path.is_file():
        return None
    try:
        return read_text(path)
    except CardvaultError as exc:
        problems.append(Problem(vault.rel(path), exc.line or 1, "unreadable", exc.message))
        return None
