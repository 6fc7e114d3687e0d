"""The names of the notes being imported: each note's slug, and what a link in a note names.

Notes are taken in a fixed order (shallowest first, then by path), so the same folder always gives
the same slugs; a note imported before keeps its card's slug, so importing a folder again finds
its cards. A link target resolves, first match wins and ignoring case as Obsidian does, by path,
then file name, `title`, `permalink`, `aliases`, then slug and the vault's cards
(docs/import.md, "Links"); among several matches the linking note's folder wins, then the one
nearest the top.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from cardvault.vault.links import link_key
from cardvault.vault.slugs import slugify, unique_slug


@dataclass(frozen=True)
class Named:
    """A note as links may name it."""

    rel: str  # path in the folder
    slug: str
    title: str | None
    permalink: str | None
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class Resolved:
    """What a link target names: a note of the import (`rel` set) or a vault card (`rel`
    None), by slug; and the other candidates when it was ambiguous."""

    slug: str
    rel: str | None
    others: tuple[str, ...] = ()


def _key(text: str) -> str:
    return text.strip().replace("\\", "/").casefold()


def _without_md(target: str) -> str:
    return target[:-3] if target.lower().endswith(".md") else target


def _depth_order(rel: str) -> tuple[int, str]:
    return rel.count("/"), rel.casefold()


def assign_slugs(
    rels: Iterable[str], reserved: Mapping[str, str], taken: Iterable[str]
) -> dict[str, str]:
    """Note path -> slug; `reserved` maps notes imported before to their cards' slugs, `taken`
    holds every name the vault uses."""
    used = set(taken)
    slugs = {rel: slug for rel, slug in reserved.items()}
    for rel in sorted(rels, key=_depth_order):
        if rel in slugs:
            continue
        stem = rel.rsplit("/", 1)[-1]
        slug = unique_slug(slugify(_without_md(stem)), used | set(slugs.values()))
        slugs[rel] = slug
    return slugs


class NoteNames:
    """Resolves link targets against the notes of one import and the vault's own names."""

    def __init__(self, notes: Iterable[Named], vault_names: Mapping[str, str]) -> None:
        self.notes = {note.rel: note for note in notes}
        self.vault_names = dict(vault_names)
        self._paths = {_key(_without_md(rel)): rel for rel in self.notes}
        self._tables: list[dict[str, list[str]]] = [defaultdict(list) for _ in range(4)]
        for note in self.notes.values():
            stem = note.rel.rsplit("/", 1)[-1]
            self._tables[0][_key(_without_md(stem))].append(note.rel)
            if note.title:
                self._tables[1][_key(note.title)].append(note.rel)
            if note.permalink:
                self._tables[2][_key(note.permalink)].append(note.rel)
            for alias in note.aliases:
                self._tables[3][_key(alias)].append(note.rel)
        self._slugs = {note.slug: note.rel for note in self.notes.values()}

    def without(self, gone: Iterable[str]) -> NoteNames:
        """These names minus the notes at the `gone` paths (not imported after all)."""
        missing = set(gone)
        kept = [note for rel, note in self.notes.items() if rel not in missing]
        return NoteNames(kept, self.vault_names)

    def resolve(self, target: str, from_rel: str) -> Resolved | None:
        """The note or card `target` names, seen from the note at `from_rel`; None if none."""
        wanted = _without_md(target.strip().replace("\\", "/").removeprefix("./"))
        if not wanted:
            return None
        folder = from_rel.rpartition("/")[0]
        if "/" in wanted:
            found = _by_path(self._paths, wanted, folder)
            if found:
                return self._pick(found, folder)
        for table in self._tables:
            found = table.get(_key(wanted), [])
            if found:
                return self._pick(found, folder)
        slug = slugify(wanted)
        if slug in self._slugs:
            return Resolved(slug, self._slugs[slug])
        card = self.vault_names.get(link_key(wanted)) or self.vault_names.get(slug)
        return Resolved(card, None) if card else None

    def _pick(self, found: list[str], folder: str) -> Resolved:
        ranked = _ranked(found, folder)
        best = ranked[0]
        return Resolved(self.notes[best].slug, best, tuple(ranked[1:]))


class FileNames:
    """Resolves embed and link targets against the attachments of one import."""

    def __init__(self, files: Iterable[str]) -> None:
        self._paths = {_key(rel): rel for rel in files}
        self._names: dict[str, list[str]] = defaultdict(list)
        for key, rel in self._paths.items():
            self._names[key.rsplit("/", 1)[-1]].append(rel)

    def resolve(self, target: str, from_rel: str) -> tuple[str | None, tuple[str, ...]]:
        """The attachment `target` names (its path in the folder) and the other candidates."""
        wanted = target.strip().replace("\\", "/").removeprefix("./")
        if not wanted:
            return None, ()
        folder = from_rel.rpartition("/")[0]
        if "/" in wanted:
            found = _by_path(self._paths, wanted, folder)
        else:
            found = self._names.get(_key(wanted), [])
        if not found:
            return None, ()
        ranked = _ranked(found, folder)
        return ranked[0], tuple(ranked[1:])


def _by_path(paths: Mapping[str, str], wanted: str, folder: str) -> list[str]:
    """The paths `wanted` names: relative to `folder`, else from the top, else every path
    ending in it."""
    relative = posixpath.normpath(posixpath.join(folder, wanted))
    for candidate in (relative, posixpath.normpath(wanted.lstrip("/"))):
        rel = paths.get(_key(candidate))
        if rel is not None and not candidate.startswith("../"):
            return [rel]
    tail = "/" + _key(wanted.lstrip("/"))
    return [rel for key, rel in paths.items() if ("/" + key).endswith(tail)]


def _ranked(found: Iterable[str], folder: str) -> list[str]:
    """Candidates best first: in the linking note's folder, then nearest the top, then by path."""
    return sorted(
        set(found), key=lambda rel: (rel.rpartition("/")[0] != folder, *_depth_order(rel))
    )
