"""Links between vault files: the one definition of what names a card, and how a name resolves.

A card is named by a wiki-link `[[target]]` (`[[target|shown]]`, `[[target#heading]]`) anywhere
in a card's text, frontmatter included, never in code (prose.py); by a log entry's `→ card:
slug` line (daily.py); or by a path citation `memory/cards/slug.md`. A target names a card by
its *key*, the last path part without `.md`, which resolves to the card with that slug, else to
the card carrying it as an alias (a slug always wins)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

#: Neither part of a link holds a `[`: an opening is then tried only up to the next one, so a
#: text of unclosed openings (`[[a|[[a|…`, a hostile card) is read in linear time, not in the
#: hours the rest of each line took to try for every opening.
WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)((?:[#|][^\[\]\n]*)?)\]\]")
#: At most 300 characters after the folder, for the same reason (`memory/cards/` repeated).
CARD_CITATION = re.compile(r"memory/(?:cards|archive)/[^\s)\]`'\"]{1,300}\.md")
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(?:.*?\r?\n)??---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


@dataclass(frozen=True)
class WikiLink:
    """One `[[target]]` in a file: the target as written and its 1-based line."""

    target: str
    line: int

    @property
    def key(self) -> str:
        """The card name it points at."""
        return link_key(self.target)


def link_key(target: str) -> str:
    """The part of a link target that names a card: its last path part without `.md`."""
    return target.strip().removesuffix(".md").split("/")[-1]


def wiki_links(text: str) -> tuple[WikiLink, ...]:
    """Every wiki-link in `text` outside code, in order, with its line (a card's frontmatter,
    which is YAML, is read as it is; its body as Markdown)."""
    if "[[" not in text:
        return ()
    head = _FRONTMATTER.match(text)
    split = head.end() if head else 0
    from cardvault.vault.prose import masked_lines

    readable = text[:split] + "\n".join(masked_lines(text[split:]))
    found = []
    line, offset = 1, 0
    for match in WIKILINK.finditer(readable):
        line += readable.count("\n", offset, match.start())
        offset = match.start()
        found.append(WikiLink(match.group(1).strip(), line))
    return tuple(found)


def cited_paths(text: str) -> list[str]:
    """Card paths (`memory/cards/x.md`, `memory/archive/x.md`) cited in `text`, in order."""
    return [match.group() for match in CARD_CITATION.finditer(text)]


def name_table(cards: Iterable[tuple[str, Iterable[str]]]) -> dict[str, str]:
    """Name -> slug for (slug, aliases) pairs: every slug, then every alias no slug uses."""
    pairs = [(slug, tuple(aliases)) for slug, aliases in cards]
    table: dict[str, str] = {}
    for slug, aliases in pairs:
        for alias in aliases:
            table.setdefault(alias, slug)
    for slug, _ in pairs:
        table[slug] = slug
    return table


def rename_links(text: str, renames: Mapping[str, str]) -> str:
    """`text` with `[[old…]]` and `memory/cards/old.md` pointing at the new slugs instead."""

    def link(match: re.Match[str]) -> str:
        key = link_key(match.group(1))
        if key in renames:
            return f"[[{renames[key]}{match.group(2)}]]"
        return match.group(0)

    text = WIKILINK.sub(link, text)
    for old, new in renames.items():
        text = re.sub(rf"memory/cards/{re.escape(old)}\.md\b", f"memory/cards/{new}.md", text)
    return text


def unlink(text: str, gone: Iterable[str]) -> str:
    """`text` with wiki-links to the `gone` card names turned into plain text (the shown text of
    `[[x|shown]]`, else the target), so no link is left pointing at nothing."""
    names = set(gone)

    def plain(match: re.Match[str]) -> str:
        if link_key(match.group(1)) not in names:
            return match.group(0)
        extra = match.group(2)
        return extra[1:].strip() if extra.startswith("|") and extra[1:].strip() else match.group(1)

    return WIKILINK.sub(plain, text)
