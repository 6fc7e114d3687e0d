"""The page of `cardvault view`: one self-contained HTML file built from a `VaultView`.

Everything is in the file (the style and script from view_assets/, every card, the stats and
review queue, the graph as JSON the script draws), and the page loads nothing: its
Content-Security-Policy allows only the one inline style and script, by their SHA-256 hashes,
so even markup that slipped through could neither run nor fetch. Every vault text is escaped
here or by markdown-it (insight/card_html.py); the JSON is escaped so no `<` can end its script.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Iterable
from functools import cache
from importlib import resources
from urllib.parse import quote

from cardvault.insight.card_html import card_href as _card_href
from cardvault.insight.view import VaultView, ViewCard
from cardvault.insight.view_panels import escaped as _e
from cardvault.insight.view_panels import review_html, stats_html

#: Marks a page this module wrote (`view --out` overwrites only such a file).
GENERATOR = "cardvault view"
#: Category colours, each clearly apart from the others and from the grey of "other" and of
#: archived cards (tests/test_view.py measures it).
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
    "#e377c2", "#bcbd22", "#17becf", "#1a237e", "#f2c200", "#000000",
)  # fmt: skip
ARCHIVED, STALE, PROMOTED = 1, 2, 4


def render_page(view: VaultView) -> str:
    """The whole page as text (see the module docstring)."""
    categories = list(view.graph.tag_tree) or ["(none)"]
    colour = colours(categories, view.declared)
    css = _asset("view.css") + "".join(
        f".c{n} {{ background: {c}; }}\n" for n, c in enumerate(PALETTE)
    )
    script = _asset("layout.js") + _asset("view.js")
    policy = (
        f"default-src 'none'; script-src '{_sha256(script)}'; style-src '{_sha256(css)}'; "
        "base-uri 'none'; form-action 'none'"
    )
    title = html.escape(f"cardvault — {view.name}")
    return "".join(
        [
            '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n',
            f'<meta name="generator" content="{GENERATOR}">\n',
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
            f"<title>{title}</title>\n<style>{css}</style>\n</head>\n<body>\n",
            _header(view),
            _side(view.cards, colour),
            _graph_pane(view),
            _panel(view, colour),
            '<script type="application/json" id="view-data">',
            _script_json(_data(view, categories, colour)),
            "</script>\n",
            f"<script>{script}</script>\n</body>\n</html>\n",
        ]
    )


def colours(categories: Iterable[str], declared: Iterable[str] = ()) -> dict[str, int]:
    """Each category's palette slot: the one its name hashes to, else the next free one. The
    categories cardvault.toml declares claim theirs first, in its order, then any others by
    name; so a category's colour follows from its name and the declared list, never from how
    many cards any category holds, and no two share one while there are slots left."""
    wanted = set(categories)
    order = [c for c in dict.fromkeys(declared) if c in wanted]
    order += sorted(wanted - set(order))
    taken: dict[int, str] = {}
    found: dict[str, int] = {}
    for name in order:
        hashed = int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:4], "big")
        probes = ((hashed + step) % len(PALETTE) for step in range(len(PALETTE)))
        slot = next((free for free in probes if free not in taken), hashed % len(PALETTE))
        taken.setdefault(slot, name)
        found[name] = slot
    return found


@cache
def _asset(name: str) -> str:
    return (resources.files("cardvault.insight") / "view_assets" / name).read_text("utf-8")


def _sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def _script_json(data: object) -> str:
    """JSON that is safe inside a <script> element: no `<`, `>` or `&` left to end it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _flags(card: ViewCard) -> int:
    return (
        (ARCHIVED if card.archived else 0)
        | (STALE if card.stale else 0)
        | (PROMOTED if card.promoted else 0)
    )


def _node(card: ViewCard, category: int) -> list[object]:
    """A card as the script reads it: slug, topic, category number, tags, flags, aliases, path."""
    return [
        card.slug, card.topic, category, list(card.tags), _flags(card), list(card.aliases),
        card.path,
    ]  # fmt: skip


def _data(view: VaultView, categories: list[str], colour: dict[str, int]) -> dict[str, object]:
    index: dict[str, int] = {}
    for number, card in enumerate(view.cards):
        index.setdefault(card.slug, number)
    position = {name: number for number, name in enumerate(categories)}
    return {
        "categories": [{"name": c, "colour": PALETTE[colour[c]]} for c in categories],
        "palette": list(PALETTE),
        "nodes": [_node(c, position.get(c.category, 0)) for c in view.cards],
        "links": [
            [index[link.source], index[link.target]]
            for link in view.graph.links
            if link.source in index and link.target in index
        ],
    }


