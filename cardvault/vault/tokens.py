"""The one token count every budget uses (card size, context pack, MEMORY.md summaries).

Text is split the way BPE tokenizers (cl100k/o200k style) split it, and each piece charged what
they typically charge: a run of ASCII letters 1 token per 6 characters, rounded up; digits 1
per group of up to 3; other letters (accented, Cyrillic...) 1 per 3 characters; whitespace
nothing; every other visible character (punctuation, each CJK ideograph or kana) 1.

A rule, not a real tokenizer: budgets must be deterministic, offline and cheap enough for
`check` on 10,000 cards (tiktoken fetches its vocabularies; the model's WordPiece would load the
model package). On English prose it lands within about 10 % above cl100k, the safe side."""

from __future__ import annotations

import re

_PIECE = re.compile(
    r"(?P<ascii>[A-Za-z]+)"
    r"|(?P<digits>[0-9]+)"
    r"|(?P<cjk>[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff])"
    r"|(?P<word>[^\W\d_]+)"
    r"|(?P<space>\s+)"
    r"|(?P<other>.)",
    re.DOTALL,
)


def count_tokens(text: str) -> int:
    """The deterministic token count of `text` (the module docstring's rule)."""
    total = 0
    for match in _PIECE.finditer(text):
        kind = match.lastgroup
        size = match.end() - match.start()
        if kind == "ascii":
            total += -(-size // 6)
        elif kind == "digits" or kind == "word":
            total += -(-size // 3)
        elif kind != "space":
            total += 1
    return total
