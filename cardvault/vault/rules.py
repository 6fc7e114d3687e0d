"""Learned rules: the one reading of AGENTS.md's managed `rules` section, and how it is rebuilt.

A rule starts on a non-indented, non-blank line; indented lines that follow continue it; blank
lines and HTML comments are skipped. A rule ending with a card citation,
`(memory/cards/slug.md)`, was written by promotion and is kept while its card is promoted; any
other was written by hand and is kept as it is."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cardvault.vault.links import cited_paths
from cardvault.vault.sections import get_section, section_line

SECTION = "rules"
_GENERATED = re.compile(r"\((?:memory/cards/|memory/archive/)[^)]*\.md\)\s*$")
_LEARNED_BY = re.compile(r"\s+— learned by [^()]*$")
#: How far from a rule's end its card's citation may start: a card's path is a file name of at
#: most 255 bytes in one of two folders. Searching only that tail keeps a line of 40,000
#: "(memory/cards/" from costing a scan to its end from each of them.
_CITATION_TAIL = 320


@dataclass(frozen=True)
class Rule:
    """One rule: its text as written (continuation lines joined by newlines) and first line."""

    text: str
    line: int

    @property
    def flat(self) -> str:
        """The rule on one line (continuation lines joined with single spaces)."""
        return " ".join(part.strip() for part in self.text.splitlines() if part.strip())

    @property
    def cites(self) -> tuple[str, ...]:
        """Card paths the rule cites."""
        return tuple(cited_paths(self.text))

    @property
    def said(self) -> str:
        """What the rule says: on one line, without its list bullet, and, for a generated one,
        without its card's citation and who learned it."""
        text = re.sub(r"^[-*+]\s+", "", self.flat)
        if self.generated:
            text = _LEARNED_BY.sub("", _GENERATED.sub("", text).rstrip())
        return text.strip()

    @property
    def generated(self) -> bool:
        """Whether promotion wrote it (it ends with the citation of its card)."""
        text = self.text.rstrip()
        return bool(_GENERATED.search(text, max(0, len(text) - _CITATION_TAIL)))


def parse_rules(section: str, first_line: int = 1) -> list[Rule]:
    """The rules of a section's content; `first_line` is the file line of its first line."""
    rules: list[tuple[list[str], int]] = []
    in_comment = False
    for number, line in enumerate(section.splitlines(), start=first_line):
        stripped = line.strip()
        if in_comment or stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            continue
        if not stripped:
            continue
        if line[:1] in (" ", "\t") and rules:
            rules[-1][0].append(line.rstrip())
        else:
            rules.append(([line.rstrip()], number))
    return [Rule("\n".join(lines), number) for lines, number in rules]


def read_rules(agents_text: str | None, path: Path | None = None) -> list[Rule]:
    """The rules in AGENTS.md's text (none when absent); a broken section raises
    CardFormatError with the marker's line."""
    if agents_text is None:
        return []
    section = get_section(agents_text, SECTION, path)
    if section is None:
        return []
    begin = section_line(agents_text, SECTION) or 1
    after = agents_text.split("\n")[begin:]  # the lines after the begin marker
    leading = next((index for index, line in enumerate(after) if line), 0)
    return parse_rules(section, begin + 1 + leading)


def recited(text: str, rel: str) -> str:
    """A generated rule's text citing the card at `rel` instead (its card was merged away and
    another now holds its slug)."""
    head = text.rstrip()
    tail = _GENERATED.search(head, max(0, len(head) - _CITATION_TAIL))
    return f"{head[: tail.start()]}({rel})" if tail else head


def rebuilt_section(
    current: str | None, generated: Iterable[str], added: Iterable[str] = ()
) -> str:
    """The section's new content: its comments, then its hand-written rules, the `added` ones and
    the `generated` ones (which replace what promotion wrote before), sorted case-insensitively
    without duplicates."""
    section = current or ""
    comments = _comment_lines(section)
    hand = [rule.text for rule in parse_rules(section) if not rule.generated]
    unique = dict.fromkeys(r.rstrip() for r in (*hand, *added, *generated) if r.strip())
    rules = sorted(unique, key=lambda text: (text.casefold(), text))
    return "\n".join([*comments, *rules])


def _comment_lines(section: str) -> list[str]:
    lines: list[str] = []
    in_comment = False
    for line in section.splitlines():
        if in_comment or line.strip().startswith("<!--"):
            lines.append(line.rstrip())
            in_comment = "-->" not in line
    return lines
