"""`check --fix`: the mechanical repairs (tag spelling, CRLF line endings, a final newline), as
new file texts, planned under the vault lock (from the files as they are when the write
happens) and written all or nothing by the door; nothing is written when there is nothing to
fix."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cardvault.edits.changes import WriteFile
from cardvault.edits.proposal import Proposal, propose
from cardvault.vault.card import update_card_text
from cardvault.vault.fields import TAGS
from cardvault.vault.layout import Vault
from cardvault.vault.read import CardFile, read_vault
from cardvault.vault.slugs import tagify


@dataclass(frozen=True)
class Fix:
    """A mechanical repair: the file's new text, given the digest of the text it was made from."""

    path: Path
    text: str
    expected: str
    what: str


def plan_fixes(vault: Vault) -> Proposal[list[Fix]]:
    """The write of the repairs every card needs (unreadable cards are left alone), for the
    door to call under the lock; its value is the repairs, one commit line per file."""
    cards = read_vault(vault, verify=True).cards
    fixes = [fix for card in cards if (fix := card_fix(card)) is not None]
    changes = [WriteFile(f.path, f.text, f.expected, f.what, "fix", 1) for f in fixes]
    lines = "\n".join(f"{vault.rel(f.path)}: {f.what}" for f in fixes)
    return propose(changes, f"check: fix {len(fixes)} file(s)\n\n{lines}\n", fixes)


def card_fix(card: CardFile) -> Fix | None:
    """The repair one card needs, if any."""
    text, what = card.file.text, list[str]()
    if card.card.newline == "\r\n":
        text, what = text.replace("\r\n", "\n"), [*what, "CRLF to LF"]
    tags = card.card.meta.get(TAGS)
    if isinstance(tags, str):
        tags = tags.split(",")
    if isinstance(tags, list):
        fixed = list(dict.fromkeys(t for t in (tagify(str(x)) for x in tags) if t))
        if fixed != card.card.meta.get(TAGS):
            text = update_card_text(text, {TAGS: fixed}, path=card.path)
            what.append("tags")
    if text and not text.endswith("\n"):
        text, what = text + "\n", [*what, "final newline"]
    return Fix(card.path, text, card.file.digest, ", ".join(what)) if what else None
