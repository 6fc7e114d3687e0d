"""`cardvault stats`: what a vault holds, measured against its budgets.

`vault_stats` reads the vault once and returns a `VaultStats` value: live cards by category and
status, tag counts, per-card tokens against the card budget, MEMORY.md bytes against its budget,
daily-log days and entries, the entries with a distillation signal no card cites yet, promotions,
archived cards, the memory decisions pending in the review queue, the last maintenance commit
and how far the search index is behind the files.
It reads; it never writes, and it never loads the embedding model.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from cardvault import history
from cardvault.errors import CardvaultError
from cardvault.search.freshness import IndexFreshness, index_freshness
from cardvault.vault.card import Card
from cardvault.vault.daily import LogEntry, parse_log
from cardvault.vault.decisions import pending_items, read_queue
from cardvault.vault.files import read_text
from cardvault.vault.layout import Vault, iter_log_paths, scan_cards
from cardvault.vault.sections import get_section
from cardvault.vault.tokens import count_tokens

MAINTENANCE_PREFIX = "maintain:"


@dataclass(frozen=True)
class CardSize:
    """One card's size in tokens."""

    slug: str
    path: str
    tokens: int


@dataclass(frozen=True)
class LogStats:
    """Daily logs: files (days), entries, entries with a signal, and the undistilled ones."""

    days: int
    entries: int
    signal_entries: int
    undistilled: tuple[str, ...]  # refs, e.g. "memory/2026-03-19.md#14:30"
    first_day: str | None
    last_day: str | None


@dataclass(frozen=True)
class VaultStats:
    """Every figure `cardvault stats` shows. Card counts are of live cards (memory/cards/)."""

    cards: int
    by_category: dict[str, int]
    by_status: dict[str, int]
    tags: dict[str, int]
    card_sizes: tuple[CardSize, ...]  # largest first
    card_token_budget: int
    memory_md_bytes: int | None  # None when MEMORY.md is missing
    memory_byte_budget: int
    logs: LogStats
    promoted: int
    rules: int  # rule lines in AGENTS.md's managed section
    archived: int
    last_maintenance: history.CommitInfo | None
    index: IndexFreshness
    problems: tuple[str, ...]  # files that could not be read
    review_pending: int = 0  # memory decisions waiting in memory/review.jsonl

    @property
    def total_tokens(self) -> int:
        return sum(size.tokens for size in self.card_sizes)

    @property
    def over_budget(self) -> tuple[CardSize, ...]:
        return tuple(s for s in self.card_sizes if s.tokens > self.card_token_budget)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for `--json` (sizes as a list, derived totals included)."""
        data = asdict(self)
        data["total_tokens"] = self.total_tokens
        data["over_budget"] = [s.slug for s in self.over_budget]
        data["index"]["fresh"] = self.index.fresh
        return data


def vault_stats(vault: Vault) -> VaultStats:
    """Measure `vault` (see the module docstring)."""
    live = scan_cards(vault)
    archived = scan_cards(vault, archived=True)
    problems = [str(e) for e in (*live.errors, *archived.errors)]
    cited = {src for card in (*live.cards, *archived.cards) for src in card.sources}
    logs = _log_stats(vault, cited, problems)
    memory_bytes = vault.memory_md.stat().st_size if vault.memory_md.is_file() else None
    review_pending = _review_pending(vault, problems)
    return VaultStats(
        cards=len(live.cards),
        by_category=_sorted_counts(Counter(c.category or "(none)" for c in live.cards)),
        by_status=_sorted_counts(Counter(c.status for c in live.cards)),
        tags=_sorted_counts(Counter(t for c in live.cards for t in c.tags)),
        card_sizes=_card_sizes(vault, live.cards),
        card_token_budget=vault.config.card_token_budget,
        memory_md_bytes=memory_bytes,
        memory_byte_budget=vault.config.memory_byte_budget,
        logs=logs,
        promoted=sum(1 for c in live.cards if c.status == "promoted"),
        rules=_rule_count(vault, problems),
        archived=len(archived.cards) + len(archived.errors),
        last_maintenance=history.last_commit_with_subject(vault, MAINTENANCE_PREFIX),
        index=index_freshness(vault),
        problems=tuple(problems),
        review_pending=review_pending,
    )


def _review_pending(vault: Vault, problems: list[str]) -> int:
    """Decisions pending in the review queue (an unreadable queue is a problem, counted 0)."""
    try:
        return len(pending_items(read_queue(vault.root)))
    except CardvaultError as exc:
        problems.append(str(exc))
        return 0


def _sorted_counts(counts: Counter[str]) -> dict[str, int]:
    """Counts, largest first, ties by name."""
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _card_sizes(vault: Vault, cards: list[Card]) -> tuple[CardSize, ...]:
    sizes = [CardSize(c.slug, vault.rel(c.path), count_tokens(c.text)) for c in cards]
    return tuple(sorted(sizes, key=lambda s: (-s.tokens, s.slug)))


def read_log_entries(vault: Vault, problems: list[str]) -> list[LogEntry]:
    """Every entry of every daily log; unreadable logs are added to `problems`."""
    entries: list[LogEntry] = []
    for path in iter_log_paths(vault):
        try:
            entries += parse_log(read_text(path).text, path, vault.config.signal_words)
        except CardvaultError as exc:
            problems.append(str(exc))
        except ValueError:
            problems.append(f"{vault.rel(path)}: log file name is not a valid date")
    return entries


def _log_stats(vault: Vault, cited: set[str], problems: list[str]) -> LogStats:
    entries = read_log_entries(vault, problems)
    days = sorted({e.day for e in entries} | _log_days(vault))
    signalled = [e for e in entries if e.has_signal]
    return LogStats(
        days=len(days),
        entries=len(entries),
        signal_entries=len(signalled),
        undistilled=tuple(e.ref for e in signalled if e.ref not in cited),
        first_day=days[0].isoformat() if days else None,
        last_day=days[-1].isoformat() if days else None,
    )


def _log_days(vault: Vault) -> set[dt.date]:
    days = set()
    for path in iter_log_paths(vault):
        try:
            days.add(dt.date.fromisoformat(path.stem))
        except ValueError:
            continue
    return days


def _rule_count(vault: Vault, problems: list[str]) -> int:
    if not vault.agents_md.is_file():
        return 0
    try:
        section = get_section(read_text(vault.agents_md).text, "rules", vault.agents_md)
    except CardvaultError as exc:
        problems.append(str(exc))
        return 0
    lines = (section or "").splitlines()
    return sum(1 for line in lines if line.strip() and not line.strip().startswith("<!--"))
