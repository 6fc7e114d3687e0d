"""Giving log entries their ids: the once-only migration of a vault of positional citations.

A positional citation (`memory/2026-03-10.md#10:00-2`) names another entry once a merge
interleaves two clones' entries of one minute. `id_changes` gives every entry without an id (or
with a copied one) an id derived from its text (two clones write the same bytes) and rewrites
the positional citations that name an entry; those that name none are left for `check`.
`maintain` runs it first, in a commit of its own, so a person reviews it apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from cardvault.edits.changes import Change, WriteFile
from cardvault.vault.card import update_card_text
from cardvault.vault.decisions import ReviewItem, parse_queue, queue_path, render_queue
from cardvault.vault.entry_ids import cited_entry, is_positional, stamped_log
from cardvault.vault.fields import SOURCES
from cardvault.vault.files import read_if_present
from cardvault.vault.read import VaultSnapshot
from cardvault.vault.snapshot import LogFile

STEP = "ids"


@dataclass(frozen=True)
class IdMigration:
    """The migration's changes, and how many entries and citations it touches."""

    changes: tuple[Change, ...]
    entries: int
    citations: int

    @property
    def message(self) -> str:
        """The subject (and body) of the migration's commit."""
        cited = f"; {self.citations} citation(s) rewritten to them" if self.citations else ""
        why = (
            "Citations name entries by these ids (memory/DATE.md#ID), which survive merges "
            "and reordering; the old positional form (#HH:MM-N) still resolves."
        )
        return f"log: give {self.entries} entries stable ids{cited}\n\n{why}\n"


def id_changes(snapshot: VaultSnapshot) -> IdMigration:
    """The migration of `snapshot`'s vault (no changes when there is nothing to migrate)."""
    changes: list[Change] = []
    renamed: dict[str, str] = {}
    logs: dict[str, LogFile] = {}
    stamped = 0
    for log in snapshot.logs:
        rel = snapshot.rel(log.file.path)
        if rel in snapshot.partial:
            continue
        done = stamped_log(log.file.text, log.file.path)
        renamed.update(done.renamed)
        logs[rel] = log
        if done.stamped:
            stamped += done.stamped
            reason = f"gave {done.stamped} entr{'y' if done.stamped == 1 else 'ies'} an id"
            changes.append(WriteFile(log.file.path, done.text, log.file.digest, reason, STEP))
    citations = 0
    for card in snapshot.cards:
        sources = card.card.sources
        text = f"{card.card.topic}\n{card.card.body}"
        new = [_by_content(s, logs, renamed, text) if is_positional(s) else s for s in sources]
        if new != list(sources):
            citations += sum(1 for a, b in zip(sources, new, strict=True) if a != b)
            text = update_card_text(card.file.text, {SOURCES: new}, path=card.path)
            reason = "cites its log entries by id"
            changes.append(WriteFile(card.path, text, card.file.digest, reason, STEP))
    queue = _queue_change(snapshot, renamed)
    if queue is not None:
        changes.append(queue[0])
        citations += queue[1]
    return IdMigration(tuple(changes), stamped, citations)


def _by_content(
    ref: str, logs: Mapping[str, LogFile], renamed: Mapping[str, str], text: str
) -> str:
    """The id citation of the entry the positional `ref` of a card of `text` names, read by
    content; `ref` itself when no entry clearly is it."""
    log = logs.get(ref.partition("#")[0])
    entry = cited_entry(ref, log.entries, text) if log is not None else None
    return renamed.get(entry.position_ref, ref) if entry is not None else ref


def _queue_change(
    snapshot: VaultSnapshot, renamed: Mapping[str, str]
) -> tuple[WriteFile, int] | None:
    path = queue_path(snapshot.vault.root)
    file = read_if_present(path, snapshot.vault.root)
    if file is None:
        return None
    items = parse_queue(file.text, path)
    rewritten = [_renamed_item(item, renamed) for item in items]
    count = sum(1 for a, b in zip(items, rewritten, strict=True) if a != b)
    if not count:
        return None
    reason = f"{count} review item(s) name their log entries by id"
    return WriteFile(path, render_queue(rewritten), file.digest, reason, STEP), count


def _renamed_item(item: ReviewItem, renamed: Mapping[str, str]) -> ReviewItem:
    """`item` with its entry members and answers named by id; its own id stays."""
    members = tuple(
        replace(m, key=renamed.get(m.key, m.key), source=renamed.get(m.source, m.source))
        if m.source is not None
        else m
        for m in item.members
    )
    chosen = tuple(renamed.get(key, key) for key in item.chosen)
    if members == item.members and chosen == item.chosen:
        return item
    return replace(item, members=members, chosen=chosen)
