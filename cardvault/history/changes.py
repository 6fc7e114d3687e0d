"""What each commit changed under a vault's `memory/` and MEMORY.md: the files before and after,
read from git's objects through GitPython, for `cardvault history` and `cardvault diff`
(insight/changes.py says what the changes mean).

Renames are found as git finds them (a card moved to memory/archive/ is one rename). A root
commit is compared with the empty tree; a merge commit with its first parent. Texts are read as
UTF-8 with replacement: what git holds is data, never code.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardvault.history.runner import GitError

#: What memory history looks at, relative to the vault's root.
MEMORY_PATHS = ("memory", "MEMORY.md")
#: Files over this size are not read (a card is a few KB; a daily log rarely 100 KB).
MAX_TEXT_BYTES = 1 << 20


@dataclass(frozen=True)
class FileChange:
    """One file a commit added (A), modified (M), deleted (D) or renamed (R), vault-relative."""

    status: str
    old_path: str | None
    new_path: str | None
    old_text: str
    new_text: str


@dataclass(frozen=True)
class CommitChanges:
    """One commit and the memory files it changed."""

    sha: str
    date: dt.datetime
    author: str
    subject: str
    body: str
    files: tuple[FileChange, ...]


def memory_commits(
    root: Path, rev: str = "HEAD", since: dt.date | None = None, limit: int | None = None
) -> list[CommitChanges]:
    """The commits reachable from `rev` that touched memory files, newest first (`since`: only
    those on or after that day; `limit`: at most that many). [] outside a repository or on an
    unborn branch; GitError for a revision git does not know."""
    import git

    from cardvault.history.repo import head_commit, open_repo, top_of

    repo = open_repo(root)
    if repo is None or head_commit(repo) is None:
        return []
    prefix = _prefix(top_of(repo), root)
    paths = [f"{prefix}{path}" for path in MEMORY_PATHS]
    options: dict[str, Any] = {}
    if since is not None:
        options["since"] = since.isoformat()
    if limit is not None:
        options["max_count"] = limit
    try:
        found = list(repo.iter_commits(rev, paths=paths, **options))
    except (git.GitCommandError, ValueError) as exc:
        raise GitError(f"unknown revision {rev!r}", root) from exc
    return [_changes(commit, prefix) for commit in found]


def one_commit(root: Path, rev: str = "HEAD") -> CommitChanges | None:
    """The memory files commit `rev` changed (None outside a repository or with no commit);
    GitError for a revision git does not know."""
    import git

    from cardvault.history.repo import head_commit, open_repo, top_of

    repo = open_repo(root)
    if repo is None or head_commit(repo) is None:
        return None
    try:
        commit = repo.commit(rev)
    except (git.BadName, git.BadObject, ValueError) as exc:
        raise GitError(f"unknown revision {rev!r}", root) from exc
    return _changes(commit, _prefix(top_of(repo), root))


def _prefix(top: Path, root: Path) -> str:
    """The vault's folder inside the repository, as a path prefix ("" at the top)."""
    rel = root.resolve().relative_to(top.resolve()).as_posix()
    return "" if rel == "." else rel + "/"


def _changes(commit: Any, prefix: str) -> CommitChanges:
    import git

    parent = commit.parents[0] if commit.parents else git.NULL_TREE
    paths = _showable(commit, [f"{prefix}{path}" for path in MEMORY_PATHS])
    diffs = commit.diff(parent, paths=paths, R=True, find_renames=True) if paths else []
    files = tuple(_file(diff, prefix) for diff in diffs)
    message = commit.message if isinstance(commit.message, str) else commit.message.decode()
    subject, _, body = message.partition("\n")
    return CommitChanges(
        sha=commit.hexsha, date=commit.committed_datetime, author=str(commit.author.name),
        subject=subject.strip(), body=body.strip(), files=files,
    )  # fmt: skip


def _showable(commit: Any, paths: list[str]) -> list[str]:
    """`paths` as they are, unless the commit touches a file whose name the walker refuses (not
    UTF-8, which GitPython's diff reader cannot decode and then returns nothing for; control
    characters or bidi overrides, which would forge lines): then the commit's other file names
    below `paths`, so the rest is still told and those files are left out."""
    if not paths:
        return paths
    parent = commit.parents[0].hexsha if commit.parents else None
    spec = [parent, commit.hexsha] if parent else ["--root", commit.hexsha]
    raw = commit.repo.git.execute(
        ["git", "diff-tree", "-r", "-z", "--name-only", "--no-renames", *spec, "--", *paths],
        stdout_as_string=False,
    )
    names = [name for name in bytes(raw).split(b"\0") if name]
    if parent is None and names:
        names = names[1:] if names[0] == commit.hexsha.encode() else names
    good = [text for text in map(_showable_name, names) if text is not None]
    return paths if len(good) == len(names) else good


def _showable_name(name: bytes) -> str | None:
    """`name` as text, or None when it is not UTF-8 or cannot be shown as one line (control
    characters, bidi overrides: vault/confine.name_problem), like the walker refuses it."""
    from cardvault.vault.confine import name_problem

    try:
        text = name.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if name_problem(text) else text


def _file(diff: Any, prefix: str) -> FileChange:
    # `commit.diff(parent, R=True)` compares parent -> commit: a_ is before, b_ after.
    status = diff.change_type[0] if diff.change_type else "M"
    old = _rel(diff.a_path, prefix) if status != "A" else None
    new = _rel(diff.b_path, prefix) if status != "D" else None
    return FileChange(
        status, old, new, _text(diff.a_blob if old else None), _text(diff.b_blob if new else None)
    )


def _rel(path: str | None, prefix: str) -> str | None:
    return None if path is None else path.removeprefix(prefix)


def _text(blob: Any) -> str:
    if blob is None or blob.size > MAX_TEXT_BYTES:
        return ""
    data: bytes = blob.data_stream.read()
    return data.decode("utf-8", "replace")
