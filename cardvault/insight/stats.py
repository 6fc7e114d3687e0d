"""`cardvault stats`: what a vault holds, measured against its budgets (`VaultStats` holds every
figure). It reads the vault once; it never writes and never loads the embedding model.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from cardvault import history
from cardvault.errors import CardvaultError
from cardvault.insight.graph import sorted_counts
from cardvault.scopes.tiers import TierPart, tier_parts
from cardvault.search.freshness import IndexFreshness, index_freshness
from cardvault.search.vectors import unread_languages, unread_notice
from cardvault.vault.decisions import pending_items, read_queue
from cardvault.vault.layout import Vault
from cardvault.vault.lognames import log_day
from cardvault.vault.read import VaultSnapshot, read_vault

MAINTENANCE_PREFIX = "maintain:"


@dataclass(frozen=True)
class CardSize:
    """One card's size in tokens."""

    slug: str
    path: str
    tokens: int


@dataclass(frozen=True)
class LogStats:
    """Daily logs: the days logged, entries, entries with a signal, and the undistilled ones."""

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
    tiers: tuple[TierPart, ...] = ()  # HOT, WARM, COLD parts against their limits
    review_pending: int = 0  # memory decisions waiting in memory/review.jsonl
    #: live cards in each language the search model does not read (search/vectors.py)
    unread_languages: dict[str, int] = field(default_factory=dict)
    unread_notice: str | None = None  # the line that says so

    @property
    def total_tokens(self) -> int:
        return sum(size.tokens for size in self.card_sizes)

    @property
    def over_budget(self) -> tuple[CardSize, ...]:
        return tuple(s for s in self.card_sizes if s.tokens > self.card_token_budget)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for `--json` (sizes as a list, derived totals included). Built field by
        field: `dataclasses.asdict` deep-copies 10,000 card sizes (a quarter of the command)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["card_sizes"] = [vars(size) for size in self.card_sizes]
        data["logs"] = asdict(self.logs)
        data["index"] = asdict(self.index)
        data["last_maintenance"] = asdict(self.last_maintenance) if self.last_maintenance else None
        data["total_tokens"] = self.total_tokens
        data["over_budget"] = [s.slug for s in self.over_budget]
        data["index"]["fresh"] = self.index.fresh
        data["tiers"] = [part.to_dict() for part in self.tiers]
        return data


def vault_stats(vault: Vault, snapshot: VaultSnapshot | None = None) -> VaultStats:
    """Measure `vault` (see the module docstring), from `snapshot` when the caller has read it
    already (`cardvault view` reads once for the stats, the graph and the cards)."""
    snapshot = snapshot if snapshot is not None else read_vault(vault)
    live = [c.card for c in snapshot.live]
    problems = [str(p) for p in snapshot.problems]
    if snapshot.rule_problem is not None:
        problems.append(str(snapshot.rule_problem))
    cited = {src for card in snapshot.cards for src in card.card.sources}
    broken_archived = sum(1 for p in snapshot.problems if p.path.startswith("memory/archive/"))
    review_pending = _review_pending(vault, problems)
    unread = unread_languages(vault, live)
    return VaultStats(
        cards=len(live),
        by_category=sorted_counts(Counter(c.category or "(none)" for c in live)),
        by_status=sorted_counts(Counter(c.status for c in live)),
        tags=sorted_counts(Counter(t for c in live for t in c.tags)),
        card_sizes=_card_sizes(snapshot),
        card_token_budget=vault.config.card_token_budget,
        memory_md_bytes=len(snapshot.memory.text.encode("utf-8")) if snapshot.memory else None,
        memory_byte_budget=vault.config.memory_byte_budget,
        logs=_log_stats(snapshot, cited),
        promoted=sum(1 for c in live if c.status == "promoted"),
        rules=len(snapshot.rules),
        archived=len(snapshot.archived) + broken_archived,
        last_maintenance=history.last_commit_with_subject(vault, MAINTENANCE_PREFIX),
        index=index_freshness(vault, snapshot.stamps, snapshot.digests),
        problems=tuple(problems),
        tiers=tuple(tier_parts(snapshot)),
        review_pending=review_pending,
        unread_languages=unread,
        unread_notice=unread_notice(vault, unread),
    )


def _review_pending(vault: Vault, problems: list[str]) -> int:
    """Decisions pending in the review queue (an unreadable queue is a problem, counted 0)."""
    try:
        return len(pending_items(read_queue(vault.root)))
    except CardvaultError as exc:
        problems.append(str(exc))
        return 0


def _card_sizes(snapshot: VaultSnapshot) -> tuple[CardSize, ...]:
    sizes = [CardSize(c.slug, snapshot.rel(c.path), c.tokens) for c in snapshot.live]
    return tuple(sorted(sizes, key=lambda s: (-s.tokens, s.slug)))


def _log_stats(snapshot: VaultSnapshot, cited: set[str]) -> LogStats:
    entries = snapshot.entries
    found = (log_day(log.file.path.name) for log in snapshot.logs)
    days = sorted({day for day in found if day is not None})  # a day may have several logs
    signalled = [e for e in entries if e.has_signal]
    return LogStats(
        days=len(days),
        entries=len(entries),
        signal_entries=len(signalled),
        undistilled=tuple(e.ref for e in signalled if not e.cited_in(cited)),
        first_day=days[0].isoformat() if days else None,
        last_day=days[-1].isoformat() if days else None,
    )
