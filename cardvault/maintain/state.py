"""The vault as maintenance sees it: the one read path's snapshot plus the review queue, the
date the run counts as today, the vectors and the uses this clone recorded since its last fold.

A `VaultState` is immutable: `after(changes)` returns the state the changes would leave, so each
step plans against the steps before it without anything being written. Files that do not parse
are listed in `problems` and never touched.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from cardvault.edits.apply import final_texts
from cardvault.edits.changes import Change, WriteFile
from cardvault.errors import CardvaultError, NotFoundError
from cardvault.maintain.calibration import ModelConstants, constants_for
from cardvault.maintain.similarity import Embeddings
from cardvault.vault.card import parse_card
from cardvault.vault.daily import LogEntry
from cardvault.vault.decisions import ReviewItem, parse_queue, queue_path, render_queue
from cardvault.vault.files import ABSENT, FileText, digest_text, read_if_present
from cardvault.vault.layout import Vault
from cardvault.vault.read import CardFile, VaultSnapshot, read_vault
from cardvault.vault.snapshot import only_one
from cardvault.vault.uses import Unfolded, read_unfolded

__all__ = ["CardFile", "VaultState", "load_state", "state_of"]


@dataclass(frozen=True)
class VaultState:
    """Everything a maintenance step reads. `files` maps each card's path to it (treat as
    read-only); the lookups below are computed on first use and kept with the state."""

    vault: Vault
    today: dt.date
    files: Mapping[Path, CardFile]
    entries: tuple[LogEntry, ...]
    memory: FileText | None
    agents: FileText | None
    embeddings: Embeddings | None = field(default=None, compare=False)
    since: dt.date | None = None
    problems: tuple[str, ...] = ()
    #: The files the read could not use (vault-relative): what they hold is unknown, not gone.
    unreadable: frozenset[str] = frozenset()
    queue: FileText | None = None  # memory/review.jsonl
    #: The uses this clone recorded since its last fold (vault/uses.py).
    uses: Unfolded = field(default_factory=Unfolded, compare=False)

    @cached_property
    def constants(self) -> ModelConstants:
        """The model-dependent cut-offs for the vault's model (maintain/calibration.py)."""
        return constants_for(self.vault.config)

    @cached_property
    def review_items(self) -> tuple[ReviewItem, ...]:
        """The review queue's items, pending and settled, first asked first."""
        if self.queue is None:
            return ()
        return tuple(parse_queue(self.queue.text, self.queue.path))

    @cached_property
    def lower_case_words(self) -> frozenset[str]:
        """Every word some card or log entry writes in lower case (so "Verify" is no name)."""
        from cardvault.maintain.text import lower_case_words

        texts = [c.card.body for c in self.files.values()]
        return lower_case_words(texts + [f"{e.title}\n{e.body}" for e in self.entries])

    @cached_property
    def cards(self) -> tuple[CardFile, ...]:
        """Every card, live first, in path order."""
        return tuple(sorted(self.files.values(), key=lambda c: (c.archived, str(c.path))))

    @cached_property
    def live(self) -> list[CardFile]:
        """Cards under memory/cards, in path order."""
        return [c for c in self.cards if not c.archived]

    @cached_property
    def _names(self) -> dict[tuple[bool, str], CardFile]:
        names: dict[tuple[bool, str], CardFile] = {}
        for card in reversed(self.cards):
            for alias in card.card.aliases:
                names[(card.archived, alias)] = card
        for card in reversed(self.cards):
            names[(card.archived, card.slug)] = card
        return names

    def card_at(self, path: Path) -> CardFile | None:
        """The card (as this state has it) at `path`."""
        return self.files.get(path)

    def by_slug(self, slug: str, archived: bool = False) -> CardFile | None:
        """The live (or, with `archived`, any) card whose slug or alias is `slug`; slugs win."""
        pools = (False, True) if archived else (False,)
        found = [self._names[(pool, slug)] for pool in pools if (pool, slug) in self._names]
        return next((card for card in found if card.slug == slug), found[0] if found else None)

    def live_card(self, slug: str) -> CardFile:
        """The live card a command names (an error when there is none, or it is archived)."""
        found = self.by_slug(slug)
        if found is not None:
            return only_one(found, self.cards, self.vault)
        archived = self.by_slug(slug, archived=True)
        if archived is not None:
            raise CardvaultError(
                f"{slug} is archived; move it back to memory/cards first", archived.path
            )
        raise NotFoundError(f"no live card with slug or alias '{slug}'")

    @cached_property
    def taken(self) -> frozenset[str]:
        """Every slug in use, live or archived."""
        return frozenset(c.slug for c in self.files.values())

    def cited(self) -> set[str]:
        """Every source cited by any card, live or archived."""
        return {source for c in self.files.values() for source in c.card.sources}

    @cached_property
    def entries_by_ref(self) -> dict[str, LogEntry]:
        """Every citation that names a log entry -> the entry."""
        from cardvault.vault.entry_ids import entries_by_ref

        return entries_by_ref(self.entries)

    def entry_names(self, source: str) -> frozenset[str]:
        """Every citation naming the entry `source` names (just `source` when it names none)."""
        entry = self.entries_by_ref.get(source)
        return entry.refs if entry is not None else frozenset((source,))

    def queue_write(
        self, items: Sequence[ReviewItem], lines: Sequence[str], step: str, tally: int = 0
    ) -> WriteFile:
        """The write that makes the review queue `items`, each of `lines` a line of its reason."""
        expected = self.queue.digest if self.queue is not None else ABSENT
        text = render_queue(items)
        return WriteFile(queue_path(self.vault.root), text, expected, "\n".join(lines), step, tally)

    def require_embeddings(self) -> Embeddings:
        """The run's vectors (steps that need similarity call this)."""
        if self.embeddings is None:
            raise CardvaultError("this step needs the embedding model, which was not loaded")
        return self.embeddings

    def after(self, changes: Iterable[Change]) -> VaultState:
        """The state once `changes` are applied (nothing is written)."""
        final = final_texts(changes)
        if not final:
            return self
        vault = self.vault
        held = {vault.memory_md: self.memory, vault.agents_md: self.agents}
        held[queue_path(vault.root)] = self.queue
        files = dict(self.files)
        for path, text in final.items():
            file = None if text is None else FileText(path, text, digest_text(text))
            if path in held:
                held[path] = file
                continue
            files.pop(path, None)
            if file is not None:
                archived = vault.archive_dir in path.parents
                files[path] = CardFile(file, parse_card(file.text, path), archived)
        memory, agents, queue = held.values()
        return replace(self, files=files, memory=memory, agents=agents, queue=queue)


