"""What in a Markdown text is prose, and what is code or quoted output: one definition, read by
markdown-it-py. Fenced and indented code, raw HTML blocks, inline code spans and (for signals)
block quotes are not prose: a `[[ -z "$x" ]]` in a bash block or a `Lesson:` in a pasted log is
no link or signal. `masked_lines` blanks all of that out, each line keeping its length, so a
pattern searched in them finds only prose and keeps its line and column."""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    from markdown_it import MarkdownIt
    from markdown_it.token import Token

_BLOCKS = ("fence", "code_block", "html_block")
_PROSE_BLOCKS = ("paragraph_open", "heading_open")
_TICKS = re.compile(r"`+")
_NEWLINE = re.compile("\n")
_NOT_NEWLINE = re.compile("[^\n]+")
_ESCAPE_OR_TICKS = re.compile(r"\\[\s\S]?|`+")


@cache
def _commonmark() -> MarkdownIt:
    from markdown_it import MarkdownIt  # ~15 ms to import, paid by the first parse

    return MarkdownIt("commonmark")


def parse(text: str) -> list[Token]:
    """The CommonMark tokens of `text` (markdown-it-py; one parser, made once)."""
    return _commonmark().parse(text)


def masked_lines(text: str, tokens: list[Token] | None = None, quotes: bool = False) -> list[str]:
    """`text`'s lines (split on "\\n") with what `code_ranges` finds replaced by spaces."""
    pieces, at = [], 0
    for left, right in code_ranges(text, tokens, quotes):
        if right > at:
            left = max(left, at)
            pieces += [text[at:left], _NOT_NEWLINE.sub(_spaces, text[left:right])]
            at = right
    pieces.append(text[at:])
    return "".join(pieces).split("\n")


def _spaces(match: re.Match[str]) -> str:
    return " " * len(match.group())


def code_ranges(
    text: str, tokens: list[Token] | None = None, quotes: bool = False
) -> list[tuple[int, int]]:
    """The character ranges of `text` that are no prose, sorted: code and HTML blocks (and,
    when `quotes`, block quotes) whole, and each block's inline code spans, found in that block
    alone (a stray backtick opens no span in the next paragraph). The container marks of a
    block's lines ("- ", "> ") hold no backtick, so its spans are the same in the raw text."""
    found = parse(text) if tokens is None else tokens
    blanked = (*_BLOCKS, "blockquote_open") if quotes else _BLOCKS
    ticks = "`" in text  # no backtick: no code span to look for
    wanted = [  # (first line, line after, whether only its code spans count)
        (token.map[0], token.map[1], token.type == "inline")
        for token, depth in _quoted(found)
        if token.map is not None
        and (token.type in blanked or (ticks and token.type == "inline" and not (quotes and depth)))
    ]
    if not wanted:
        return []
    starts = [0, *(match.end() for match in _NEWLINE.finditer(text)), len(text) + 1]
    last = len(starts) - 1
    ranges = []
    for first, after, inline in wanted:
        start, end = starts[min(first, last)], starts[min(after, last)]
        if not inline:
            ranges.append((start, min(end, len(text))))
        elif "`" in (block := text[start:end]):  # most prose holds no backtick
            ranges += [(start + a, start + b) for a, b in code_spans(block)]
    return sorted(ranges)


def _quoted(tokens: list[Token]) -> Iterator[tuple[Token, int]]:
    """Each token with the number of block quotes it is in (a quote's own tokens are in it)."""
    depth = 0
    for token in tokens:
        depth += token.type == "blockquote_open"
        yield token, depth
        depth -= token.type == "blockquote_close"


def block_ranges(tokens: list[Token]) -> list[tuple[int, int]]:
    """(first line, line after the last), 0-based, of every paragraph and heading outside block
    quotes (a `### Lesson: ...` sub-heading is prose as a paragraph is)."""
    found = []
    for token, depth in _quoted(tokens):
        if token.type in _PROSE_BLOCKS and token.map is not None and not depth:
            found.append((token.map[0], token.map[1]))
    return found


def list_items(tokens: list[Token]) -> dict[int, list[tuple[int, int]]]:
    """The first line of every list (0-based) -> (the first line of its first paragraph, the
    line after the item) of each of its items, outside block quotes (a nested list is a list
    of its own)."""
    found: dict[int, list[tuple[int, int]]] = {}
    opened: list[tuple[int, int]] = []  # (level, first line) of each list being read
    item_end = -1  # the end of the item whose first paragraph is next
    for token, depth in _quoted(tokens):
        if token.type in ("bullet_list_open", "ordered_list_open") and token.map is not None:
            opened.append((token.level, token.map[0]))
            if not depth:
                found.setdefault(token.map[0], [])
        elif token.type in ("bullet_list_close", "ordered_list_close") and opened:
            opened.pop()
        elif token.type == "list_item_open" and token.map is not None:
            item_end = token.map[1]
        elif token.type == "paragraph_open" and item_end >= 0 and opened and token.map:
            level, first = opened[-1]
            if not depth and token.level == level + 2:
                found[first].append((token.map[0], item_end))
            item_end = -1
    return found


def code_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every inline code span in `text`, as CommonMark reads them: a run of N
    backticks opens a span that the next run of exactly N closes; a run with no match is
    literal, and so is a backtick escaped with a backslash (outside a span)."""
    spans = []
    index = 0
    while opened := _ESCAPE_OR_TICKS.search(text, index):
        index = opened.end()
        if opened.group().startswith("\\"):  # the escaped character is literal (a backtick too)
            continue
        run = len(opened.group())
        close = next((m for m in _TICKS.finditer(text, index) if len(m.group()) == run), None)
        if close is not None:
            spans.append((opened.start(), close.end()))
            index = close.end()
    return spans
