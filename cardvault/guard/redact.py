"""Redaction: each secret replaced by a `[REDACTED:<kind>]` marker, every other byte kept."""

from __future__ import annotations

from cardvault.guard.scan import scan_text


def redact_text(text: str) -> str:
    """`text` with every finding replaced by `[REDACTED:<kind>]`, all else byte-identical."""
    starts = [0]
    for line in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    out, cursor = [], 0
    for found in scan_text(text):
        out += [text[cursor : starts[found.line - 1] + found.start], f"[REDACTED:{found.kind}]"]
        cursor = starts[(found.end_line or found.line) - 1] + found.end
    return "".join([*out, text[cursor:]])
