"""How the guard reads a line: words split out of identifiers, the vocabulary that names a
credential, `name = value` assignments, and tokens shaped like identifiers rather than keys.

The detectors (`patterns`, `keywords`, `entropy`) and the value filters (`vetting`) share these.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")

CREDENTIAL = re.compile(
    r"keys?|tokens?|secrets?|passw(?:or)?d|pwd|passphrase|cred(?:ential)?s?|auth"
    r"|authorization|bearer|session(?:id)?|cookie|private|api_?key"
)
ASSIGNMENT = re.compile(r"([A-Za-z_][\w.-]*)[\"'\]]*\s*(:=|=>|={1,3}|!==?|:)\s*@?[\"'`]?$")


def word_spans(line: str) -> list[tuple[int, int, str]]:
    """(start, end, lower-case word) for every word on `line`, as `words` splits them."""
    return [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(line)]


def words(text: str) -> list[str]:
    """Lower-case words, splitting camelCase and snake_case: `apiKeyId` -> api, key, id."""
    return [match.group().lower() for match in _WORD.finditer(text)]


def in_vocabulary(found: list[str], vocabulary: re.Pattern[str]) -> bool:
    """True when one of the `found` words is wholly a word of `vocabulary`."""
    return any(vocabulary.fullmatch(word) for word in found)


def looks_like_identifier(value: str) -> bool:
    """Words and a number or two joined up: `Sam2VideoSession`, `use_l2norm_in_kernel`.

    Random tokens break into many one- and two-character runs and scatter their digits.
    """
    runs = re.findall(r"[A-Z][a-z]+|[a-z]+|[A-Z]+(?![a-z])|\d+", value)
    snake_case = re.fullmatch(r"[a-z0-9]+(?:[-_][a-z0-9]+)+", value) is not None
    long_runs = sum(map(len, runs)) >= 3 * len(runs)
    return sum(run.isdigit() for run in runs) <= 2 and (snake_case or long_runs)


def looks_random(token: str) -> bool:
    """A bare token that can only be a key, an id or a digest: 16+ letters and digits, mixing
    both, random enough, with no words in it. A value with no context around it (a file name)
    cannot be recognised any other way; what passes here is at least no name for anything.
    """
    import math
    from collections import Counter

    if len(token) < 16 or not token.isascii() or not token.isalnum():
        return False
    if token.isalpha() or token.isdigit():
        return False
    counts = Counter(token.lower())
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    return entropy >= 3.0 and not looks_like_identifier(token)
