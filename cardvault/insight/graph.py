"""The vault as a graph: categories and tags, card-to-card links, cards sharing tags, hubs, orphans.

A link is a `[[target]]` naming another card by slug or alias (`vault.links`, the definition
`check` uses, so the two never disagree); a link to a card not drawn is neither drawn nor
unresolved. A card's connections are the distinct other cards it reaches by a link (either way)
or a shared tag. Renderers live in insight/graph_render.py.

Tag pairs are listed only for tags on at most SHARED_PAIR_LIMIT cards: a tag on hundreds of
cards is a theme, not a relation, and its pairs would grow with the square of its size. Such
tags are listed in `broad_tags`; they still count in connections.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from cardvault.vault.finding import Finding
from cardvault.vault.layout import Vault
from cardvault.vault.links import name_table
from cardvault.vault.read import CardFile, read_vault

HUB_COUNT = 5
SHARED_PAIR_LIMIT = 20


@dataclass(frozen=True)
class Node:
    """One card in the graph."""

    slug: str
    topic: str
    category: str
    tags: tuple[str, ...]


@dataclass(frozen=True)
class Link:
    """`source` names `target` with `[[text]]` (text may be an alias of the target)."""

    source: str
    target: str
    text: str


@dataclass(frozen=True)
class SharedTags:
    """Two cards (a < b) and the tags they share."""

    a: str
    b: str
    tags: tuple[str, ...]


@dataclass(frozen=True)
class Hub:
    """A card and its connection counts."""

    slug: str
    connections: int
    links_in: int
    links_out: int


@dataclass(frozen=True)
class Graph:
    """Cards, their links and shared tags, the category → tag tree, hubs and orphans."""

    nodes: tuple[Node, ...]
    links: tuple[Link, ...]
    unresolved: tuple[Link, ...]  # [[text]] naming no card in the graph (target == "")
    shared: tuple[SharedTags, ...]  # pairs sharing tags on at most SHARED_PAIR_LIMIT cards
    broad_tags: dict[str, int]  # tags on more cards than that -> number of cards
    tag_tree: dict[str, dict[str, int]]  # category -> tag -> number of cards
    hubs: tuple[Hub, ...]
    orphans: tuple[str, ...]
    connections: dict[str, int] = field(repr=False)  # slug -> distinct connected cards

    def to_dict(self) -> dict[str, Any]:
        """Plain data for `--format json` (built directly: `dataclasses.asdict` deep-copies
        every value and costs most of a 10,000-card graph's time)."""
        return {
            "nodes": [vars(n) | {"tags": list(n.tags)} for n in self.nodes],
            "links": [vars(link) for link in self.links],
            "unresolved": [vars(link) for link in self.unresolved],
            "shared": [vars(s) | {"tags": list(s.tags)} for s in self.shared],
            "broad_tags": self.broad_tags,
            "tag_tree": self.tag_tree,
            "hubs": [vars(hub) for hub in self.hubs],
            "orphans": list(self.orphans),
            "connections": self.connections,
        }


def vault_graph(vault: Vault, archived: bool = False) -> tuple[Graph, tuple[Finding, ...]]:
    """The graph of the vault's live (or all) cards, and the files not read."""
    snapshot = read_vault(vault)
    cards = snapshot.cards if archived else snapshot.live
    return build_graph(cards, snapshot.names), snapshot.problems


def build_graph(cards: Iterable[CardFile], names: dict[str, str] | None = None) -> Graph:
    """The graph of `cards` (pure). Links resolve through `names` (name -> slug, default: the
    names of `cards` themselves)."""
    ordered = sorted(cards, key=lambda c: c.slug)
    table = names if names is not None else name_table((c.slug, c.card.aliases) for c in ordered)
    nodes = tuple(
        Node(c.slug, c.card.topic, c.card.category or "(none)", c.card.tags) for c in ordered
    )
    links, unresolved = _links(ordered, table)
    members = _members(nodes)
    connections = _connections(nodes, links, members)
    return Graph(
        nodes=nodes,
        links=links,
        unresolved=unresolved,
        shared=_shared_tags(members),
        broad_tags={t: len(m) for t, m in sorted(members.items()) if len(m) > SHARED_PAIR_LIMIT},
        tag_tree=_tag_tree(nodes),
        hubs=_hubs(links, connections),
        orphans=tuple(slug for slug, count in connections.items() if not count),
        connections=connections,
    )


def _links(
    cards: list[CardFile], names: dict[str, str]
) -> tuple[tuple[Link, ...], tuple[Link, ...]]:
    shown = {card.slug for card in cards}
    links: dict[tuple[str, str], Link] = {}
    unresolved: dict[tuple[str, str], Link] = {}
    for card in cards:
        for link in card.links:
            target = names.get(link.key)
            if target is None:
                unresolved.setdefault((card.slug, link.target), Link(card.slug, "", link.target))
            elif target != card.slug and target in shown:
                links.setdefault((card.slug, target), Link(card.slug, target, link.target))
    return tuple(links.values()), tuple(unresolved.values())


def _members(nodes: tuple[Node, ...]) -> dict[str, list[str]]:
    """Tag -> the slugs carrying it, in slug order."""
    members: dict[str, list[str]] = defaultdict(list)
    for node in nodes:
        for tag in dict.fromkeys(node.tags):
            members[tag].append(node.slug)
    return members


def _shared_tags(members: dict[str, list[str]]) -> tuple[SharedTags, ...]:
    pairs: dict[tuple[str, str], list[str]] = defaultdict(list)
    for tag in sorted(members):
        group = members[tag]
        if len(group) > SHARED_PAIR_LIMIT:
            continue
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                pairs[(a, b)].append(tag)
    return tuple(SharedTags(a, b, tuple(tags)) for (a, b), tags in sorted(pairs.items()))


def _connections(
    nodes: tuple[Node, ...], links: tuple[Link, ...], members: dict[str, list[str]]
) -> dict[str, int]:
    """Distinct cards each card reaches by a link (either way) or a shared tag.

    Sets of cards are bit masks over the cards' positions (Python ints): a union is one OR
    and a count one `bit_count`, where set unions cost a tenth of a second at 10,000 cards."""
    bit = {node.slug: 1 << position for position, node in enumerate(nodes)}
    linked: dict[str, int] = defaultdict(int)
    for link in links:
        linked[link.source] |= bit[link.target]
        linked[link.target] |= bit[link.source]
    # a tag's slugs are distinct, so the sum of their bits is their union
    groups = {tag: sum(bit[slug] for slug in group) for tag, group in members.items()}
    counts = {}
    for node in nodes:
        near = linked[node.slug]
        for tag in node.tags:
            near |= groups[tag]
        counts[node.slug] = (near & ~bit[node.slug]).bit_count()
    return counts


def _tag_tree(nodes: tuple[Node, ...]) -> dict[str, dict[str, int]]:
    tree: dict[str, Counter[str]] = defaultdict(Counter)
    for node in nodes:
        tree[node.category].update(dict.fromkeys(node.tags, 1))
    return {cat: sorted_counts(tree[cat]) for cat in category_counts(nodes)}


def _hubs(links: tuple[Link, ...], connections: dict[str, int]) -> tuple[Hub, ...]:
    ins = Counter(link.target for link in links)
    outs = Counter(link.source for link in links)
    hubs = [Hub(slug, count, ins[slug], outs[slug]) for slug, count in connections.items() if count]
    hubs.sort(key=lambda h: (-h.connections, -(h.links_in + h.links_out), h.slug))
    return tuple(hubs[:HUB_COUNT])


def category_counts(nodes: Iterable[Node]) -> dict[str, int]:
    """Cards per category, largest first (the tag tree's order)."""
    return sorted_counts(Counter(node.category for node in nodes))


def sorted_counts(counts: Counter[str]) -> dict[str, int]:
    """Counts, largest first, ties by name."""
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
