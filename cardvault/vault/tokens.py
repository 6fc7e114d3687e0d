"""The one token count every budget uses (card size, context pack, MEMORY.md summaries).

Rule: text is split the way BPE tokenizers of current LLMs (cl100k/o200k style) split it, and
each piece is charged what those tokenizers typically charge:

- a run of ASCII letters costs 1 token per 6 characters, rounded up ("authentication" = 3);
- digits cost 1 token per group of up to 3 (cl100k splits numbers that way);
- every other visible character (punctuation, symbols, each CJK ideograph or kana) costs 1;
- other non-ASCII letters (accented words, Cyrillic, ...) cost 1 per 3 characters;
- whitespace is free (BPE folds it into the next token).

Why a rule and not a real tokenizer: budgets must be deterministic, offline, identical on every
machine and cheap enough for `check` on 10,000 cards; tiktoken fetches its vocabularies from the
network, and the embedding model's WordPiece vocabulary would make `check` load the model
package. On English prose the rule lands within about 10 % of cl100k, slightly above it, which
is the safe side for a budget. It is a budget measure, not a billing one.
"""

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
    """Return the deterministic token count of `text` (see the module docstring for the rule)."""
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
