"""Long documents as overlapping passages that each fit the model's window.

The model ignores what lies past `max_seq_length` tokens, so a longer document's body is cut
into passages (character offsets, from the model's own tokenizer), each read with the topic and
tags. A cut falls at the most natural break in the last half of the window and depends only on
the text near it, so an edit in one paragraph usually leaves the other passages' vectors valid;
each passage overlaps the previous by up to a quarter window, so a sentence on a cut is read
whole by one of them. At most `MAX_PASSAGES` are embedded per document; keyword search finds
the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cardvault.search.documents import embed_text

if TYPE_CHECKING:
    from cardvault.search.model import ModelRef

#: Tokens of every passage text the model adds itself ([CLS] and [SEP]).
SPECIAL_TOKENS = 2
#: A passage's body never gets fewer tokens than this, however long the topic.
MIN_BODY_TOKENS = 64
#: The most passages one document is embedded as (about 60 KB of prose with MiniLM's window).
MAX_PASSAGES = 64
#: Characters of a body read for its passages: enough for MAX_PASSAGES windows of short tokens.
MAX_BODY_CHARS = MAX_PASSAGES * 1024
Span = tuple[int, int]


class Splitter:
    """Splits documents into passages with `ref`'s tokenizer (no truncation)."""

    def __init__(self, ref: ModelRef) -> None:
        from tokenizers import Tokenizer

        self.window = ref.max_seq_length - SPECIAL_TOKENS
        self._tokenizer: Any = Tokenizer.from_file(str(ref.tokenizer_path))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()

    def spans(self, docs: Sequence[tuple[str, str, tuple[str, ...]]]) -> list[list[Span]]:
        """For each (topic, body, tags): the body's passages as (start, stop) offsets."""
        if not docs:
            return []
        docs = [(topic, body[:MAX_BODY_CHARS], tags) for topic, body, tags in docs]
        whole = self._count([embed_text(t, b, g) for t, b, g in docs])
        out: list[list[Span]] = [[(0, len(body))] for _, body, _ in docs]
        long = [i for i, count in enumerate(whole) if count > self.window]
        if long:
            frames = self._count([embed_text(docs[i][0], "", docs[i][2]) for i in long])
            bodies = self._tokenizer.encode_batch(
                [docs[i][1] for i in long], add_special_tokens=False
            )
            for i, frame, encoding in zip(long, frames, bodies, strict=True):
                budget = max(self.window - frame - 1, MIN_BODY_TOKENS)
                out[i] = body_spans(docs[i][1], encoding.offsets, budget)[:MAX_PASSAGES]
        return out

    def _count(self, texts: list[str]) -> list[int]:
        encodings = self._tokenizer.encode_batch(texts, add_special_tokens=False)
        return [len(e.ids) for e in encodings]


def body_spans(body: str, offsets: Sequence[tuple[int, int]], budget: int) -> list[Span]:
    """Character spans of `body` covering all its tokens, at most `budget` tokens each."""
    count = len(offsets)
    if count <= budget:
        return [(0, len(body))]
    strength = break_strengths(body, offsets)
    overlap = budget // 4
    token_spans: list[tuple[int, int]] = []
    start = 0
    while count - start > budget:
        stop = _best_break(strength, start + budget // 2, start + budget, latest=True)
        token_spans.append((start, stop))
        start = max(_best_break(strength, stop - overlap, stop - 1, latest=False), start + 1)
    token_spans.append((start, count))
    return [(offsets[a][0], offsets[b - 1][1]) for a, b in token_spans]


def break_strengths(body: str, offsets: Sequence[tuple[int, int]]) -> list[int]:
    """How natural a cut before each token is: 4 blank line, 3 line end, 2 sentence end,
    1 word start, 0 inside a word (a word piece or punctuation attached to it)."""
    strengths = [0] * len(offsets)
    for i in range(1, len(offsets)):
        gap = body[offsets[i - 1][1] : offsets[i][0]]
        if not gap:
            continue
        lines = gap.count("\n")
        if lines >= 2:
            strengths[i] = 4
        elif lines == 1:
            strengths[i] = 3
        elif body[offsets[i - 1][1] - 1 : offsets[i - 1][1]] in (".", "!", "?", ":"):
            strengths[i] = 2
        else:
            strengths[i] = 1
    return strengths


def _best_break(strength: list[int], low: int, high: int, latest: bool) -> int:
    """The token index in [low, high] with the strongest break (ties: latest or earliest)."""
    low = max(low, 1)
    candidates = range(high, low - 1, -1) if latest else range(low, high + 1)
    best = max(candidates, key=strength.__getitem__, default=high)  # the first of the strongest
    return best if strength[best] else high
