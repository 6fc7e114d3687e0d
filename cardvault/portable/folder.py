"""`cardvault import FOLDER`: a folder of Markdown notes planned as cards, then imported the way
an export is (importer.py), in one commit.

Read the folder (notes.py), split each note's frontmatter (notecards.py), name it (names.py),
convert its links (relink.py), then hand the cards to `plan_import`. Every text is screened for
secrets, each note first, so a refusal names the note's own line. A note not imported after all
(a problem, a contradiction) is taken out of the names and the notes planned again, so no card
keeps a link to a card that is not there.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cardvault import history
from cardvault.errors import CardvaultError
from cardvault.portable.format import ExportFile, ImportedCard, ImportedLog, problem
from cardvault.portable.importer import ImportPlan, plan_import
from cardvault.portable.kinds import kind_of
from cardvault.portable.names import FileNames, Named, NoteNames, assign_slugs
from cardvault.portable.notecards import (
    CardSettings,
    NoteCard,
    ParsedNote,
    note_card,
    parse_note,
)
from cardvault.portable.notes import Progress, Skipped, SourceTree, read_tree
from cardvault.portable.relink import LinkOutcome, Relinker
from cardvault.vault.card import parse_card
from cardvault.vault.fields import IMPORTED_FROM
from cardvault.vault.finding import Finding
from cardvault.vault.layout import Vault
from cardvault.vault.lognames import is_log_path
from cardvault.vault.read import CardFile
from cardvault.vault.slugs import slugify

if TYPE_CHECKING:
    from cardvault.maintain.similarity import Embeddings

#: Rounds of planning again without the notes a round could not import (each takes some out).
ROUNDS = 3


@dataclass(frozen=True)
class FolderPlan:
    """The folder's notes as cards, what importing them does, and what was left out."""

    source: Path
    kind: str
    cards: tuple[NoteCard, ...]  # in the plan's order: card i is the plan's item i + 1
    plan: ImportPlan
    skipped: tuple[Skipped, ...]
    notes: int  # Markdown files read (those that could not be read are among the problems)

    @property
    def links(self) -> tuple[LinkOutcome, ...]:
        return tuple(link for card in self.cards for link in card.links)

    def link_counts(self) -> dict[str, int]:
        counts = {"note": 0, "card": 0, "attachment": 0, "unresolved": 0}
        for link in self.links:
            counts[link.kind] += 1
        return counts


def plan_folder(
    vault: Vault,
    source: Path,
    today: dt.date,
    category: str | None = None,
    redact: bool = False,
    progress: Progress | None = None,
    embeddings: Embeddings | None = None,
) -> FolderPlan:
    """What importing the notes of `source` would do."""
    from cardvault.maintain.newcard import FALLBACK_CATEGORY

    categories = tuple(vault.config.categories)
    if category is not None and category not in categories:
        raise CardvaultError(
            f"--category {category!r} is not one of this vault's categories: "
            + ", ".join(categories)
        )
    tree = read_tree(source, vault.root, progress)
    dated = [note for note in tree.notes if is_log_path(note.rel, note.text)]
    logs = tuple(ImportedLog(i, note.rel, note.text) for i, note in enumerate(dated, start=1))
    parsed, problems = _parsed(tree, redact, {log.rel for log in logs})
    label = tree.root.name or "notes"
    slugs, names = _names(vault, parsed, label)
    default = category or (FALLBACK_CATEGORY if FALLBACK_CATEGORY in categories else categories[0])
    settings = CardSettings(categories, default, today, label, history.file_dates(tree.root))
    paths = {p.note.rel: _card_rel(p.note.rel, slugs[p.note.rel]) for p in parsed}
    gone: set[str] = set()
    for _ in range(ROUNDS):
        relinker = Relinker(
            names, FileNames(tree.attachments), tree.root, vault.root,
            lambda rel: (vault.root / paths[rel]).parent,
        )  # fmt: skip
        cards, card_problems, failed = _cards(parsed, slugs, paths, relinker, settings, progress)
        export = ExportFile(
            tuple(
                ImportedCard(i, c.rel, parse_card(c.text, vault.root / c.rel))
                for i, c in enumerate(cards, start=1)
            ),
            (),
            logs,
            tuple([*problems, *card_problems]),
        )
        plan = plan_import(vault, export, today, redact=redact, embeddings=embeddings)
        dropped = _not_imported(cards, plan) | failed
        if dropped <= gone:
            break
        gone |= dropped
        names = names.without(gone)
    kind = kind_of(tree.has_obsidian, [n.rel for n in tree.notes], [p.meta for p in parsed])
    return FolderPlan(tree.root, kind, tuple(cards), plan, tree.skipped, len(tree.notes))


