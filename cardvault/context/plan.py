"""The session-start pack, the one planner: every vault of the scope, the agent's hot memory
and the tiers (docs/scopes.md), inside the one token budget. `build_context` reads and searches
each vault and `plan_context` (pure) orders and packs; one vault alone is the same path.

Project first: HOT (rules, MEMORY.md, hot memory, global rules), WARM (the task's cards of
every vault by score; search ranks are interleaved project first, since each vault's best hit
is its own rank 1), COLD (archived cards, only on request). A global card promoted from this
project's own candidate card is left out.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from cardvault.context.build import (
    CARD_CANDIDATES,
    ContextPack,
    Relevance,
    Sources,
    card_block,
    card_items,
    memory_item,
    recent_items,
    review_item,
    rule_items,
    search_relevance,
    sources_of,
)
from cardvault.context.pack import Item, pack, quoted
from cardvault.context.used import record_pack
from cardvault.scopes.scope import GLOBAL, PROJECT, InScope
from cardvault.search.engine import KeywordQuery, Searcher
from cardvault.vault.layout import Vault
from cardvault.vault.read import VaultSnapshot, read_vault


@dataclass(frozen=True)
class Request:
    """What a session asks for."""

    task: str | None
    budget: int | None
    today: dt.date
    agent: str | None = None
    archived: bool = False
    mode: str = "hybrid"
    #: The search service for a vault (a long-lived process passes its warm ones); None: new.
    searcher: Callable[[Vault], Searcher] | None = None


@dataclass(frozen=True)
class Side:
    """One vault of the pack: its snapshot, the sources built from it, and the task's ranks."""

    name: str
    snapshot: VaultSnapshot
    sources: Sources
    relevance: Relevance | None


def build_context(scope: InScope, request: Request) -> ContextPack:
    """Read each vault in scope, search each for the task, and pack (see the module docstring)."""
    task = request.task.strip() if request.task and request.task.strip() else None
    read = KeywordQuery.of(task) if task else None  # once, for every vault searched
    sides = [_side(s.name, s.vault, read, request) for s in scope.vaults]
    if not sides:
        return ContextPack(task, request.budget or 1, "", 0, (), (), "none", 0, scope.notices)
    budget = sides[0].snapshot.vault.config.context_token_budget
    limit = request.budget if request.budget is not None else budget
    packed = plan_context(sides, replace(request, task=task), limit, scope.notices)
    record_pack(packed.decisions, {s.name: s.snapshot.vault for s in sides}, request.today)
    return packed


def plan_context(
    sides: list[Side], request: Request, budget: int, notices: tuple[str, ...] = ()
) -> ContextPack:
    """The pack from already-read sides (first side first). Pure."""
    if budget < 1:
        raise ValueError(f"budget must be at least 1 token, got {budget}")
    first, others = sides[0], sides[1:]
    items = [*hot_items(first, others, request), *warm_items(first, others, request)]
    if request.archived:
        items += cold_items(sides, request.today)
    packed = pack(items, budget)
    relevance = first.relevance if request.task else None
    ranking = "value" if not request.task else (relevance.mode if relevance else "none")
    found = [*notices]
    for side in sides:
        found += side.sources.problems
        if side.relevance is not None and request.task:
            found += side.relevance.notices
    not_considered = max(0, len(first.sources.cards) - CARD_CANDIDATES)
    return ContextPack(
        request.task, budget, packed.text, packed.tokens, packed.decisions, packed.listed,
        ranking, not_considered, tuple(dict.fromkeys(found)),
    )  # fmt: skip


def hot_items(first: Side, others: list[Side], request: Request) -> list[Item]:
    """HOT: the pending-review lines (the first vault's, then the global vault's), rules and
    MEMORY.md of the first vault, the agent's hot memory, global rules."""
    waiting = review_item(first.sources)
    items = [_named(waiting, first.name)] if waiting is not None else []
    for side in others:  # the global vault's cross-project questions (`maintain --global`)
        theirs = review_item(side.sources, "cardvault review --global")
        if theirs is not None:
            items.append(_of_side(theirs, side))
    items += [_named(i, first.name) for i in rule_items(first.sources)]
    memory = memory_item(first.sources)
    if memory is not None:
        items.append(_named(memory, first.name))
    if request.agent:
        for side in (first, *others):
            hot = agent_item(side, request.agent)
            if hot is not None:
                items.append(hot)
    for side in others:
        for item in rule_items(side.sources):
            items.append(_of_side(item, side, kind="global-rule", why=f"{side.name} {item.why}"))
    return items


