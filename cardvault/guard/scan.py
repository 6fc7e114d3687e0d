"""Scanning a text, and the two things done with what it finds: refuse the text
(`ensure_no_secrets`) or redact it (`redact_text`: each secret a `[REDACTED:<kind>]` marker,
every other byte kept). Private-key blocks go first, then every line, masking what was found and
looking again until nothing new appears, so scanning redacted text finds nothing more.
"""

from __future__ import annotations

import re
from itertools import accumulate
from pathlib import Path

from cardvault.errors import SecretFoundError
from cardvault.guard.finding import SecretFinding
from cardvault.guard.gate import might_hold_secret
from cardvault.guard.keyblocks import key_blocks
from cardvault.guard.line import line_spans
from cardvault.guard.plugins import load_kit

_MARKER = re.compile(r"\[REDACTED:[^\]\n]*\]")


def scan_text(text: str) -> list[SecretFinding]:
    """Every secret in `text`, in reading order."""
    if not might_hold_secret(text):
        return []
    kit = load_kit()
    # Markers of an earlier redaction become `#`s of the same width: never a value or context.
    lines = _MARKER.sub(lambda m: "#" * len(m.group()), text).split("\n")
    findings = key_blocks(lines, kit)
    for _ in range(3):  # mask what was found and look again, so redacting twice changes nothing
        taken = _regions(findings, lines)
        lines = [_masked(line, taken.get(number, [])) for number, line in enumerate(lines, 1)]
        found = [
            SecretFinding(kind, number, start, end)
            for number, line in enumerate(lines, start=1)
            for start, end, kind in line_spans(line, kit, taken.get(number, []))
        ]
        if not found:
            break
        findings += found
    return sorted(findings, key=lambda f: (f.line, f.start))


def _masked(line: str, regions: list[tuple[int, int]]) -> str:
    """`line` with `regions` overwritten by `#`: found secrets are neither values nor context."""
    parts, cursor = [], 0
    for start, end in sorted(regions):
        parts += [line[cursor:start], "#" * (end - max(start, cursor))]
        cursor = max(cursor, end)
    return "".join([*parts, line[cursor:]])


def _regions(findings: list[SecretFinding], lines: list[str]) -> dict[int, list[tuple[int, int]]]:
    """Line number -> the columns findings cover on that line."""
    regions: dict[int, list[tuple[int, int]]] = {}
    for found in findings:
        last = found.end_line or found.line
        for number in range(found.line, last + 1):
            start = found.start if number == found.line else 0
            end = found.end if number == last else len(lines[number - 1])
            regions.setdefault(number, []).append((start, end))
    return regions


def secrets_added(before: str, after: str) -> list[SecretFinding]:
    """The findings of `after` whose text `before` does not already hold: what a rewrite of
    `before` into `after` would add (a card that already quotes a key is not blamed again)."""
    old_lines, lines = before.split("\n"), after.split("\n")
    old = {_value(old_lines, found) for found in scan_text(before)}
    return [f for f in scan_text(after) if _value(lines, f) not in old]


def _value(lines: list[str], found: SecretFinding) -> str:
    """The text a finding covers (lines joined by newlines for a multi-line key block)."""
    covered = _regions([found], lines).items()
    return "\n".join(lines[number - 1][start:end] for number, [(start, end)] in covered)


def ensure_no_secrets(text: str, where: str | Path, first_line: int = 1) -> None:
    """Raise SecretFoundError naming the kind and `where:line` of the first secret, not its value.

    `first_line` is the file line `text` starts on: with four lines of front matter before a
    body, pass 5 and the body's line 1 is reported as line 5.
    """
    findings = scan_text(text)
    if not findings:
        return
    shift = first_line - 1
    message = f"refusing to write a secret ({findings[0].kind}); the value is not shown"
    if len(findings) > 1:
        lines = ", ".join(str(f.line + shift) for f in findings[1:])
        message += f"; {len(findings) - 1} more (line {lines})"
    raise SecretFoundError(message, path=where, line=findings[0].line + shift)


def redact_text(text: str) -> str:
    """`text` with every finding replaced by `[REDACTED:<kind>]`, all else byte-identical."""
    starts = list(accumulate((len(line) + 1 for line in text.split("\n")[:-1]), initial=0))
    out, cursor = [], 0
    for found in scan_text(text):
        out += [text[cursor : starts[found.line - 1] + found.start], f"[REDACTED:{found.kind}]"]
        cursor = starts[(found.end_line or found.line) - 1] + found.end
    return "".join([*out, text[cursor:]])
