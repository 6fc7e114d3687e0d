"""`cardvault context`: the items of one vault for the session-start pack (docs/agents.md).

In priority order: the pending-review line, the learned rules, MEMORY.md, the log entries not
yet distilled, then the best `CARD_CANDIDATES` cards. A card packed only to fill the budget is
no use of it (`Item.for_task`): filler counted as use would keep itself from the archive. A
failing search never stops a session: ranking falls back to value and says so in `notices`.
"""

from __future__ import annotations

import datetime as dt
import re
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardvault.context.pack import Decision, Item, quoted
from cardvault.context.value import card_age, card_value
from cardvault.errors import CardvaultError
from cardvault.vault.card import Card
from cardvault.vault.decisions import QUEUE_FILE, pending_items, read_queue
from cardvault.vault.layout import Vault
from cardvault.vault.read import VaultSnapshot, read_vault
from cardvault.vault.rules import Rule
from cardvault.vault.sections import get_section

if TYPE_CHECKING:
    from cardvault.search.engine import KeywordQuery, Searcher, SearchResult

CARD_CANDIDATES = 50
SEARCH_DEPTH = 20
RELEVANCE_WEIGHT = 0.75
VALUE_WEIGHT = 0.25
_COMMENT_LINE = re.compile(r"^\s*<!--.*-->\s*$")


@dataclass(frozen=True)
class Sources:
    """What a pack is made from: MEMORY.md's text (None when absent), the rules and the cards."""

    root: Path
    memory: str | None
    rules: tuple[Rule, ...]
    cards: tuple[Card, ...]
    problems: tuple[str, ...] = ()
    review_pending: int = 0

    def rel(self, path: Path) -> str:
        """`path` relative to the vault root."""
        return self._vault.rel(path)

    @cached_property
    def _vault(self) -> Vault:
        return Vault(self.root)


@dataclass(frozen=True)
class Relevance:
    """Search ranks of cards for the task (vault-relative path -> 0-based rank among the strong
    hits), the fresh log entries it found, and the mode."""

    ranks: dict[str, int]
    mode: str  # "hybrid", "keyword", "semantic", or "none" when no search ran
    notices: tuple[str, ...] = ()
    fresh: tuple[Item, ...] = ()  # log entries not yet distilled it found strongly


@dataclass(frozen=True)
class ContextPack:
    """The pack: its text and size, every decision with its reason, and how it was ranked."""

    task: str | None
    budget: int
    text: str
    tokens: int
    decisions: tuple[Decision, ...]
    listed: tuple[str, ...]  # names shown under "Not included"
    ranking: str
    not_considered: int = 0
    notices: tuple[str, ...] = field(default=())

    @property
    def included(self) -> list[Decision]:
        return [d for d in self.decisions if d.included]

    @property
    def omitted(self) -> list[Decision]:
        return [d for d in self.decisions if not d.included]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: the exact text plus what is in and out, and why."""

        def row(d: Decision) -> dict[str, Any]:
            item = d.item
            return {"kind": item.kind, "name": item.name, "source": item.source,
                    "tier": item.tier, "vault": item.vault,
                    "tokens": item.tokens, "score": round(item.score, 4),
                    "ranked": item.why, "reason": d.reason}  # fmt: skip

        return {
            "task": self.task, "budget": self.budget, "tokens": self.tokens,
            "ranking": self.ranking, "text": self.text,
            "included": [row(d) for d in self.included],
            "omitted": [row(d) for d in self.omitted],
            "not_considered": self.not_considered, "notices": list(self.notices),
        }  # fmt: skip


def read_sources(vault: Vault) -> Sources:
    """MEMORY.md, the learned rules and the live cards, from the one read path (broken files
    are skipped and named)."""
    return sources_of(read_vault(vault))


def sources_of(snapshot: VaultSnapshot) -> Sources:
    """The pack's sources from a snapshot already read."""
    problems = [f"skipped {problem}" for problem in snapshot.problems]
    if snapshot.rule_problem is not None:
        problems.append(f"rules not read: {snapshot.rule_problem}")
    cards = tuple(c.card for c in snapshot.live if c.card.status != "archived")
    memory = _current(snapshot)
    try:
        waiting = len(pending_items(read_queue(snapshot.vault.root)))
    except CardvaultError as exc:
        problems.append(f"skipped {exc}")
        waiting = 0
    return Sources(snapshot.vault.root, memory, snapshot.rules, cards, tuple(problems), waiting)


