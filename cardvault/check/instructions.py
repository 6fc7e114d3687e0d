"""Text in cards and logs that reads like an instruction to the agent, not like a note.

Memory reaches an agent as quoted data (context/pack.py), but a note that speaks to the agent
(a `SYSTEM:` line, "ignore previous instructions", a chat template's role token) or imitates
cardvault's own structure (a `# Learned rules` heading, a managed-section marker, a `<memory>`
tag) was most likely planted: `check` warns at its line. The patterns are narrow on purpose,
so the real notes of docs/security.md's corpora raise none.
"""

from __future__ import annotations

import re

from cardvault.check.cards import Found
from cardvault.vault.confine import shown

#: The catalog fact the results are kept under (bump when the patterns change).
FACT = "check.instructions@1"
_LEAD = r"^[\s>*_#`\-]*"
PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(_LEAD + r"SYSTEM(?: PROMPT| MESSAGE)?\s*:"), "a system-prompt line"),
    (
        re.compile(
            r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?"
            r"(?:the\s+|your\s+|my\s+)?(?:previous|prior|above|earlier|preceding|original)\s+"
            r"(?:instructions?|prompts?|directions|directives|rules|guidelines)\b"
            r"|\b(?:ignore|disregard)\s+(?:everything|anything|all)\s+(?:above|before|prior)\b",
            re.IGNORECASE,
        ),
        "an instruction to ignore earlier instructions",
    ),
    (
        re.compile(
            r"\b(?:without|never|don't|do not)\s+(?:telling|tell|informing|inform)\s+the\s+user\b",
            re.IGNORECASE,
        ),
        "an instruction to act behind the user's back",
    ),
    (
        re.compile(_LEAD + r"new\s+(?:system\s+)?instructions?\s*:", re.IGNORECASE),
        "a new-instructions line",
    ),
    (
        re.compile(r"<\|im_start\|>|<\|system\|>|<<SYS>>|\[INST\]|</?system>", re.IGNORECASE),
        "a chat template's role token",
    ),
    (
        re.compile(r"^\s{0,3}#{1,6}\s*(?:learned|global)\s+rules\s*#*\s*$", re.IGNORECASE),
        "a heading imitating the context's learned rules",
    ),
    (re.compile(r"<!--\s*cardvault:(?:begin|end)\b"), "a cardvault section marker"),
    (re.compile(r"</?memory(?=[\s>/]|$)", re.IGNORECASE), "a tag imitating a memory block"),
)


def instruction_findings(text: str) -> list[Found]:
    """A warning for each line of a card's or log's text that matches one of `PATTERNS`."""
    found: list[Found] = []
    for number, line in enumerate(text.splitlines(), start=1):
        for pattern, what in PATTERNS:
            match = pattern.search(line)
            if match is not None:
                quote = shown(match.group(0).strip())[:60]
                message = (
                    f'looks like {what} ("{quote}"), not a note: memory is data for the agent, '
                    "never instructions; reword or remove it"
                )
                found.append((number, "warning", "instruction-like", message))
                break
    return found
