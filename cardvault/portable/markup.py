"""Reading a note's Markdown for import: where its code is, its inline `#tags`, its links.

Code is what `check` reads as code (vault/prose.py: code and HTML blocks, each block's code
spans); nothing inside code is a tag or a link, and import never rewrites a byte of it.
Tags are Obsidian's, never in headings. A wiki-link is what `vault/links.py`'s pattern reads, so
import rewrites exactly what `check` will read; a Markdown link counts when its target is a
relative path.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardvault.vault.links import WIKILINK
from cardvault.vault.prose import code_ranges, parse

if TYPE_CHECKING:
    from markdown_it.token import Token

TAG = re.compile(r"(?:^|(?<=\s))#([A-Za-z0-9_][\w/-]*)")
#: No `[` or `]` in a link's text or target (nor `<` inside `<…>`): each opening is tried only up
#: to the next one, so a note of unclosed links (`[a](` repeated) is read in linear time.
MARKDOWN_LINK = re.compile(
    r"(!?)\[([^\[\]\n]*)\]\(\s*(<[^<>\n]*>|[^\s)\[\]]+)((?:\s+\"[^\"\n]*\")?)\s*\)"
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Found:
    """One link in a note's text: where it is, and its parts as written."""

    start: int
    end: int
    kind: str  # "wiki" | "embed" | "markdown" | "image"
    target: str  # the note or file named, as written (`Note`, `sub/Note.md`, `img.png`)
    heading: str  # after `#` ("" when none)
    label: str  # the shown text (`[[x|label]]`, `[label](x)`); "" when none
    line: int  # 1-based, in the text scanned


def code_spans(text: str, tokens: list[Token] | None = None) -> list[tuple[int, int]]:
    """Character ranges of `text` that are code (`tokens`: `text` parsed already): the ranges
    `check` blanks before it reads links (vault/prose.py)."""
    return code_ranges(text, tokens)


def inside(spans: list[tuple[int, int]], position: int) -> bool:
    """Whether `position` falls in one of the sorted `spans`."""
    index = bisect.bisect_right(spans, (position, float("inf"))) - 1
    return index >= 0 and spans[index][0] <= position < spans[index][1]


def inline_tags(text: str, tokens: list[Token] | None = None) -> list[str]:
    """The `#tags` of `text` as written (without `#`), in order, from text runs only."""
    found: list[str] = []
    in_heading = False
    for token in parse(text) if tokens is None else tokens:
        if token.type == "heading_open":
            in_heading = True
        elif token.type == "heading_close":
            in_heading = False
        elif token.type == "inline" and not in_heading:
            for child in token.children or ():
                if child.type == "text":
                    found += [
                        tag.rstrip("/")
                        for tag in TAG.findall(child.content)
                        if not tag.replace("/", "").isdigit()
                    ]
    return found


def find_links(text: str, code: list[tuple[int, int]] | None = None) -> list[Found]:
    """Every wiki-link, embed and relative Markdown link outside code, in order."""
    spans = code_spans(text) if code is None else code
    found: list[Found] = []
    for match in WIKILINK.finditer(text):
        if inside(spans, match.start()):
            continue
        embed = match.start() > 0 and text[match.start() - 1] == "!"
        head, bar, label = match.group(2).partition("|")
        found.append(
            Found(
                start=match.start() - embed,
                end=match.end(),
                kind="embed" if embed else "wiki",
                target=match.group(1).strip(),
                heading=head[1:].strip() if head.startswith("#") else "",
                label=label.strip() if bar else "",
                line=text.count("\n", 0, match.start()) + 1,
            )
        )
    taken = [(f.start, f.end) for f in found]
    for match in MARKDOWN_LINK.finditer(text):
        destination = match.group(3).strip("<>").strip()
        if inside(spans, match.start()) or _external(destination):
            continue
        if any(a <= match.start() < b for a, b in taken):
            continue
        path, _, heading = destination.partition("#")
        found.append(
            Found(
                match.start(),
                match.end(),
                "image" if match.group(1) else "markdown",
                path,
                heading,
                match.group(2),
                text.count("\n", 0, match.start()) + 1,
            )
        )
    return sorted(found, key=lambda f: f.start)


def _external(destination: str) -> bool:
    """A URL, a mail address or an anchor in the same page: not a note of the folder."""
    return not destination or destination.startswith("#") or bool(_SCHEME.match(destination))


def unlinked(text: str) -> str:
    """`text` with every `[[` broken by a backslash: it reads the same, but is no link."""
    return re.sub(r"\[(?=\[)", "[\\\\", text)