def _current(snapshot: VaultSnapshot) -> str | None:
    """MEMORY.md's text with its categories table as the cards stand now (maintenance writes
    the table; a vault of new or imported cards has the right one before it runs). A file
    without the section, or whose markers are broken, is shown as it is."""
    from cardvault.vault.memory_table import SECTION, with_table

    memory = snapshot.memory
    if memory is None:
        return None
    budget = snapshot.vault.config.memory_byte_budget
    try:
        if get_section(memory.text, SECTION) is None:
            return memory.text
        return with_table(memory.text, snapshot.vault, snapshot.live, budget)[0]
    except CardvaultError:
        return memory.text


def review_item(sources: Sources, command: str = "cardvault review") -> Item | None:
    """The one line saying how many memory decisions wait (None when none do), and the
    command that lists them."""
    count = sources.review_pending
    if not count:
        return None
    line = f"{count} memory decision{'s' if count != 1 else ''} pending: {command}"
    return Item("review", "review queue", QUEUE_FILE, line, "decisions waiting for an answer", 1.0)


def relevance_score(rank: int | None) -> float:
    """Relevance of the card at 0-based search rank `rank`: 1.0, 0.75, 0.6, ...; None: 0.0."""
    return 0.0 if rank is None else 1.0 / (1.0 + rank / 3.0)


def search_relevance(
    vault: Vault, task: str | KeywordQuery, mode: str = "hybrid", searcher: Searcher | None = None
) -> Relevance:
    """Ranks of the cards a search for `task` finds; on failure, keyword ranks without the model.
    `searcher`: a long-lived caller's warm one (else one is made for this search alone)."""
    from cardvault.search.engine import Searcher

    try:
        with nullcontext(searcher) if searcher is not None else Searcher(vault) as used:
            outcome = used.search(task, k=SEARCH_DEPTH, mode=mode)
    except Exception as exc:  # a broken search must not stop a session from starting
        fallback = keyword_relevance(vault, task)
        return Relevance(
            fallback.ranks, fallback.mode, (f"{mode} search failed ({exc})", *fallback.notices)
        )
    strong = [hit for hit in outcome.results if not hit.weak]
    cards = [hit for hit in strong if hit.kind != "log"]
    fresh = tuple(
        _fresh_item(hit, outcome.mode)
        for hit in strong
        if hit.kind == "log" and hit.score >= outcome.floor
    )
    ranks = {hit.path: rank for rank, hit in enumerate(cards)}
    return Relevance(ranks, outcome.mode, outcome.notices, fresh)


def _fresh_item(hit: SearchResult, mode: str) -> Item:
    ref = hit.source or hit.path
    block = quoted(ref, f"- {hit.entry or ''}: {hit.snippet}")
    why = f"log entry not yet distilled, {mode} score {hit.score:.2f}"
    return Item("log", ref, hit.path, block, why, hit.score)


def keyword_relevance(vault: Vault, task: str | KeywordQuery) -> Relevance:
    """Ranks from a keyword-only search that never loads the model; none when that fails too."""
    from cardvault.search.keyword import keyword_hits

    try:
        hits = keyword_hits(vault, task, SEARCH_DEPTH)
    except Exception as exc:
        return Relevance({}, "none", (f"keyword search failed too ({exc}); ranked by value",))
    return Relevance({hit.path: rank for rank, hit in enumerate(hits)}, "keyword")


#: How far back a pack without a task looks for lessons not yet distilled (what `remember`
#: and a `Lesson:` wrote since the last `maintain`), and how many of them it takes, newest
#: first: the next session knows what the last one learned before maintenance runs.
RECENT_DAYS = 7
RECENT_LESSONS = 5


