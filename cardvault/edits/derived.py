"""MEMORY.md's categories table kept current by the write that changes the cards.

The door passes every plan through `with_memory_table`: when the plan adds, moves or removes a
card, the table is made for the cards as they will stand and MEMORY.md's write joins the plan,
so card and table land in one commit. Only the text between the section's markers changes; a
MEMORY.md without the section is left for `check` to report. `attributes_change` does the same
for cardvault's block in `.gitattributes`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cardvault import history
from cardvault.edits.apply import final_texts
from cardvault.edits.changes import Change, FileChange, WriteFile, file_changes, touched_paths
from cardvault.errors import CardvaultError
from cardvault.vault.card import parse_card
from cardvault.vault.files import ABSENT, FileText, digest_text, read_if_present
from cardvault.vault.layout import Vault
from cardvault.vault.memory_table import SECTION, with_table
from cardvault.vault.read import VaultSnapshot, read_vault
from cardvault.vault.sections import get_section
from cardvault.vault.snapshot import CardFile

REASON = "MEMORY.md: categories table follows the cards"


def with_memory_table(
    vault: Vault, changes: Sequence[Change], read: VaultSnapshot | None = None
) -> tuple[Change, ...]:
    """`changes`, plus MEMORY.md's table made current when they add, move or remove a card;
    `read` is the vault the plan was made from under the lock (else it is read now)."""
    if not any(_adds_moves_or_removes_a_card(vault, c) for c in file_changes(list(changes))):
        return tuple(changes)
    snapshot = read if read is not None else read_vault(vault, verify=True)
    final = final_texts(changes)
    memory = snapshot.memory
    if memory is None or vault.memory_md in final:
        memory = _planned(vault.memory_md, final, memory)
    if memory is None:
        return tuple(changes)
    cards = {card.path: card for card in snapshot.cards}
    for path, text in final.items():
        if is_card_path(vault, path):
            cards.pop(path, None)
            card = _parsed(vault, path, text)
            if card is not None:
                cards[path] = card
    live = sorted((c for c in cards.values() if not c.archived), key=lambda c: str(c.path))
    try:
        if get_section(memory.text, SECTION, memory.path) is None:
            return tuple(changes)
        text, _fits = with_table(memory.text, vault, live, vault.config.memory_byte_budget)
    except CardvaultError:
        return tuple(changes)
    if text == memory.text:
        return tuple(changes)
    return (*changes, WriteFile(vault.memory_md, text, memory.digest, REASON, "index", 1))


def _adds_moves_or_removes_a_card(vault: Vault, change: FileChange) -> bool:
    """Whether `change` adds, moves or removes a card file (an edit in place leaves the table to
    maintenance's index step)."""
    if isinstance(change, WriteFile) and not change.creates:
        return False
    return any(is_card_path(vault, path) for path in touched_paths(change))


def is_card_path(vault: Vault, path: Path) -> bool:
    """Whether `path` is a card file, live or archived."""
    folders = (vault.cards_dir, vault.archive_dir)
    return path.suffix == ".md" and any(folder in path.parents for folder in folders)


def _planned(path: Path, final: dict[Path, str | None], read: FileText | None) -> FileText | None:
    if path not in final:
        return read
    text = final[path]
    return None if text is None else FileText(path, text, digest_text(text))


def _parsed(vault: Vault, path: Path, text: str | None) -> CardFile | None:
    if text is None:
        return None
    try:
        card = parse_card(text, path)
    except CardvaultError:
        return None
    return CardFile(
        FileText(path, text, digest_text(text)), card, vault.archive_dir in path.parents
    )


def attributes_change(vault: Vault) -> WriteFile | None:
    """The change that puts cardvault's current block into `.gitattributes` (None: it is there)."""
    path = vault.root / ".gitattributes"
    current = read_if_present(path, vault.root)
    text = history.attributes_text(current.text if current is not None else None)
    if text is None:
        return None
    if current is None:
        return WriteFile(path, text, ABSENT, "added .gitattributes (merge drivers)", "git")
    return WriteFile(path, text, current.digest, "merge drivers in .gitattributes", "git")
