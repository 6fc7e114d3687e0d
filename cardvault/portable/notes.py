"""Reading a folder of notes for import, bounded and without following a symlink anywhere.

Every `*.md` file is a note and every other regular file an attachment (named, never read).
Dot-files, symlinks (wherever they point), anything not a regular file and, when the vault is
the folder or inside it, the vault's own files are left out (docs/import.md, "What is left
out"). Each note is one bounded read through a descriptor opened without following links, and
the whole import stops at `limits.IMPORT`; a note too big, not UTF-8 or binary is a problem
naming the file, and CRLF becomes LF: the card is written the vault's way.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from cardvault.errors import CardvaultError
from cardvault.limits import IMPORT, VAULT_FILE
from cardvault.portable.format import problem
from cardvault.vault.confine import read_file
from cardvault.vault.files import bytes_problem
from cardvault.vault.finding import Finding
from cardvault.vault.lognames import is_log_path
from cardvault.vault.progress import Progress

#: The files an agent workspace keeps at its top and the agent loads as they are (OpenClaw,
#: Clawdbot): with a daily log in memory/ they make a folder a workspace. When the workspace
#: is itself the vault they are its own files, not notes to import (VAULT_OWN).
AGENT_FILES = (
    "AGENTS.md", "MEMORY.md", "HEARTBEAT.md", "SOUL.md", "IDENTITY.md", "USER.md", "TOOLS.md",
    "BOOTSTRAP.md",
)  # fmt: skip
#: The vault's own files and folders, left out when the vault is the folder being imported.
VAULT_OWN = (
    "cardvault.toml", *AGENT_FILES,
    "memory/cards", "memory/archive", "memory/agents", "memory/forgotten",
)  # fmt: skip
NOTE_SUFFIX = ".md"


@dataclass(frozen=True)
class SourceNote:
    """One note: its path in the folder (POSIX), its text, and its file times."""

    rel: str
    text: str
    mtime: float
    birth: float | None  # creation time where the system keeps one

    @property
    def stem(self) -> str:
        return self.rel.rsplit("/", 1)[-1].removesuffix(NOTE_SUFFIX)

    @property
    def folder(self) -> str:
        return self.rel.rpartition("/")[0]


@dataclass(frozen=True)
class Skipped:
    """A path the walk did not take, and why."""

    rel: str
    why: str


@dataclass(frozen=True)
class SourceTree:
    """What the folder holds that import can use, what it left out, and what is wrong."""

    root: Path
    notes: tuple[SourceNote, ...]
    attachments: tuple[str, ...]
    skipped: tuple[Skipped, ...]
    problems: tuple[Finding, ...]
    has_obsidian: bool  # an `.obsidian/` folder at the top


def read_tree(
    source: Path, vault_root: Path | None, progress: Progress | None = None
) -> SourceTree:
    """Walk and read `source` (see the module docstring)."""
    root = source.resolve()
    if not root.is_dir():
        raise CardvaultError("not a folder", source)
    own = vault_root.resolve() if vault_root is not None else None
    if own is not None:
        _refuse_inside_vault(root, own)
    note_paths, attachments, skipped = walk_folder(root, own)
    notes: list[SourceNote] = []
    problems: list[Finding] = []
    total = 0
    for number, rel in enumerate(note_paths, start=1):
        if progress is not None:
            progress("reading notes", number, len(note_paths))
        note, size, problem = read_note(root, rel)
        total += size
        if total > IMPORT:
            raise CardvaultError(
                f"the notes are over the {IMPORT:,}-byte limit of one import "
                f"(stopped at {rel}); import the folder in parts",
                source,
            )
        if problem is not None:
            problems.append(problem)
        elif note is not None:
            notes.append(note)
    has_obsidian = (root / ".obsidian").is_dir() and not (root / ".obsidian").is_symlink()
    return SourceTree(
        root, tuple(notes), tuple(attachments), tuple(skipped), tuple(problems), has_obsidian
    )


def _refuse_inside_vault(root: Path, vault: Path) -> None:
    """A folder inside the vault's own memory or cache would import the vault into itself."""
    for own in (vault / "memory", vault / ".cardvault", vault / ".git"):
        if root == own or own in root.parents:
            raise CardvaultError(
                f"is inside the vault's own {own.name}/ folder; import notes from elsewhere", root
            )


def walk_folder(root: Path, vault: Path | None) -> tuple[list[str], list[str], list[Skipped]]:
    """(note paths, attachment paths, skipped paths), each sorted; nothing followed."""
    notes: list[str] = []
    attachments: list[str] = []
    skipped: list[Skipped] = []
    pending = [""]
    while pending:
        folder = pending.pop()
        try:
            entries = sorted(os.scandir(root / folder), key=lambda e: e.name)
        except OSError as exc:
            skipped.append(Skipped(folder or ".", f"cannot be listed: {exc.strerror}"))
            continue
        for entry in entries:
            rel = f"{folder}/{entry.name}" if folder else entry.name
            if entry.name.startswith(".") or _vault_own(root, rel, vault):
                continue
            if entry.is_symlink():
                skipped.append(Skipped(rel, "a symlink (never followed)"))
            elif entry.is_dir(follow_symlinks=False):
                pending.append(rel)
            elif not entry.is_file(follow_symlinks=False):
                skipped.append(Skipped(rel, "not a regular file"))
            elif entry.name.lower().endswith(NOTE_SUFFIX):
                notes.append(rel)
            else:
                attachments.append(rel)
    return sorted(notes), sorted(attachments), sorted(skipped, key=lambda s: s.rel)


def _vault_own(root: Path, rel: str, vault: Path | None) -> bool:
    return vault is not None and (vault_own(rel) if root == vault else root / rel == vault)


def vault_own(rel: str) -> bool:
    """Whether `rel`, in a folder that is itself the vault, is one of the vault's own files or
    folders (see the module docstring) rather than a note."""
    inside = rel.startswith(tuple(f"{own}/" for own in VAULT_OWN))
    return rel in VAULT_OWN or inside or (rel.count("/") == 1 and is_log_path(rel))


def read_note(root: Path, rel: str) -> tuple[SourceNote | None, int, Finding | None]:
    """The note at `rel`, the bytes read, and the problem that keeps it out (if any)."""
    try:
        data, _, info = read_file(root / rel, VAULT_FILE)
    except OSError as exc:
        return None, 0, problem(rel, f"cannot be read: {exc.strerror}")
    except CardvaultError as exc:  # a symlink, a FIFO: what the walk found changed since
        return None, 0, problem(rel, exc.message)
    data = data.removeprefix(b"\xef\xbb\xbf")
    trouble = bytes_problem(data)
    if trouble is not None:
        message, line = trouble
        if len(data) > VAULT_FILE:
            message = f"over the {VAULT_FILE:,}-byte limit of a card (read stopped there)"
        return None, len(data), problem(rel, message, line or 0)
    text = data.decode("utf-8").replace("\r\n", "\n")
    birth = getattr(info, "st_birthtime", None)
    return SourceNote(rel, text, info.st_mtime, birth), len(data), None