def agent_item(side: Side, agent: str) -> Item | None:
    """The agent's hot memory in this vault, as one HOT item (None when it has none)."""
    file = side.snapshot.hot.get(agent)
    if file is None or not file.text.strip():
        return None
    text = file.text.strip()
    if not text.startswith("# "):
        text = f"# Hot memory: {agent}\n\n{text}"
    where = side.snapshot.rel(file.path)
    why = f"{agent}'s hot memory ({side.name}), loaded for {agent} only"
    block = quoted(where if side.name == PROJECT else f"{where} ({side.name} vault)", text)
    return Item("agent", f"{agent} hot memory ({side.name})", where, block, why, 1.0, side.name)


def warm_items(first: Side, others: list[Side], request: Request) -> list[Item]:
    """WARM: the first vault's cards and the global cards the task matched, by score."""
    cards, _ = card_items(first.sources, first.relevance if request.task else None, request.today)
    ranked = [(item.score, 0, n, _named(item, first.name)) for n, item in enumerate(cards)]
    if request.task:
        mine = {item.source for item in cards}
        origin = _origin_key(first) if others else None
        for order, side in enumerate(others, start=1):
            found = _relevant_cards(side, request, origin, mine, order, len(others) + 1)
            for n, item in enumerate(found):
                ranked.append((item.score, order, n, item))
    ranked.sort(key=lambda row: (-row[0], row[1], row[2]))
    # just remembered, first: what the task's search found, or without a task the newest lessons
    if request.task:
        fresh = list(first.relevance.fresh) if first.relevance else []
    else:
        fresh = recent_items(first.snapshot, request.today)
    return [*fresh, *(item for *_, item in ranked[:CARD_CANDIDATES])]


def cold_items(sides: list[Side], today: dt.date) -> list[Item]:
    """COLD: every vault's archived cards, by value, as items loaded after every WARM one."""
    items = []
    for side in sides:
        archived = tuple(c.card for c in side.snapshot.archived)
        if not archived:
            continue
        shelf = replace(side.sources, cards=archived, rules=(), memory=None)
        found, _ = card_items(shelf, None, today)
        for item in found:
            name = item.name if side.name == PROJECT else f"{item.name} ({side.name})"
            why = f"archived, loaded on request; {item.why}"
            items.append(replace(item, name=name, why=why, vault=side.name, cold=True))
    return items


def _relevant_cards(
    side: Side, request: Request, origin: str | None, mine: set[str], order: int, sides: int
) -> list[Item]:
    """The cards of a secondary vault its search for the task found, best first. Ranks are
    interleaved after the project's (rank r of vault `order` counts as rank r × sides + order),
    so a global card never outranks the project card of the same rank on relevance alone."""
    if side.relevance is None or not side.relevance.ranks:
        return []
    hits = tuple(c for c in side.sources.cards if side.sources.rel(c.path) in side.relevance.ranks)
    ranks = {path: rank * sides + order for path, rank in side.relevance.ranks.items()}
    interleaved = replace(side.relevance, ranks=ranks)
    found, _ = card_items(replace(side.sources, cards=hits), interleaved, request.today)
    items = []
    for item in found:
        card = next(c for c in hits if c.slug == item.name)
        if origin and any(s.startswith(f"{origin}:") and s[len(origin) + 1 :] in mine
                          for s in card.sources):  # fmt: skip
            continue  # promoted from this project's own card, which is a candidate already
        where = f"{item.source} ({side.name} vault)"
        items.append(_of_side(item, side, block=card_block(card, where, request.today)))
    return items


def _origin_key(side: Side) -> str | None:
    """The project's context key (how global cards cite its cards)."""
    if side.name != PROJECT:
        return None
    from cardvault.scopes.key import context_key

    return context_key(side.snapshot.vault.root)


def _side(name: str, vault: Vault, task: KeywordQuery | None, request: Request) -> Side:
    snapshot = read_vault(vault)
    sources = sources_of(snapshot)
    if name == GLOBAL:
        sources = replace(sources, problems=tuple(f"global vault: {p}" for p in sources.problems))
    searcher = request.searcher(vault) if request.searcher else None
    relevance = search_relevance(vault, task, request.mode, searcher) if task else None
    return Side(name, snapshot, sources, relevance)


def _of_side(item: Item, side: Side, **more: Any) -> Item:
    """`item` of a secondary vault: its name and source say which."""
    name, source = f"{item.name} ({side.name})", f"{side.name}:{item.source}"
    return replace(item, name=name, source=source, vault=side.name, **more)


def _named(item: Item, vault: str) -> Item:
    return item if vault == PROJECT else replace(item, vault=vault)
