"""GitPython for a vault's repository: the one place a `git.Repo` is made, and made safely.

Imported only when a function that needs it is called (readers, `--help` and the everyday commit
never load it: tests/test_startup.py). The repository is the work tree `runner.work_tree_of`
found, opened at its `.git` folder (GitPython never searches on its own); every git it starts,
its persistent `cat-file` included, gets `runner.safe_env` through `SafeGit`; and it only reads
`.git/`: every write there is a git command, never GitPython's own writers (docs/security.md).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import git

from cardvault.history.runner import GitError, safe_env, work_tree_of


class SafeGit(git.Git):
    """GitPython's `Git`, every command given cardvault's safe environment on top of the
    caller's (`env=` of a call adds to it)."""

    def execute(self, command: Any, istream: Any = None, **kwargs: Any) -> Any:  # type: ignore[override]
        kwargs["env"] = {**safe_env(os.environ), **(kwargs.get("env") or {})}
        return super().execute(command, istream, **kwargs)


class VaultRepo(git.Repo):
    """A `git.Repo` whose git commands run through `SafeGit`."""

    GitCommandWrapperType = SafeGit


#: Repositories opened in this process, by work tree (a `Repo` reads its config when made).
_OPEN: dict[Path, VaultRepo] = {}


def open_repo(root: Path) -> VaultRepo | None:
    """The repository whose work tree holds `root`, or None outside one."""
    top = work_tree_of(root)
    if top is None:
        return None
    key = top.resolve()
    known = _OPEN.get(key)
    if known is not None and os.path.isdir(known.git_dir):
        return known
    dot_git = key / ".git"
    try:
        repo = VaultRepo(dot_git if dot_git.is_dir() else key, search_parent_directories=False)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise GitError(f"not a git repository git can open: {exc}", top) from exc
    if repo.working_tree_dir is None or Path(repo.working_tree_dir).resolve() != key:
        raise GitError("the repository's work tree is not the folder holding its .git", top)
    _OPEN[key] = repo
    return repo


def top_of(repo: VaultRepo) -> Path:
    """The repository's work tree (where its git commands run)."""
    assert repo.working_tree_dir is not None  # open_repo refuses a bare repository
    return Path(repo.working_tree_dir)


def head_commit(repo: VaultRepo) -> git.Commit | None:
    """The commit HEAD points at (None on an unborn branch)."""
    try:
        return repo.head.commit
    except ValueError:
        return None
