"""What git knows about a vault: uncommitted paths, what the index tracks, what HEAD holds,
past commits, the remote.

Readers ask some of these (`stats`: the last maintenance; `context`: the remote that names the
project), so this module starts git without a library; only `committed_texts`, which writers
call, reads blobs through GitPython.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cardvault.vault.layout import Vault

from cardvault.history.runner import MANY_PATHS, git_dir, run_git, work_tree_of
from cardvault.vault.owned import is_vault_file

IGNORED = (".cardvault/",)


def parse_status(out: str) -> list[str]:
    """Paths in `git status --porcelain -z` output; a rename or copy gives both of its paths."""
    records = iter(out.split("\0"))
    paths: list[str] = []
    for record in records:
        if len(record) < 4:
            continue
        paths.append(record[3:])
        if "R" in record[:2] or "C" in record[:2]:  # the next record: the source, unprefixed
            source = next(records, "")
            if source:
                paths.append(source)
    return paths


def uncommitted(vault: Vault, paths: Sequence[Path] | None = None) -> list[str]:
    """Paths with uncommitted changes, relative to the work tree (untracked included, the cache
    and temporary files not): among `paths`, or in the whole vault, where only cardvault's own
    files count (vault/owned.py: a vault sharing its repository with code ignores the code)."""
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


def tracked_under(vault: Vault, folder: Path) -> list[str]:
    """Paths (relative to the work tree) git's index lists under `folder`; answered from the
    index file, without git, when it certainly lists none (every write asks this)."""
    top = work_tree_of(vault.root)
    if top is None:
        return []
    where = Path(os.path.relpath(folder, top)).as_posix()
    if not _index_may_list(top, where):
        return []
    listed = run_git(top, "ls-files", "-z", "--", where).stdout.split("\0")
    return [rel for rel in listed if rel]


def project_files(root: Path) -> list[str] | None:
    """The files git tracks under `root` (a project folder), relative to it; None outside git."""
    if work_tree_of(root) is None:
        return None
    done = run_git(root, "ls-files", "-z", check=False)
    if done.returncode != 0:
        return None
    return [rel for rel in done.stdout.split("\0") if rel]


def project_head(root: Path) -> str | None:
    """The commit HEAD of the repository holding `root` points at (None: none)."""
    top = work_tree_of(root)
    if top is None:
        return None
    # asked at the work tree's top: a vault folder that looks like a bare repository (a HEAD,
    # objects/, refs/) is never taken for one
    done = run_git(top, "rev-parse", "--verify", "-q", "HEAD", check=False)
    return (done.stdout.strip() or None) if done.returncode == 0 else None


def _index_may_list(top: Path, where: str) -> bool:
    """False only when the index certainly lists nothing under `where`: an unsplit index of
    version 2 or 3 keeps each path whole, so one without `where/` in it lists nothing there
    (version 4 shortens paths: maybe)."""
    folder = git_dir(top)
    if folder is None or os.environ.get("GIT_INDEX_FILE"):
        return True
    try:
        data = (folder / "index").read_bytes()
        split = any(name.startswith("sharedindex.") for name in os.listdir(folder))
    except FileNotFoundError:
        return False  # no index: git tracks nothing
    except OSError:
        return True
    whole = data[:4] == b"DIRC" and int.from_bytes(data[4:8], "big") in (2, 3)
    return split or not whole or os.fsencode(where.rstrip("/") + "/") in data


def committed_texts(top: Path, rels: Sequence[str]) -> dict[str, str]:
    """The text HEAD holds for each of `rels` it holds (relative to the work tree at `top`),
    read through GitPython: one `git cat-file` for all."""
    from cardvault.history.repo import head_commit, open_repo

    repo = open_repo(top) if rels else None
    head = head_commit(repo) if repo is not None else None
    if repo is None or head is None:
        return {}
    texts = {}
    folders: dict[str, dict[str, Any]] = {"": {item.name: item for item in head.tree}}

    def entries(folder: str) -> dict[str, Any]:
        """A folder's entries by name, each tree read once (thousands of paths otherwise read
        every tree on their way again)."""
        if folder not in folders:
            parent, _, name = folder.rpartition("/")
            item = entries(parent).get(name)
            folders[folder] = (
                {each.name: each for each in item} if item is not None and item.type == "tree"
                else {}
            )  # fmt: skip
        return folders[folder]

    try:
        for rel in rels:
            folder, _, name = rel.rpartition("/")
            item = entries(folder).get(name)
            if item is not None and item.type == "blob":
                texts[rel] = item.data_stream.read().decode("utf-8", errors="replace")
    finally:
        repo.git.clear_cache()  # the persistent `cat-file` ends here
    return texts


def _vault_rel(vault: Vault, top: Path, path: str) -> str:
    rel = os.path.relpath(os.path.join(top, path), vault.root)
    return "" if rel.startswith("..") else Path(rel).as_posix()


def is_temp_file(path: str) -> bool:
    """A writer's hidden temporary file (`.card.md.x1y2z3.tmp`): never a change to commit."""
    name = path.rsplit("/", 1)[-1]
    return name.startswith(".") and name.endswith(".tmp")


def head(vault: Vault) -> str | None:
    """The current commit id, if any."""
    return project_head(vault.root)


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


@dataclass(frozen=True)
class Reverted:
    """A commit a standing `git revert` undid: its message, and the revert's sha."""

    sha: str
    message: str
    by: str


def reverted_commits(vault: Vault) -> list[Reverted]:
    """The commits reverted in HEAD's history, less those whose revert was itself reverted;
    newest revert first (maintain/reverts.py)."""
    top = work_tree_of(vault.root)
    if top is None or head(vault) is None:
        return []
    log = run_git(top, "log", "--grep=This reverts commit", "--format=%H%x00%B%x1e", "HEAD")
    reverts: dict[str, str] = {}  # reverted commit (as named) -> the revert
    for record in log.stdout.split("\x1e"):
        sha, _, body = record.strip().partition("\0")
        for target in re.findall(r"This reverts commit ([0-9a-f]{7,40})", body):
            reverts.setdefault(target, sha)
    standing = {t: r for t, r in reverts.items() if not any(r.startswith(k) for k in reverts)}
    if not standing:
        return []
    shown = run_git(top, "show", "-s", "--format=%H%x00%B%x1e", *standing, check=False).stdout
    found = []
    for record in shown.split("\x1e"):
        sha, _, body = record.strip().partition("\0")
        by = next((r for t, r in standing.items() if sha and sha.startswith(t)), None)
        if by is not None:
            found.append(Reverted(sha, body, by))
    return found


def remote_url(root: Path) -> str | None:
    """The URL of the repository's `origin` remote (else its first), or None."""
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
