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
