"""The app's reads for a server of one vault (the MCP server's `read` tool and resources): one
memory file whole, the learned rules, the live cards; and the search index brought up to date
before the first search and after each write. Also re-exports the names that server renders
with, so the front end imports only the app.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardvault.app.wiring import Wiring
from cardvault.context.pack import NOTICES_SOURCE, PREAMBLE, quoted, quoted_notices
from cardvault.vault.bounded_data import json_loads
from cardvault.vault.config import MAX_CONTEXT_TOKENS
from cardvault.vault.progress import ProgressLines, duration

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from cardvault.vault.card import Card
    from cardvault.vault.progress import Progress

__all__ = [
    "MAX_CONTEXT_TOKENS", "NOTICES_SOURCE", "PREAMBLE", "MemoryFile", "ProgressLines",
    "ServedCommands", "duration", "json_loads", "quoted", "quoted_notices",
]  # fmt: skip


@dataclass(frozen=True)
class MemoryFile:
    """One memory file read whole: its path in the vault and its text; for a card, the card
    and its age in words (`updated 40 days ago, last used 3 days ago`)."""

    path: str
    text: str
    card: Card | None = None
    age: str = ""


class ServedCommands(Wiring):
    """Whole-file reads of the project vault, and its index kept warm, for a long-lived server."""

    def read_card(self, name: str, used: bool = True) -> MemoryFile:
        """The card named `name` (slug or alias, archived too; MCP `read` and the card
        resource); `used`: a use is recorded (the card is read for a task). NotFoundError
        when there is none."""
        from cardvault.context.used import named_card, read_used
        from cardvault.context.value import card_age

        vault, today = self.project(), self.now().date()
        card = read_used(vault, name, today) if used else named_card(vault, name)
        return MemoryFile(vault.rel(card.path), card.text, card, card_age(card, today))

    def read_log(self, day: dt.date) -> MemoryFile:
        """The daily log of `day` as written (NotFoundError when there is none)."""
        vault = self.project()
        path = vault.log_path(day.isoformat())
        return self._read(path, f"no daily log for {day} ({vault.rel(path)} does not exist)")

    def read_memory_index(self) -> MemoryFile:
        """MEMORY.md as written (NotFoundError when the vault has none)."""
        return self._read(self.project().memory_md, "the vault has no MEMORY.md")

    def learned_rules(self) -> list[str]:
        """The learned rules of AGENTS.md, one block each, as `context` gives them."""
        from cardvault.context.build import read_sources, rule_items

        return [item.block for item in rule_items(read_sources(self.project()))]

    def card_slugs(self) -> list[str]:
        """The slug of every live card, sorted by path."""
        from cardvault.vault.layout import iter_card_paths

        return [path.stem for path in iter_card_paths(self.project())]

    def index_first(
        self, progress: Progress, starting: Callable[[], None] | None = None
    ) -> bool | None:
        """Build the project's search index now when it has none (or an interrupted one), calling
        `starting` first: None when it had one, else whether it is built now (False: another process
        keeps it, or it is broken, which the next search says)."""
        searcher = self.searcher(self.project())
        if searcher.indexed:
            return None
        if starting is not None:
            starting()
        return searcher.first_index(progress)

    def index_written(self, progress: Progress | None = None) -> None:
        """Bring the project's index up to date right after a write: the warm model embeds the
        new text, waiting for the index as long as a search would."""
        from cardvault.search.engine import SEARCH_WAIT

        searcher = self.searcher(self.project())
        searcher.synced(searcher.model.embedding(), [], progress, wait=SEARCH_WAIT)

    def _read(self, path: Path, missing: str) -> MemoryFile:
        from cardvault.errors import NotFoundError
        from cardvault.vault.files import read_if_present

        vault = self.project()
        found = read_if_present(path, vault.root)
        if found is None:
            raise NotFoundError(missing)
        return MemoryFile(vault.rel(found.path), found.text)
