"""Turning a note's links into vault links, and reporting each one (docs/import.md, "Links").

Outside code, a link to a note of the import or a vault card becomes a wiki-link to its slug,
keeping the text a reader saw; a link to an attachment becomes a Markdown link to the file where
it is, relative to the card (attachments are never copied); a wiki-link to nothing keeps its text
with its `[[` escaped, so `check` finds no broken link.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote

from cardvault.portable.markup import Found, find_links, unlinked
from cardvault.portable.names import FileNames, NoteNames, Resolved

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".bmp", ".avif", ".ico")
_SIZE = re.compile(r"^\d+(?:x\d+)?$")  # Obsidian's `![[a.png|300]]`, `|300x200`
_RELATION = re.compile(r"^\s*[-*+]\s+([A-Za-z_][\w-]*)\s+!?\[\[")  # basic-memory


@dataclass(frozen=True)
class LinkOutcome:
    """One link of a note: as written, and what it became."""

    note: str  # the note's path in the folder
    line: int  # in the note's file
    written: str
    kind: str  # "note" | "card" | "attachment" | "unresolved"
    target: str | None  # the slug, or the attachment's path in the folder
    detail: str = ""


@dataclass(frozen=True)
class Relinker:
    """What a note's links are resolved against, and where its card will be."""

    names: NoteNames
    files: FileNames
    source_root: Path
    vault_root: Path
    card_folder: Callable[[str], Path]  # note path -> the folder its card is written in


def relink(
    relinker: Relinker,
    note: str,
    text: str,
    first_line: int,
    wiki_only: bool = False,
    code: list[tuple[int, int]] | None = None,
) -> tuple[str, list[LinkOutcome]]:
    """`text` of the note at `note` with its links converted, and one outcome per link;
    `first_line` is the file line where `text` starts, `wiki_only` for frontmatter values."""
    pieces: list[str] = []
    outcomes: list[LinkOutcome] = []
    position = 0
    lines = text.split("\n")
    for found in find_links(text, [] if wiki_only else code):
        if wiki_only and found.kind not in ("wiki", "embed"):
            continue
        written = text[found.start : found.end]
        replacement, kind, target, detail = _convert(relinker, note, found, written)
        relation = _RELATION.match(lines[found.line - 1])
        if relation and found.kind == "wiki":
            detail = f"relation {relation.group(1)}" + (f"; {detail}" if detail else "")
        pieces += [text[position : found.start], replacement]
        position = found.end
        line = first_line + found.line - 1
        outcomes.append(LinkOutcome(note, line, written, kind, target, detail))
    pieces.append(text[position:])
    return "".join(pieces), outcomes


def _convert(
    relinker: Relinker, note: str, found: Found, written: str
) -> tuple[str, str, str | None, str]:
    """(replacement text, outcome kind, target, detail) for one link."""
    wiki = found.kind in ("wiki", "embed")
    target = found.target
    escaped_pipe = wiki and target.endswith("\\")  # `[[Note\|text]]` inside a table
    target = target.removesuffix("\\") if wiki else unquote(target)
    looks_like_file = not wiki and bool(posixpath.splitext(target)[1]) and not _is_md(target)
    resolved = None if looks_like_file else relinker.names.resolve(target, note)
    if resolved is not None:
        text = _note_link(found, target, resolved, escaped_pipe)
        kind = "note" if resolved.rel is not None else "card"
        return text, kind, resolved.slug, _ambiguity(resolved.others)
    path, others = relinker.files.resolve(target, note)
    if path is not None and not _is_md(path):
        text, detail = _file_link(relinker, note, found, path)
        return text, "attachment", path, "; ".join(filter(None, (detail, _ambiguity(others))))
    if wiki:
        return unlinked(written), "unresolved", None, "kept as text, escaped"
    return written, "unresolved", None, "left as written (names no file of the folder)"


def _is_md(path: str) -> bool:
    return path.lower().endswith(".md")


def _ambiguity(others: tuple[str, ...]) -> str:
    if not others:
        return ""
    shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
    return f"ambiguous: also {shown}"


def _note_link(found: Found, target: str, resolved: Resolved, escaped_pipe: bool) -> str:
    anchor = f"#{found.heading}" if found.heading else ""
    if found.kind == "embed" or found.kind == "image":
        label = f"|{found.label}" if found.label and not _SIZE.match(found.label) else ""
        return f"![[{resolved.slug}{anchor}{label}]]"
    if found.label:
        shown = found.label
    elif found.kind == "markdown":
        shown = ""
    else:
        shown = f"{target} > {found.heading}" if found.heading else target
    if escaped_pipe or not shown or (shown == resolved.slug and not anchor):
        return f"[[{resolved.slug}{anchor}]]"
    return f"[[{resolved.slug}{anchor}|{shown}]]"


def _file_link(relinker: Relinker, note: str, found: Found, path: str) -> tuple[str, str]:
    """A Markdown link (an image for pictures) from the card to the attachment where it is,
    and a note when that is outside the vault."""
    folder = relinker.card_folder(note)
    absolute = relinker.source_root / path
    relative = Path(os.path.relpath(absolute, folder)).as_posix()
    destination = quote(relative, safe="/._-~") + (f"#{found.heading}" if found.heading else "")
    name = path.rsplit("/", 1)[-1]
    label = found.label if found.label and not _SIZE.match(found.label) else name
    picture = found.kind in ("embed", "image") and path.lower().endswith(IMAGE_SUFFIXES)
    link = f"{'!' if picture else ''}[{label}]({destination})"
    outside = relinker.vault_root.resolve() not in absolute.resolve().parents
    return link, "left in place, outside the vault" if outside else ""
