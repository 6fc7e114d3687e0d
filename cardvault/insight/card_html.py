"""A card's Markdown as inert HTML, for `cardvault view`.

Cards are untrusted data (they arrive through git, imports, agents), so nothing made here may
run in the page: markdown-it-py runs with `html` off (raw tags come out as escaped text); a link
keeps its `href` only for `http:`, `https:` and `mailto:`; images are never loaded (shown as
their alt text and address); `[[wiki-links]]` become in-page links `#card=KEY` that the page's
script resolves. Every attribute value and text passes through markdown-it's escaping or
`html.escape`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from cardvault.vault.links import WIKILINK, link_key

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

#: Link targets that keep their `href` (anything else is shown, not followed).
SAFE_HREF = re.compile(r"^(?:https?:|mailto:)", re.IGNORECASE)


def card_html(body: str) -> str:
    """The card body (Markdown) as HTML that cannot run script or load anything."""
    return _markdown().render(body)


def card_href(ref: str) -> str:
    """The in-page address of a card (its slug, or its path; for a `[[target]]`, the card name
    it points at)."""
    return "#card=" + quote(ref, safe="")


@cache
def _markdown() -> MarkdownIt:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.add_render_rule("wikilink", _render_wikilink)
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("image", _render_image)
    md.add_render_rule("th_open", _render_cell)
    md.add_render_rule("td_open", _render_cell)
    return md


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    """`[[target]]`, `[[target|shown]]`, `[[target#heading]]` as one `wikilink` token."""
    if not state.src.startswith("[[", state.pos):
        return False
    match = WIKILINK.match(state.src, state.pos)
    if match is None or match.end() > state.posMax:
        return False
    if not silent:
        token = state.push("wikilink", "a", 0)
        target, extra = match.group(1).strip(), match.group(2)
        shown = extra.split("|", 1)[1].strip() if "|" in extra else target + extra
        token.meta = {"target": target, "shown": shown or target}
    state.pos = match.end()
    return True


def _render_wikilink(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    meta = tokens[idx].meta
    key = html.escape(link_key(meta["target"]), quote=True)
    href = html.escape(card_href(link_key(meta["target"])), quote=True)
    return f'<a class="wikilink" href="{href}" data-key="{key}">{html.escape(meta["shown"])}</a>'


def _render_link_open(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    if SAFE_HREF.match(href):
        token.attrSet("rel", "noopener noreferrer")
    else:
        token.attrs.pop("href", None)
        token.attrSet("class", "inert")
        token.attrSet("title", f"not followed: {href}")
    return str(self.renderToken(tokens, idx, options, env))


def _render_cell(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """A table cell with its alignment as a class (the page's policy allows no style attribute)."""
    token = tokens[idx]
    style = str(token.attrs.pop("style", "") or "")
    if style.startswith("text-align:"):
        token.attrSet("class", "align-" + style.removeprefix("text-align:"))
    return str(self.renderToken(tokens, idx, options, env))


def _render_image(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    src = str(token.attrGet("src") or "")
    return (
        f'<span class="image" title="{html.escape(src, quote=True)}">'
        f"[image: {html.escape(alt or src)}]</span>"
    )