def load_state(
    vault: Vault,
    today: dt.date,
    embeddings: Embeddings | None = None,
    since: dt.date | None = None,
    snapshot: VaultSnapshot | None = None,
) -> VaultState:
    """The vault read once (unless the caller holds its `snapshot`), and this clone's uses."""
    if snapshot is None:
        snapshot = read_vault(vault, verify=True)
    state = state_of(snapshot, today, embeddings, since)
    return replace(state, uses=read_unfolded(vault))


def state_of(
    snapshot: VaultSnapshot,
    today: dt.date,
    embeddings: Embeddings | None = None,
    since: dt.date | None = None,
) -> VaultState:
    """The maintenance view of a snapshot the caller already holds."""
    return VaultState(
        vault=snapshot.vault,
        today=today,
        files={card.path: card for card in snapshot.cards},
        entries=snapshot.entries,
        memory=snapshot.memory,
        agents=snapshot.agents,
        embeddings=embeddings,
        since=since,
        problems=tuple(f"{problem} (skipped)" for problem in snapshot.problems),
        unreadable=frozenset(problem.path for problem in snapshot.problems),
        queue=_queue(snapshot.vault),
    )


def _queue(vault: Vault) -> FileText | None:
    """The review queue's text; one that does not parse stops the run (its lines are a
    person's decisions, nothing may overwrite them)."""
    path = queue_path(vault.root)
    file = read_if_present(path, vault.root)
    if file is None:
        return None
    parse_queue(file.text, path)
    return file
