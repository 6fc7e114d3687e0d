"""`check --fix`: the mechanical repairs (tag spelling, CRLF line endings, a final newline), as
new file texts. Pure: planning reads the snapshot and writes nothing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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


def plan_fixes(vault: Vault) -> list[Fix]:
    """Mechanical repairs for every card that needs one (unreadable cards are left alone)."""
    return [
        fix for card in read_vault(vault, verify=True).cards if (fix := card_fix(card)) is not None
    ]


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