def recent_items(snapshot: VaultSnapshot, today: dt.date) -> list[Item]:
    """The newest lessons of the last `RECENT_DAYS` no card cites yet (a pack without a task:
    with one, the task's search finds the entries that matter, `Relevance.fresh`)."""
    from cardvault.maintain.lessons import lesson_lines

    cited = {source for c in snapshot.cards for source in c.card.sources}
    since = today - dt.timedelta(days=RECENT_DAYS)
    entries = [
        entry
        for log in snapshot.logs
        for entry in log.entries
        if since <= entry.day <= today and entry.has_signal and not entry.cited_in(cited)
    ]
    entries.sort(key=lambda e: (e.day, e.time, e.ordinal), reverse=True)
    items = []
    for entry in entries[:RECENT_LESSONS]:
        text = " ".join(lesson_lines(entry)) or entry.title
        title = entry.title.strip().rstrip(".")
        said = f"{title}: {text}" if title and title not in text else text  # remember's title
        line = f"- {entry.day.isoformat()} {entry.heading_time}{said}"
        why = f"lesson of {entry.day.isoformat()} not yet distilled into a card"
        items.append(
            Item("log", entry.ref, snapshot.rel(entry.path), quoted(entry.ref, line), why, 0.5)
        )
    return items


def memory_item(sources: Sources) -> Item | None:
    """MEMORY.md as one item, without its comment-only lines; None when absent or empty."""
    if sources.memory is None:
        return None
    lines = [line for line in sources.memory.splitlines() if not _COMMENT_LINE.match(line)]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    if not text:
        return None
    if not text.startswith("# "):
        text = "# MEMORY.md\n\n" + text
    block = quoted("MEMORY.md", text)
    return Item("memory", "MEMORY.md", "MEMORY.md", block, "the index, loaded every session", 1.0)


def rule_items(sources: Sources) -> list[Item]:
    """The learned rules: the lines of AGENTS.md's rules section, the record of rules. A card
    that only says `status: promoted` (one a pull brought) is no rule (maintain/promote.py)."""
    items: list[Item] = []
    for number, rule in enumerate(sources.rules, start=1):
        name = Path(rule.cites[0]).stem if rule.cites else f"AGENTS.md rule {number}"
        items.append(Item("rule", name, "AGENTS.md", rule.text, "learned rule in AGENTS.md", 1.0))
    return items


def card_items(
    sources: Sources, relevance: Relevance | None, today: dt.date
) -> tuple[list[Item], int]:
    """The best `CARD_CANDIDATES` cards as items, best first, and how many were not considered
    (every card is scored; only the candidates are described).
    """
    scored: list[tuple[float, str, Card]] = []
    for card in sources.cards:
        rel = sources.rel(card.path)
        score = card_value(card, today).score
        if relevance is not None:
            found = relevance_score(relevance.ranks.get(rel))
            score = RELEVANCE_WEIGHT * found + VALUE_WEIGHT * score
        scored.append((score, rel, card))
    scored.sort(key=lambda s: (-s[0], s[1]))
    items = [
        _card_item(card, rel, score, relevance, today)
        for score, rel, card in scored[:CARD_CANDIDATES]
    ]
    return items, max(0, len(scored) - CARD_CANDIDATES)


def _card_item(
    card: Card, rel: str, score: float, relevance: Relevance | None, today: dt.date
) -> Item:
    """A candidate card as an item, with how it was ranked in words."""
    value = card_value(card, today)
    found_for_task = relevance is None or rel in relevance.ranks
    if relevance is None:
        why = f"value: {value.explain()}"
    else:
        rank = relevance.ranks.get(rel)
        found = relevance_score(rank)
        where = f"{relevance.mode} rank {rank + 1}" if rank is not None else "not a search hit"
        why = (
            f"{RELEVANCE_WEIGHT} × relevance {found:.2f} ({where}) + {VALUE_WEIGHT} × value "
            f"{value.score:.2f} ({value.explain()}) = {score:.3f}"
        )
    block = card_block(card, rel, today)
    return Item("card", card.slug, rel, block, why, score, for_task=found_for_task)


def card_block(card: Card, rel: str, today: dt.date | None = None) -> str:
    """A card as the pack quotes it: topic heading (on one line: YAML can hold a newline that
    would start a heading), its age as of `today`, body.
    """
    topic = " ".join(card.topic.split())
    age = f"*{card_age(card, today)}*\n\n" if today is not None else ""
    return quoted(rel, f"## {topic}\n\n{age}{card.body.strip()}".rstrip())
