"""MEMORY.md's managed `categories` table: what it holds for a set of live cards, inside the
file's byte budget.

One row per category with live cards (most cards first): the count and the main topics as
links, promoted cards first, then the most seen, then the most recently updated. While the
whole file is over budget, the row showing the most topics gives one up; when no row shows a
topic, the smallest categories fold into a last "…and N more categories" row. Maintenance, the
write door (edits/derived.py) and the session pack (context/build.py) all show it from here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cardvault.vault.card import as_date
from cardvault.vault.fields import UPDATED
from cardvault.vault.layout import Vault
from cardvault.vault.sections import set_section, without_markers
from cardvault.vault.snapshot import CardFile

SECTION = "categories"
MAX_TOPICS = 4
EMPTY = "_No cards yet._"
HEADER = "| category | cards | main topics |\n|---|---|---|"


@dataclass(frozen=True)
class Row:
    """A category, its number of live cards, and its topic links, most important first."""

    category: str
    count: int
    links: tuple[str, ...]


def with_table(
    text: str, vault: Vault, live: Sequence[CardFile], budget: int, path: Path | None = None
) -> tuple[str, bool]:
    """MEMORY.md's `text` with its categories table made current for the `live` cards, and
    whether the file then fits its byte `budget` (the step's write; the session-start pack
    shows the same table before any maintenance run has written it)."""
    content, fits = fit_table(text, category_rows(vault, live), budget)
    return set_section(text, SECTION, content, path), fits


def category_rows(vault: Vault, live: Sequence[CardFile]) -> list[Row]:
    """Rows for the table, largest category first."""
    by_category: dict[str, list[CardFile]] = {}
    for card in live:
        category = _cell(card.card.category).replace("|", "\\|")
        by_category.setdefault(category or "uncategorised", []).append(card)
    rows = [
        Row(name, len(cards), tuple(_link(vault, c) for c in sorted(cards, key=_importance)))
        for name, cards in by_category.items()
    ]
    return sorted(rows, key=lambda r: (-r.count, r.category))


def _importance(card: CardFile) -> tuple[int, int, int, str]:
    updated = as_date(card.card.meta.get(UPDATED))
    return (
        0 if card.card.status == "promoted" else 1,
        -card.card.seen,
        -(updated.toordinal() if updated else 0),
        card.card.topic.casefold(),
    )


def _link(vault: Vault, card: CardFile) -> str:
    topic = _cell(card.card.topic).replace("\\", "\\\\").replace("]", "\\]").replace("|", "\\|")
    return f"[{topic}]({vault.rel(card.path)})"


def _cell(text: str) -> str:
    """`text` fit for one cell of the table: on one line (a line break in a card's topic or
    category would end the row and start text of its own in MEMORY.md) and without section
    markers (which would end the section)."""
    return " ".join(without_markers(text).split())


def render_table(rows: list[Row], shown: list[int], visible: int) -> str:
    """The section's content with `shown[i]` topics in row i and the first `visible` rows."""
    if not rows:
        return EMPTY
    lines = [HEADER]
    for row, count in zip(rows[:visible], shown, strict=False):
        topics = ", ".join(row.links[:count])
        rest = len(row.links) - count
        if rest:
            topics = f"{topics} …and {rest} more" if topics else f"…and {rest} more"
        lines.append(f"| {row.category} | {row.count} | {topics} |")
    hidden = rows[visible:]
    if hidden:
        cards = sum(r.count for r in hidden)
        lines.append(f"| …and {len(hidden)} more categories | {cards} | |")
    return "\n".join(lines)


def fit_table(text: str, rows: list[Row], budget: int) -> tuple[str, bool]:
    """The largest table that keeps the whole file within `budget` bytes, and whether it fits."""
    shown = [min(MAX_TOPICS, len(r.links)) for r in rows]
    visible = len(rows)
    while True:
        content = render_table(rows, shown, visible)
        if len(set_section(text, SECTION, content).encode("utf-8")) <= budget:
            return content, True
        if any(shown[:visible]):
            most = max(shown[:visible])
            index = max(i for i in range(visible) if shown[i] == most)
            shown[index] -= 1
        elif visible > 1:
            visible -= 1
        else:
            return content, False
