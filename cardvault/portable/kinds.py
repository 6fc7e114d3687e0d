"""What kind of notes a folder holds, for `import`'s report and `init`'s offer.

- obsidian: an `.obsidian/` folder at the top;
- claude-code: Claude Code's auto-memory folder (`~/.claude/projects/<project>/memory/`): a
  `MEMORY.md` index at the top and topic files beside it, no sub-folders of notes;
- basic-memory: at least half the notes that have frontmatter carry basic-memory's `permalink`;
- plain: any other folder of Markdown.
Every kind is imported by the same rules (notecards.py, relink.py): the features of each (wiki-
links and embeds, `title`/`permalink` names, observations and relations, a `type`) are read
wherever they appear. The kind names what was found; it changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

KINDS = ("obsidian", "claude-code", "basic-memory", "plain")
#: Notes read to tell the kind when surveying a folder (`init`): enough to see a habit.
SURVEY_READS = 200
#: Files that make a folder a code project: its Markdown is documentation, not notes.
PROJECT_MARKERS = (
    "pyproject.toml", "setup.py", "package.json", "Cargo.toml", "go.mod", "pom.xml",
    "build.gradle", "Gemfile", "composer.json", "Makefile", "CMakeLists.txt",
)  # fmt: skip


def kind_of(has_obsidian: bool, rels: Iterable[str], metas: Iterable[Mapping[str, Any]]) -> str:
    """The kind of a folder with an `.obsidian/` folder or not, these notes and frontmatters."""
    if has_obsidian:
        return "obsidian"
    paths = list(rels)
    if "MEMORY.md" in paths and all("/" not in rel for rel in paths):
        return "claude-code"
    with_front = [meta for meta in metas if meta]
    if with_front and 2 * sum("permalink" in meta for meta in with_front) >= len(with_front):
        return "basic-memory"
    return "plain"


@dataclass(frozen=True)
class Survey:
    """How many notes a folder holds and of what kind; `project` names a code project's marker
    file (its Markdown is documentation, not notes) or is None."""

    notes: int
    kind: str
    project: str | None


def survey(folder: Path, vault_root: Path | None = None) -> Survey:
    """The notes in `folder` (read as import would, without the vault's own files); the kind
    from the first SURVEY_READS notes."""
    from cardvault.portable.notecards import ParsedNote, parse_note
    from cardvault.portable.notes import read_note, walk_folder

    root = folder.resolve()
    if not root.is_dir():
        return Survey(0, "plain", None)
    rels, _, _ = walk_folder(root, vault_root.resolve() if vault_root else None)
    metas = []
    for rel in rels[:SURVEY_READS]:
        note, _, _ = read_note(root, rel)
        parsed = parse_note(note) if note is not None else None
        if isinstance(parsed, ParsedNote):
            metas.append(parsed.meta)
    obsidian = (root / ".obsidian").is_dir() and not (root / ".obsidian").is_symlink()
    marker = next((name for name in PROJECT_MARKERS if (root / name).is_file()), None)
    return Survey(len(rels), kind_of(obsidian, rels, metas), marker)
