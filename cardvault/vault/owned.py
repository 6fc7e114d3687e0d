"""Which files are cardvault's own: what it may write, journal, commit as hand edits and push.

A vault may share its folder and repository with other things (`cardvault init .` in a code
repository). cardvault's files are fixed by the layout (DESIGN.md §1): the settings, MEMORY.md,
AGENTS.md, the files it names under `memory/`, the `.gitattributes` naming its merge drivers,
and the global vault's project registry. It writes `.gitignore` once (`init`), so that file may
be in its own writes and pushes, but a hand edit of it is never cardvault's to commit. Never
code, untracked files beside the vault, `.cardvault/` or `.git/`. Paths are relative to the
root with forward slashes; any other form (absolute, `..`, a backslash, a NUL) is no vault file."""

from __future__ import annotations

#: cardvault's own files at the vault root (besides everything under memory/).
ROOT_FILES = frozenset(
    {"cardvault.toml", "MEMORY.md", "AGENTS.md", ".gitattributes", "projects.toml"}
)
#: Files cardvault writes but whose hand edits are the user's business (`init` adds a line).
WRITTEN_ONCE = frozenset({".gitignore"})
MEMORY_DIR = "memory/"
#: What cardvault writes under memory/: cards, logs and hot memory (.md), the review queue
#: (.jsonl), forget records (.txt), and the empty folders' placeholders.
MEMORY_SUFFIXES = (".md", ".jsonl", ".txt")
PLACEHOLDER = ".gitkeep"


def plain_rel(rel: str) -> bool:
    """Whether `rel` is a plain relative path: no root, drive, `..`, `.`, empty part, backslash
    or NUL (the only form a vault file is named in)."""
    if not rel or rel.startswith("/") or "\\" in rel or "\0" in rel:
        return False
    return all(part not in ("", ".", "..") for part in rel.split("/"))


def is_vault_file(rel: str) -> bool:
    """Whether the file at `rel` (relative to the vault root) is one of cardvault's own files:
    a hand edit of it may be committed by cardvault (`sync`, `maintain --commit-pending`)."""
    if not plain_rel(rel):
        return False
    parts = rel.split("/")
    if any(part in (".git", ".cardvault") for part in parts):
        return False
    return rel in ROOT_FILES or (
        rel.startswith(MEMORY_DIR) and len(parts) > 1 and _memory_file_name(parts[-1])
    )


def _memory_file_name(name: str) -> bool:
    """Whether a file under memory/ is named as cardvault names its files there: never an
    editor's swap, backup or lock file, a `.DS_Store`, a cut-off write's `.x.tmp` or an
    attachment (an editor's swap file holds unsaved text)."""
    if name == PLACEHOLDER:
        return True
    return not name.startswith((".", "#")) and name.endswith(MEMORY_SUFFIXES)


def is_written_file(rel: str) -> bool:
    """Whether cardvault itself ever writes the file at `rel`: a vault file, or `.gitignore`
    (what a crash journal may name, and what `sync` may push)."""
    return is_vault_file(rel) or rel in WRITTEN_ONCE
