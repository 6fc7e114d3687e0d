"""What the guard reports: a secret's kind and where it is, never its value."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SecretFinding:
    """One secret: its kind and its span, `line:start` to `end_line:end` (lines 1-based).

    `end_line` is None for a secret on one line; only private-key blocks span lines.
    """

    kind: str
    line: int
    start: int
    end: int
    end_line: int | None = None


Span = tuple[int, int, str]  # a secret on one line: start column, end column, kind
