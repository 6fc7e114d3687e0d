"""`cardvault rename SLUG NEW`: a card under a new slug, every link following it, in one commit.

The file moves to `NEW.md` in its folder and lists the old slug in `aliases`, so a link nobody
rewrote (a daily log, a teammate's clone, an old commit) still resolves. Only cardvault's own
text is rewritten; mentions in the person's text and the append-only logs are reported.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cardvault import history
from cardvault.edits.changes import Change, MoveFile, WriteFile, reason_lines
from cardvault.edits.proposal import Planned, Proposal, Written, door_notes, propose
from cardvault.errors import CardvaultError, NotFoundError, UnsafePathError
from cardvault.vault.card import update_card_text
from cardvault.vault.fields import ALIASES
from cardvault.vault.layout import SLUG_RE, Vault
from cardvault.vault.links import WIKILINK, link_key, rename_links
from cardvault.vault.read import CardFile, VaultSnapshot, read_vault
from cardvault.vault.sections import get_section, set_section
from cardvault.vault.snapshot import only_one

STEP = "rename"
#: Managed sections whose links follow a rename: (file attribute of the snapshot, section).
MANAGED = (("memory", "categories"), ("agents", "rules"))


@dataclass(frozen=True)
class RenameResult:
    """The card's old and new slug and path, the changes, the commit, and the lines left
    naming the old slug (in the user's text or the logs), as `path:line`."""

    old: str
    new: str
    path: Path
    changes: tuple[Change, ...]
    commit: history.CommitResult | None
    left: tuple[str, ...]
    notes: list[str] = field(default_factory=list)

    @property
    def actions(self) -> list[str]:
        """One line per action of the rename, in order."""
        return reason_lines(list(self.changes))


def check_new_slug(new: str) -> None:
    """Refuse a NEW that is not a slug, or that looks like a secret."""
    from cardvault import guard
    from cardvault.vault.slugs import slugify

    if not SLUG_RE.match(new):
        hint = slugify(new)
        raise UnsafePathError(
            f"'{new}' is not a slug: lowercase letters, digits and hyphens, at most 100 "
            f"characters" + (f" (e.g. '{hint}')" if hint != "card" else "")
        )
    if guard.scan_text(new) or any(guard.looks_random(word) for word in new.split("-")):
        raise UnsafePathError(f"'{new}' looks like a secret; a card's name stays in git for good")


#: What a rename's plan hands back: the card, links left as they were, cards not read.
Renamed = tuple[CardFile, list[str], list[str]]


def rename_card(vault: Vault, slug: str, new: str) -> Planned[Renamed, RenameResult]:
    """The renaming of the card `slug` (or one of its aliases) to `new` (see the module
    docstring)."""
    check_new_slug(new)

    def plan() -> Proposal[Renamed]:
        snapshot = read_vault(vault, verify=True)
        card = _card_to_rename(snapshot, slug, new)
        changes, left = rename_changes(snapshot, card, new)
        message = f"rename: {card.slug} → {new}\n\n" + "\n".join(reason_lines(changes)) + "\n"
        return propose(changes, message, (card, left, _unread(snapshot, card.slug)))

    def result(written: Written[Renamed]) -> RenameResult:
        card, left, unread = written.value
        target = card.path.with_name(f"{new}.md")
        notes = [*door_notes(written), *unread]
        changes, commit = written.changes, written.commit
        return RenameResult(card.slug, new, target, changes, commit, tuple(left), notes)

    return Planned(plan, result)


def _unread(snapshot: VaultSnapshot, old: str) -> list[str]:
    """One note per card file that could not be read: links to `old` in it were not followed."""
    cards = snapshot.vault.rel(snapshot.vault.cards_dir)
    return [
        f"{problem.path}:{problem.line}: not read ({problem.message}); a link to {old} in it "
        "still names the old slug (it resolves through the alias until that card is forgotten)"
        for problem in snapshot.problems
        if problem.severity == "error" and problem.path.startswith(cards + "/")
    ]


def _card_to_rename(snapshot: VaultSnapshot, slug: str, new: str) -> CardFile:
    from cardvault.write.add import taken_slugs

    card = snapshot.card(slug)
    if card is None:
        raise NotFoundError(f"no card with slug or alias '{slug}'")
    only_one(card, snapshot.cards, snapshot.vault)
    if card.slug == new:
        raise CardvaultError(f"{card.slug} already has that slug", card.path)
    owner = snapshot.names.get(new)
    if owner is not None and owner != card.slug:
        kind = "the slug" if owner == new else "an alias"
        raise CardvaultError(f"'{new}' is already {kind} of card {owner}; pick another name")
    target = card.path.with_name(f"{new}.md")
    if new in taken_slugs(snapshot.vault) or target.exists() or target.is_symlink():
        raise CardvaultError(f"a card file named {new}.md already exists; pick another name")
    return card


def rename_changes(
    snapshot: VaultSnapshot, card: CardFile, new: str
) -> tuple[list[Change], list[str]]:
    """The move, the rewritten links, and the `path:line` places left naming the old slug."""
    vault = snapshot.vault
    old = card.slug
    old_rel = vault.rel(card.path)
    new_rel = vault.rel(card.path.with_name(f"{new}.md"))

    def follow(text: str) -> str:
        return _renamed(text, old, new, old_rel, new_rel)

    aliases = [a for a in card.card.aliases if a != new]
    text = update_card_text(follow(card.file.text), {ALIASES: [*aliases, old]}, path=card.path)
    target = card.path.with_name(f"{new}.md")
    changes: list[Change] = [
        MoveFile(card.path, target, text, card.file.digest, f"renamed {old} → {new}", STEP, 1)
    ]
    for other in snapshot.cards:
        if other.path == card.path:
            continue
        rewritten = follow(other.file.text)
        if rewritten != other.file.text:
            reason = f"rewrote links in {other.slug}: [[{old}]] → [[{new}]]"
            changes.append(WriteFile(other.path, rewritten, other.file.digest, reason, STEP))
    managed, left = _managed_changes(snapshot, follow, old, old_rel)
    left += _log_mentions(snapshot, old, old_rel)
    return changes + managed, left


def _renamed(text: str, old: str, new: str, old_rel: str, new_rel: str) -> str:
    """`text` with links and citations of the card pointing at its new slug and path."""
    text = rename_links(text, {old: new})
    return re.sub(rf"(?<![\w/-]){re.escape(old_rel)}(?![\w-])", new_rel, text)


def _managed_changes(
    snapshot: VaultSnapshot, follow: Callable[[str], str], old: str, old_rel: str
) -> tuple[list[Change], list[str]]:
    """MEMORY.md's and AGENTS.md's managed sections rewritten; their other lines reported."""
    changes: list[Change] = []
    left: list[str] = []
    vault = snapshot.vault
    for attribute, section in MANAGED:
        current = getattr(snapshot, attribute)
        if current is None:
            continue
        path = current.path
        content = get_section(current.text, section, path)
        text = current.text
        if content is not None and follow(content) != content:
            text = set_section(current.text, section, follow(content), path)
            reason = f"{vault.rel(path)}: links to {old}"
            changes.append(WriteFile(path, text, current.digest, reason, STEP))
        left += [
            f"{vault.rel(path)}:{number}"
            for number in _naming_lines(_outside(text, section), old, old_rel)
        ]
    return changes, left


def _outside(text: str, section: str) -> str:
    """`text` with the lines of its managed `section` blanked (line numbers kept)."""
    lines = text.split("\n")
    inside = False
    for number, line in enumerate(lines):
        if f"cardvault:begin {section} " in line:
            inside = True
        elif f"cardvault:end {section} " in line:
            inside = False
        elif inside:
            lines[number] = ""
    return "\n".join(lines)


def _naming_lines(text: str, old: str, old_rel: str) -> list[int]:
    """1-based lines of `text` with a link to `old` or its path."""
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        links = any(link_key(m.group(1)) == old for m in WIKILINK.finditer(line))
        if links or old_rel in line:
            found.append(number)
    return found


def _log_mentions(snapshot: VaultSnapshot, old: str, old_rel: str) -> list[str]:
    """Daily-log lines naming the card by its old slug (`→ card: old`, `[[old]]`, its path)."""
    card_line = re.compile(rf"(?:→|->)\s*card:\s*{re.escape(old)}(?![\w-])")
    left = []
    for log in snapshot.logs:
        rel = snapshot.rel(log.file.path)
        lines = set(_naming_lines(log.file.text, old, old_rel))
        lines |= {n for n, ln in enumerate(log.file.text.split("\n"), 1) if card_line.search(ln)}
        left += [f"{rel}:{number}" for number in sorted(lines)]
    return left
