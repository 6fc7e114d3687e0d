"""The vault as one read sees it: its cards, logs, MEMORY.md, AGENTS.md and rules, and the files
it could not use. Plain values with lookups (a card by any name it answers to, the rules); the
read path (read.py) builds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from cardvault.errors import CardvaultError
from cardvault.vault.card import Card
from cardvault.vault.daily import LogEntry
from cardvault.vault.files import FileText
from cardvault.vault.finding import Finding
from cardvault.vault.layout import FileStat, Vault
from cardvault.vault.links import WikiLink, link_key, name_table, wiki_links
from cardvault.vault.rules import Rule, read_rules
from cardvault.vault.tokens import count_tokens


@dataclass(frozen=True)
class CardFile:
    """A card and the exact text (and digest) it was parsed from."""

    file: FileText
    card: Card
    archived: bool
    counted: int | None = field(default=None, compare=False, repr=False)
    linked: tuple[WikiLink, ...] | None = field(default=None, compare=False, repr=False)

    @property
    def slug(self) -> str:
        return self.card.slug

    @property
    def path(self) -> Path:
        return self.file.path

    @property
    def tokens(self) -> int:
        """The card file's size under the token rule."""
        return self.counted if self.counted is not None else count_tokens(self.file.text)

    @property
    def links(self) -> tuple[WikiLink, ...]:
        """Its wiki-links, frontmatter included."""
        return self.linked if self.linked is not None else wiki_links(self.file.text)


def only_one(card: CardFile, cards: Iterable[CardFile], vault: Vault) -> CardFile:
    """`card`, found by a name for a command that acts on one card; CardvaultError naming the files
    when other card files have its slug: a card pushed to a sub-folder under a teammate's slug
    would otherwise be the one promoted, archived or renamed."""
    files = sorted(vault.rel(c.path) for c in cards if c.slug == card.slug)
    if len(files) > 1:
        raise CardvaultError(
            f"slug '{card.slug}' is used by several files: {', '.join(files)}; rename or remove "
            "all but one (`cardvault check` lists them)",
            card.path,
        )
    return card


@dataclass(frozen=True)
class LogFile:
    """A daily log and its entries."""

    file: FileText
    entries: tuple[LogEntry, ...]


@dataclass(frozen=True)
class VaultSnapshot:
    """Everything in the vault's Markdown as of one read. Treat as read-only."""

    vault: Vault
    cards: tuple[CardFile, ...]  # live first, then archived; path order in each
    logs: tuple[LogFile, ...]  # oldest first
    memory: FileText | None
    agents: FileText | None
    problems: tuple[Finding, ...] = ()  # the files it could not use
    parsed: int = 0
    notices: tuple[str, ...] = ()
    stamps: Mapping[str, FileStat] = field(default_factory=dict, compare=False, repr=False)
    digests: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    #: Each agent's hot memory (memory/agents/<name>.md) by agent name.
    hot: Mapping[str, FileText] = field(default_factory=dict)

    @cached_property
    def live(self) -> tuple[CardFile, ...]:
        """Cards under memory/cards."""
        return tuple(c for c in self.cards if not c.archived)

    @cached_property
    def archived(self) -> tuple[CardFile, ...]:
        """Cards under memory/archive."""
        return tuple(c for c in self.cards if c.archived)

    @cached_property
    def partial(self) -> frozenset[str]:
        """Logs too big to read whole (relative paths): their first entries are in `logs` for
        search, context and maintenance, but no text of theirs may be written back or
        exported as the file (it is not all of it)."""
        return frozenset(p.path for p in self.problems if p.code == "too-big")

    @cached_property
    def entries(self) -> tuple[LogEntry, ...]:
        """Every log entry, in file order, oldest log first."""
        return tuple(entry for log in self.logs for entry in log.entries)

    @cached_property
    def names(self) -> dict[str, str]:
        """Card name (slug or alias) -> slug, over live and archived cards; slugs win."""
        return name_table((c.slug, c.card.aliases) for c in self.cards)

    @cached_property
    def _by_slug(self) -> dict[str, CardFile]:
        found: dict[str, CardFile] = {}
        for card in self.cards:  # live before archived: a live card wins its slug
            found.setdefault(card.slug, card)
        return found

    def card(self, name: str) -> CardFile | None:
        """The card a name (slug, alias, `[[link]]` target) points at, live first."""
        slug = self.names.get(link_key(name))
        return None if slug is None else self._by_slug.get(slug)

    def rel(self, path: Path) -> str:
        """`path` relative to the vault root."""
        return self.vault.rel(path)

    @property
    def rules(self) -> tuple[Rule, ...]:
        """AGENTS.md's learned rules (none when its rules section is broken: see rule_problem)."""
        return self._rules[0]

    @property
    def rule_problem(self) -> CardvaultError | None:
        """Why AGENTS.md's rules section cannot be read, if it cannot."""
        return self._rules[1]

    @cached_property
    def _rules(self) -> tuple[tuple[Rule, ...], CardvaultError | None]:
        text = self.agents.text if self.agents else None
        try:
            return tuple(read_rules(text, self.vault.agents_md)), None
        except CardvaultError as exc:
            return (), exc
