"""One line: every detector run over it, long lines in pieces, overlaps merged into one span.

A span survives only clear of the columns already taken by earlier findings and when its value
is not a placeholder; overlapping spans are named by the most specific detector.
"""

from __future__ import annotations

from typing import Any

from cardvault.guard.commands import command_spans
from cardvault.guard.entropy import entropy_spans
from cardvault.guard.finding import Span
from cardvault.guard.gate import might_hold_secret
from cardvault.guard.keywords import keyword_spans
from cardvault.guard.patterns import pattern_spans
from cardvault.guard.plugins import Kit
from cardvault.guard.vetting import is_placeholder

_PIECE, _CONTEXT = 2000, 200


def line_spans(line: str, kit: Kit, taken: list[tuple[int, int]]) -> list[Span]:
    """Non-overlapping secret spans on `line`, clear of the columns already `taken`.

    A long line is scanned in pieces cut at spaces, each with some preceding text as context,
    because detect-secrets' keyword regexes take quadratic time on long lines.
    """
    spans = []
    for start, end in _pieces(line):
        low = max(0, start - _CONTEXT)  # begin the context at a word, never mid-token
        context = low if low == 0 else line.find(" ", low, start) + 1 or start
        piece = line[context:end]
        if might_hold_secret(piece):
            found = [*pattern_spans(piece, kit), *command_spans(piece), *keyword_spans(piece, kit)]
            found += entropy_spans(piece, kit)
            spans += [(context + s, context + e, k) for s, e, k in found if context + s >= start]
    mask = bytearray(len(line))
    for start, end in taken:
        mask[start:end] = b"\1" * (end - start)
    free = [(s, e, k) for s, e, k in spans if mask.find(1, s, e) < 0]
    return _merge([(s, e, k) for s, e, k in free if not is_placeholder(line[s:e])])


def _pieces(line: str) -> list[tuple[int, int]]:
    """`line` as (start, end) pieces of about _PIECE characters, cut only after a space."""
    cuts = [0]
    while len(line) - cuts[-1] > _PIECE:
        space = line.rfind(" ", cuts[-1] + 1, cuts[-1] + _PIECE)
        space = space if space > 0 else line.find(" ", cuts[-1] + _PIECE)  # a token stays whole
        if space < 0:
            break
        cuts.append(space + 1)
    return list(zip(cuts, [*cuts[1:], len(line)], strict=True))


def _merge(spans: list[Span]) -> list[Span]:
    """Overlapping spans become one, named by the most specific detector (listed first)."""
    ranked = sorted((s, e, rank, kind) for rank, (s, e, kind) in enumerate(spans) if e > s)
    merged: list[list[Any]] = []
    for start, end, rank, kind in ranked:
        if merged and start < merged[-1][1]:
            last = merged[-1]
            last[1] = max(last[1], end)
            if rank < last[2]:
                last[2:] = [rank, kind]
        else:
            merged.append([start, end, rank, kind])
    return [(s, e, kind) for s, e, _, kind in merged]
