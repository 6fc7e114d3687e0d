"""What git knows about a vault: uncommitted paths, the head, past commits, the remote."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cardvault.vault.layout import Vault

from cardvault.history.runner import MANY_PATHS, git_dir, run_git, work_tree_of
from cardvault.vault.owned import is_vault_file

IGNORED = (".cardvault/",)


def parse_status(out: str) -> list[str]:
    """Paths in `git status --porcelain -z` output; a rename or copy gives both of its paths."""
    records = out.split("\0")
    paths: list[str] = []
    index = 0
    while index < len(records):
        record = records[index]
        index += 1
        if len(record) < 4:
            continue
        status, path = record[:2], record[3:]
        paths.append(path)
        if "R" in status or "C" in status:  # the next record is the source path, unprefixed
            if index < len(records) and records[index]:
                paths.append(records[index])
            index += 1
    return paths


def uncommitted(vault: Vault, paths: Sequence[Path] | None = None) -> list[str]:
    """Paths with uncommitted changes, relative to the work tree (untracked files included, the
    cache and hidden temporary files excluded): among `paths`, or in the whole vault, where
    only cardvault's own files count (vault/owned.py: a vault that shares its repository with
    code never sees the code's changes, nor untracked files beside its own, as its edits)."""
    top = work_tree_of(vault.root)
    if top is None or (paths is not None and not paths):
        return []
    few = paths is not None and len(paths) <= MANY_PATHS
    targets = [str(p) for p in paths] if few and paths is not None else [str(vault.root)]
    out = run_git(top, "status", "--porcelain", "-z", "--untracked-files=all", "--", *targets)
    found = [
        path
        for path in parse_status(out.stdout)
        if not path.startswith(IGNORED)
        and "/.cardvault/" not in f"/{path}"
        and not is_temp_file(path)
    ]
    if paths is None:
        return [path for path in found if is_vault_file(_vault_rel(vault, top, path))]
    if few:
        return found
    wanted = {Path(os.path.relpath(p, top)).as_posix() for p in paths}
    return [path for path in found if path in wanted]


def _vault_rel(vault: Vault, top: Path, path: str) -> str:
    """`path` (relative to the work tree) relative to the vault root ("" when outside it)."""
    rel = os.path.relpath(os.path.join(top, path), vault.root)
    return "" if rel.startswith("..") else Path(rel).as_posix()


def is_temp_file(path: str) -> bool:
    """A writer's hidden temporary file (`.card.md.x1y2z3.tmp`): never a change to commit."""
    name = path.rsplit("/", 1)[-1]
    return name.startswith(".") and name.endswith(".tmp")


def merge_in_progress(vault: Vault) -> bool:
    """Whether the repository is in the middle of a merge (MERGE_HEAD exists)."""
    folder = git_dir(vault.root)
    return folder is not None and (folder / "MERGE_HEAD").exists()


def head(vault: Vault) -> str | None:
    """The current commit id, if any."""
    top = work_tree_of(vault.root)
    if top is None:
        return None
    done = run_git(top, "rev-parse", "--verify", "-q", "HEAD", check=False)
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def commit_count(vault: Vault) -> int:
    """Number of commits reachable from HEAD (0 for none or no repository)."""
    top = work_tree_of(vault.root)
    if top is None or head(vault) is None:
        return 0
    return int(run_git(top, "rev-list", "--count", "HEAD").stdout.strip())


@dataclass(frozen=True)
class CommitInfo:
    """One commit as reports show it: id, commit date (ISO 8601) and subject line."""

    sha: str
    date: str
    subject: str


def last_commit_with_subject(vault: Vault, prefix: str) -> CommitInfo | None:
    """The newest commit touching the vault whose subject starts with `prefix`, if any."""
    import re

    top = work_tree_of(vault.root)
    if top is None or head(vault) is None:
        return None
    out = run_git(
        top,
        "log",
        f"--grep=^{re.escape(prefix)}",
        "--format=%H%x00%cI%x00%s",
        "HEAD",
        "--",
        str(vault.root),
    ).stdout
    for record in out.splitlines():
        sha, date, subject = record.split("\0", 2)
        if subject.startswith(prefix):
            return CommitInfo(sha, date, subject)
    return None


def work_tree(vault: Vault) -> Path | None:
    """The root of the git work tree holding the vault (paths in `uncommitted` are relative to
    it), or None outside a repository."""
    return work_tree_of(vault.root)


def remote_url(root: Path) -> str | None:
    """The URL of the repository's `origin` remote (else its first remote), or None: no
    repository, no remote."""
    top = work_tree_of(root)
    if top is None:
        return None
    remotes = run_git(top, "remote", check=False).stdout.split()
    if not remotes:
        return None
    name = "origin" if "origin" in remotes else remotes[0]
    done = run_git(top, "remote", "get-url", name, check=False)
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None