def _names(vault: Vault, parsed: list[ParsedNote], label: str) -> tuple[dict[str, str], NoteNames]:
    """Each note's slug, and the names links resolve against (the notes' and the vault's)."""
    from cardvault.vault.read import read_vault
    from cardvault.write.add import taken_slugs

    snapshot = read_vault(vault)
    reserved = _imported_before(snapshot.cards, label, {p.note.rel for p in parsed})
    taken = set(snapshot.names) | taken_slugs(vault)
    slugs = assign_slugs([p.note.rel for p in parsed], reserved, taken)
    return slugs, NoteNames([_named(p, slugs[p.note.rel]) for p in parsed], snapshot.names)


def _parsed(
    tree: SourceTree, redact: bool, logs: set[str]
) -> tuple[list[ParsedNote], list[Finding]]:
    """The notes (not the daily `logs`) that read, and a problem for each that does not. Without
    `redact`, a note holding a secret is a problem naming its own line, and is not planned (so
    links to it do not resolve when the rest is imported with --partial)."""
    from cardvault.guard import ensure_no_secrets

    parsed: list[ParsedNote] = []
    problems = list(tree.problems)
    for note in tree.notes:
        if note.rel in logs:
            continue
        found = parse_note(note)
        if isinstance(found, Finding):
            problems.append(found)
            continue
        if not redact:
            try:
                ensure_no_secrets(note.text, note.rel)
            except CardvaultError as exc:
                problems.append(problem(note.rel, exc.message, exc.line or 0))
                continue
        parsed.append(found)
    return parsed, problems


def _imported_before(cards: Iterable[CardFile], label: str, rels: set[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for card in cards:
        origin = card.card.meta.get(IMPORTED_FROM)
        if isinstance(origin, str) and origin.startswith(f"{label}/"):
            rel = origin.removeprefix(f"{label}/")
            if rel in rels:
                found.setdefault(rel, card.slug)
    return found


def _named(parsed: ParsedNote, slug: str) -> Named:
    return Named(
        parsed.note.rel,
        slug,
        parsed.text_of("title"),
        parsed.text_of("permalink"),
        parsed.aliases(),
    )


def _card_rel(note_rel: str, slug: str) -> str:
    folders = [slugify(part) for part in note_rel.split("/")[:-1]]
    return "/".join(["memory", "cards", *folders, f"{slug}.md"])


def _cards(
    parsed: list[ParsedNote],
    slugs: dict[str, str],
    paths: dict[str, str],
    relinker: Relinker,
    settings: CardSettings,
    progress: Progress | None,
) -> tuple[list[NoteCard], list[Finding], set[str]]:
    """The notes' cards, the problems keeping the others out, and those notes' paths."""
    cards: list[NoteCard] = []
    problems: list[Finding] = []
    failed: set[str] = set()
    for number, item in enumerate(parsed, start=1):
        if progress is not None:
            progress("planning cards", number, len(parsed))
        made = note_card(item, slugs[item.note.rel], paths[item.note.rel], relinker, settings)
        if isinstance(made, Finding):
            problems.append(made)
            failed.add(item.note.rel)
        else:
            cards.append(made)
    return cards, problems, failed


def _not_imported(cards: list[NoteCard], plan: ImportPlan) -> set[str]:
    """Notes whose card the plan does not write or fold (a problem, a contradiction)."""
    placed = {o.index for o in plan.outcomes if o.kind != "conflicting"}
    return {card.note for index, card in enumerate(cards, start=1) if index not in placed}
