"""What each commit changed under a vault's `memory/` and MEMORY.md, files before and after, read
from git's objects through GitPython, for `cardvault history` and `cardvault diff`.

Renames are found as git finds them; a root commit is compared with the empty tree, a merge with
its first parent. Memory stays bounded whatever the history holds: commits are read one at a
time as the caller takes them, and of each at most COMMIT_FILES files are looked at and
COMMIT_READ bytes of texts read; the rest are counted, not read.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

from cardvault.history.runner import GitError
from cardvault.limits import COMMIT_FILES, COMMIT_NAMES, COMMIT_READ, VAULT_FILE

#: What memory history looks at, relative to the vault's root.
MEMORY_PATHS = ("memory", "MEMORY.md")


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
    """One commit and the memory files it changed: those read (`files`), and how many more it
    changed past COMMIT_READ (`unread`: counted, not read)."""

    sha: str
    date: dt.datetime
    author: str
    subject: str
    body: str
    files: tuple[FileChange, ...]
    unread: int = 0


def memory_commits(
    root: Path, rev: str = "HEAD", since: dt.date | None = None, limit: int | None = None
) -> Iterator[CommitChanges]:
    """The commits reachable from `rev` that touched memory files, newest first, each read when
    the caller takes it; GitError, raised here rather than at the first commit taken, for a
    revision git does not know."""
    import git

    repo, prefix = _opened(root)
    if repo is None:
        return iter(())
    paths = [f"{prefix}{path}" for path in MEMORY_PATHS]
    options: dict[str, Any] = {}
    if since is not None:
        options["since"] = since.isoformat()
    if limit is not None:
        options["max_count"] = limit
    try:
        found = repo.iter_commits(rev, paths=paths, **options)
        first = next(found, None)  # git names an unknown revision before the first commit
    except (git.GitCommandError, ValueError) as exc:
        raise GitError(f"unknown revision {rev!r}", root) from exc
    if first is None:
        return iter(())
    return (_changes(commit, prefix) for commit in chain([first], found))


def one_commit(root: Path, rev: str = "HEAD") -> CommitChanges | None:
    """The memory files commit `rev` changed (None outside a repository or with no commit)."""
    import git

    repo, prefix = _opened(root)
    if repo is None:
        return None
    try:
        commit = repo.commit(rev)
    except (git.BadName, git.BadObject, ValueError) as exc:
        raise GitError(f"unknown revision {rev!r}", root) from exc
    return _changes(commit, prefix)


def _opened(root: Path) -> tuple[Any, str]:
    """The repository holding `root` (None: none, or no commit yet) and the vault's folder in
    it as a path prefix."""
    from cardvault.history.repo import head_commit, open_repo, top_of

    repo = open_repo(root)
    if repo is None or head_commit(repo) is None:
        return None, ""
    rel = root.resolve().relative_to(top_of(repo).resolve()).as_posix()
    return repo, "" if rel == "." else rel + "/"


def _changes(commit: Any, prefix: str) -> CommitChanges:
    import git

    parent = commit.parents[0] if commit.parents else git.NULL_TREE
    paths, more = _showable(commit, [f"{prefix}{path}" for path in MEMORY_PATHS])
    diffs = commit.diff(parent, paths=paths, R=True, find_renames=True) if paths else []
    files, unread = _read(diffs, prefix)
    unread += more
    message = commit.message if isinstance(commit.message, str) else commit.message.decode()
    subject, _, body = message.partition("\n")
    return CommitChanges(
        sha=commit.hexsha, date=commit.committed_datetime, author=str(commit.author.name),
        subject=subject.strip(), body=body.strip(), files=files, unread=unread,
    )  # fmt: skip


def _read(diffs: list[Any], prefix: str) -> tuple[tuple[FileChange, ...], int]:
    """The file changes whose texts fit in COMMIT_READ, in git's order, and how many did not."""
    left, files, unread = int(COMMIT_READ), [], 0
    for diff in diffs:
        cost = _size(diff.a_blob) + _size(diff.b_blob)
        if cost > left:
            unread += 1
            continue
        left -= cost
        files.append(_file(diff, prefix))
    return tuple(files), unread


def _showable(commit: Any, paths: list[str]) -> tuple[list[str], int]:
    """(`paths`, 0), unless the commit touches a file whose name the walker refuses (not UTF-8,
    for which GitPython's diff returns nothing; control characters, which would forge lines) or
    more than COMMIT_FILES files: then the names it may show, and how many more it changed.
    git's list is read as it comes, never held whole."""
    if not paths:
        return paths, 0
    parent = commit.parents[0].hexsha if commit.parents else None
    spec = [parent, commit.hexsha] if parent else ["--root", commit.hexsha]
    process = commit.repo.git.execute(
        ["git", "diff-tree", "-r", "-z", "--name-only", "--no-renames", *spec, "--", *paths],
        as_process=True,
    )
    good: list[str] = []
    refused, more, room = False, 0, int(COMMIT_NAMES)
    root_id = None if parent else commit.hexsha.encode()  # `--root` names the commit first
    for name in _records(process.proc.stdout):
        if name == root_id:
            root_id = None
            continue
        text = _showable_name(name)
        if text is None:
            refused = True
        elif len(good) < COMMIT_FILES and len(name) <= room:
            good.append(text)
            room -= len(name)
        else:
            more += 1
    process.wait()
    return (good, more) if refused or more else (paths, 0)


def _records(stream: Any) -> Iterator[bytes]:
    rest = b""
    while block := stream.read(1 << 16):
        *done, rest = (rest + block).split(b"\0")
        yield from (record for record in done if record)
    if rest:
        yield rest


def _showable_name(name: bytes) -> str | None:
    """`name` as text, or None when the walker would refuse it (vault/confine.name_problem)."""
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


def _size(blob: Any) -> int:
    return 0 if blob is None or blob.size > VAULT_FILE else int(blob.size)


def _text(blob: Any) -> str:
    data: bytes = blob.data_stream.read() if _size(blob) else b""
    return data.decode("utf-8", "replace")
