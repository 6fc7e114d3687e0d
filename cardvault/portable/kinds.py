"""What kind of notes a folder holds, for `import`'s report and `init`'s offer.

The kinds are docs/import.md's table ("What a folder may hold"). Every kind is imported by the
same rules: each one's features are read wherever they appear, so the kind names what was found
and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardvault.portable.notes import AGENT_FILES, read_note, vault_own, walk_folder
from cardvault.vault.lognames import is_log_file, is_log_path

KINDS = ("agent-workspace", "obsidian", "claude-code", "basic-memory", "plain")
#: Notes read to tell the kind when surveying a folder (`init`): enough to see a habit.
SURVEY_READS = 200
#: Files that make a folder a code project: its Markdown is documentation, not notes.
PROJECT_MARKERS = (
    "pyproject.toml", "setup.py", "package.json", "Cargo.toml", "go.mod", "pom.xml",
    "build.gradle", "Gemfile", "composer.json", "Makefile", "CMakeLists.txt",
)  # fmt: skip


def kind_of(has_obsidian: bool, rels: Iterable[str], metas: Iterable[Mapping[str, Any]]) -> str:
    """The kind of a folder with an `.obsidian/` folder or not, these notes and frontmatters."""
    paths = list(rels)
    if any(rel in AGENT_FILES for rel in paths) and any(is_log_path(rel) for rel in paths):
        return "agent-workspace"
    if has_obsidian:
        return "obsidian"
    if "MEMORY.md" in paths and all("/" not in rel for rel in paths):
        return "claude-code"
    with_front = [meta for meta in metas if meta]
    if with_front and 2 * sum("permalink" in meta for meta in with_front) >= len(with_front):
        return "basic-memory"
    return "plain"


@dataclass(frozen=True)
class Survey:
    """How many notes a folder holds and of what kind; `project` names a code project's marker
    file, `logs` its daily logs (`archived` under memory/archive/), `places` where the notes are."""

    notes: int
    kind: str
    project: str | None
    logs: int = 0
    archived: int = 0
    places: tuple[str, ...] = ()


def survey(folder: Path, vault_root: Path | None = None) -> Survey:
    """The notes in `folder` import would take (not the vault's own files), its daily logs, and
    its kind (from the first SURVEY_READS notes)."""
    from cardvault.portable.notecards import ParsedNote, parse_note

    root = folder.resolve()
    if not root.is_dir():
        return Survey(0, "plain", None)
    itself = vault_root is not None and vault_root.resolve() == root
    inner = vault_root.resolve() if vault_root is not None and not itself else None
    every, _, _ = walk_folder(root, inner)  # one walk, leaving out a vault inside the folder
    logs = {rel for rel in every if is_log_file(rel, str(root / rel))}
    rels = [rel for rel in every if not (itself and vault_own(rel)) and rel not in logs]
    metas = []
    for rel in rels[:SURVEY_READS]:
        note, _, _ = read_note(root, rel)
        parsed = parse_note(note) if note is not None else None
        if isinstance(parsed, ParsedNote):
            metas.append(parsed.meta)
    obsidian = (root / ".obsidian").is_dir() and not (root / ".obsidian").is_symlink()
    marker = next((name for name in PROJECT_MARKERS if (root / name).is_file()), None)
    archived = sum(1 for rel in logs if rel.startswith("memory/archive/"))
    places = tuple(dict.fromkeys(_place(rel) for rel in rels))
    return Survey(len(rels), kind_of(obsidian, every, metas), marker, len(logs), archived, places)


def _place(rel: str) -> str:
    """Where a note is, as a person names it: its top folder (`memory/lessons/` under memory/),
    or the file at the top."""
    parts = rel.split("/")
    depth = min(len(parts) - 1, 2 if parts[0] == "memory" else 1)
    return "/".join(parts[:depth]) + "/" if depth else rel