def _refs(cards: Iterable[ViewCard]) -> list[str]:
    """Each card's address in the page: its slug, or its path where an earlier card has the
    slug (the page's script gives the same)."""
    seen: set[str] = set()
    refs = []
    for card in cards:
        refs.append(card.path if card.slug in seen else card.slug)
        seen.add(card.slug)
    return refs


def _header(view: VaultView) -> str:
    live = sum(1 for c in view.cards if not c.archived)
    counts = (
        f"{_count(live, 'card')} · {len(view.cards) - live} archived · "
        f"{_count(len(view.graph.links), 'link')} · "
        f"{len(view.questions)} pending review · made {_e(view.generated)}"
    )
    return (
        f'<header><h1>{_e(view.name)}</h1><span class="counts">{counts}</span>'
        "<noscript>This page needs JavaScript for the graph and the filter.</noscript></header>\n"
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _card_flags(card: ViewCard) -> str:
    found = [("promoted", card.promoted), ("stale", bool(card.stale)), ("archived", card.archived)]
    return "".join(f'<span class="flag {name}">{name}</span>' for name, on in found if on)


def _side(cards: tuple[ViewCard, ...], colour: dict[str, int]) -> str:
    rows = [
        f'<li data-i="{number}"><span class="dot c{colour.get(card.category, 0)}"></span>'
        f'<a href="{_e(_card_href(ref))}" title="{_e(card.path)}">{_e(card.topic)}</a>'
        f"{_card_flags(card)}</li>\n"
        for number, (card, ref) in enumerate(zip(cards, _refs(cards), strict=True))
    ]
    return (
        '<aside id="side"><input id="filter" type="search" placeholder="Filter by title… '
        '(#tag for a tag)" autocomplete="off" aria-label="Filter cards by title">'
        f'<p id="count"></p><ul id="list">\n{"".join(rows)}</ul></aside>\n'
    )


def _graph_pane(view: VaultView) -> str:
    marks = (
        "<span>thick gold ring: promoted</span><span>faded, dashed orange: stale</span>"
        "<span>hollow, dashed grey: archived</span><span>line: a [[link]]</span>"
    )
    empty = "" if view.cards else '<p id="empty-graph">No cards in this vault yet.</p>'
    return (
        '<main id="graph-pane"><svg id="graph" role="img" aria-label="card graph" '
        'xmlns="http://www.w3.org/2000/svg"></svg><div id="legend"><div id="legend-colours">'
        f'</div><div id="legend-marks">{marks}</div></div>{empty}</main>\n'
    )


def _panel(view: VaultView, colour: dict[str, int]) -> str:
    budget = view.stats.card_token_budget
    articles = "".join(
        _article(number, card, colour, budget) for number, card in enumerate(view.cards)
    )
    pending = len(view.questions)
    return (
        '<section id="panel"><nav id="tabs"><a href="#tab=card" data-tab="card">Card</a>'
        '<a href="#tab=stats" data-tab="stats">Stats</a>'
        f'<a href="#tab=review" data-tab="review">Review ({pending})</a></nav>\n'
        '<div class="tab" id="tab-card"><p class="hint" id="reader-hint">Click a node in the '
        "graph or a title in the list to read the card. Scroll to zoom, drag to move.</p>\n"
        f"{articles}</div>\n"
        f'<div class="tab stats" id="tab-stats" hidden>{stats_html(view.stats)}</div>\n'
        f'<div class="tab" id="tab-review" hidden>{review_html(view)}</div></section>\n'
    )


def _article(number: int, card: ViewCard, colour: dict[str, int], budget: int) -> str:
    over = ' <span class="over">over budget</span>' if card.tokens > budget else ""
    updated = f" · updated {_e(card.updated)}" if card.updated else ""
    meta = (
        f'<p class="meta"><span class="dot c{colour.get(card.category, 0)}"></span> '
        f"{_e(card.category)} · <code>{_e(card.path)}</code> · {_e(card.status)}{updated} · "
        f"{card.tokens} tokens of {budget}{over}</p>"
    )
    if card.aliases:
        meta += f'<p class="meta">also: {_e(", ".join(card.aliases))}</p>'
    if card.tags:
        tags = "".join(
            f'<a href="#q={_e(quote("#" + t, safe=""))}">#{_e(t)}</a>' for t in card.tags
        )
        meta += f'<p class="meta tags">{tags}</p>'
    marks = _card_flags(card)
    if card.stale:
        marks += f' <span class="meta">{_e(card.stale)}</span>'
    return (
        f'<article id="card-{number}" hidden><h2>{_e(card.topic)}</h2>{meta}'
        f'<p class="meta">{marks}</p><div class="body">{card.html}</div>'
        '<div class="near-cards"></div></article>\n'
    )
