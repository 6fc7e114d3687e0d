"""A vault's repository and its remote: the branch and remote to sync, fetch, push, and a
merge's conflicts (the merge itself is made in git's object store: treemerge.py).

What git knows (branch, upstream, remotes, remote refs) is read in-process through GitPython;
fetch and push are git's own commands (runner.run_git, output kept byte for byte). None
takes the vault lock: `cardvault sync` (sync/run.py) holds it around them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import git

from cardvault.errors import CardvaultError
from cardvault.history.repo import VaultRepo, open_repo
from cardvault.history.runner import GitError, git_dir, git_said, run_git
from cardvault.history.status import parse_status

#: How git starts a conflict block in a file it could not merge.
CONFLICT_START = "<<<<<<< "


@dataclass(frozen=True)
class Conflict:
    """A file the merge could not finish: where its conflict blocks start (none: one side
    removed or renamed the file the other changed)."""

    path: str
    lines: tuple[int, ...]

    def describe(self) -> list[str]:
        """`path:line: ...` for each conflict block, or one line for the whole file."""
        if not self.lines:
            return [f"{self.path}: changed on one side, removed or renamed on the other"]
        return [f"{self.path}:{n}: both sides changed these lines" for n in self.lines]


def _repo(top: Path) -> VaultRepo:
    repo = open_repo(top)
    if repo is None:
        raise CardvaultError("not in a git repository", top)
    return repo


def current_branch(top: Path) -> str:
    """The checked-out branch (a detached HEAD cannot sync)."""
    repo = _repo(top)
    if repo.head.is_detached:
        raise CardvaultError("HEAD is detached; check out a branch before syncing", top)
    return repo.active_branch.name


def default_remote(top: Path, branch: str) -> str:
    """The branch's upstream remote (the clone's own config), else `origin`."""
    return _branch_setting(top, branch, "remote") or "origin"


def _branch_setting(top: Path, branch: str, key: str) -> str:
    reader = _repo(top).config_reader("repository")
    return str(reader.get_value(f'branch "{branch}"', key, default="")).strip()


def followed_branch(top: Path, branch: str, remote: str) -> str | None:
    """The remote's branch `branch` follows on `remote` as `git pull` reads it (None: none)."""
    followed = _branch_setting(top, branch, "remote")
    merge = _branch_setting(top, branch, "merge")
    if followed == remote and merge.startswith("refs/heads/") and len(merge) > len("refs/heads/"):
        return merge.removeprefix("refs/heads/")
    return None


def check_remote(top: Path, remote: str) -> None:
    """Refuse a remote the repository does not know."""
    known = [each.name for each in _repo(top).remotes]
    if remote not in known:
        listed = ", ".join(known) if known else "none; add one with `git remote add origin URL`"
        raise CardvaultError(f"no git remote named '{remote}' (remotes: {listed})", top)


def fetch(top: Path, remote: str, branch: str) -> bool:
    """Fetch the remote's branch; False when the remote has no such branch (yet or any more: our
    copy of a branch deleted there, kept without `--prune`, does not count)."""
    done = run_git(top, "fetch", "--quiet", remote, check=False, exact=True)
    if done.returncode != 0:
        raise GitError(f"git fetch {remote} failed: {git_said(done)}", top)
    return remote_head(top, remote, branch) is not None and _fetched(top, branch)


def gone(top: Path, remote: str, branch: str) -> bool:
    """Whether the remote's `branch`, missing from the last fetch, was there before: our copy of
    it is left, or the remote has other branches (an empty remote never had it)."""
    listed = _fetch_head(top) or []
    return remote_head(top, remote, branch) is not None or any(
        what.startswith("branch '") for what in listed
    )


def _fetched(top: Path, branch: str) -> bool:
    """Whether the last fetch listed `branch` in FETCH_HEAD (True when it cannot be read)."""
    listed = _fetch_head(top)
    wanted = f"branch '{branch}' of "
    return listed is None or any(what.startswith(wanted) for what in listed)


def _fetch_head(top: Path) -> list[str] | None:
    """The last field of each FETCH_HEAD line (`branch 'NAME' of URL`); None when unreadable."""
    folder = git_dir(top)
    if folder is None:
        return None
    try:
        text = (folder / "FETCH_HEAD").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return [line.split("\t")[-1] for line in text.splitlines()]


def conflict_lines(text: str) -> list[int]:
    """1-based lines where conflict blocks start (`<<<<<<< `)."""
    return [
        n for n, line in enumerate(text.splitlines(), start=1) if line.startswith(CONFLICT_START)
    ]


def refuse_overwriting(top: Path, paths: list[str]) -> None:
    """Refuse a merge that would overwrite uncommitted changes to files that are not the
    vault's (code in a shared repository), as `git merge` does."""
    if not paths:
        return
    args = ("status", "--porcelain", "-z", "--untracked-files=all", "--", *paths)
    out = run_git(top, *args, exact=True)
    dirty = parse_status(out.stdout)
    if dirty:
        names = ", ".join(dirty[:3]) + (f" and {len(dirty) - 3} more" if len(dirty) > 3 else "")
        raise CardvaultError(
            f"the merge would overwrite uncommitted changes to {names}; commit or stash them, "
            "then sync again; nothing merged",
            top,
        )


def remote_head(top: Path, remote: str, branch: str) -> str | None:
    """The commit our copy of the remote's branch points at (None: no such branch)."""
    ref = git.Reference(_repo(top), f"refs/remotes/{remote}/{branch}")
    if not ref.is_valid():
        return None
    return ref.commit.hexsha


def dropped_tip(top: Path, remote: str, branch: str, before: str | None = None) -> str | None:
    """The newest commit our copy of the remote's branch pointed at (`before` the last fetch,
    then its reflog) that the branch no longer holds but HEAD does: the remote's history was
    rewritten, and merging HEAD would publish the dropped commits again. None otherwise."""
    ref = f"refs/remotes/{remote}/{branch}"
    if remote_head(top, remote, branch) is None:
        return None
    ours = set(run_git(top, "rev-list", "HEAD", f"^{ref}").stdout.split())
    if not ours:
        return None
    return next((sha for sha in [before or "", *_logged(top, ref)] if sha in ours), None)


def _logged(top: Path, ref: str) -> list[str]:
    """Every value the reflog of `ref` records, old and new, newest first."""
    folder = git_dir(top)
    try:
        lines = (folder / "logs" / ref).read_text(encoding="utf-8").splitlines() if folder else []
    except (OSError, UnicodeDecodeError):
        return []
    return [sha for line in reversed(lines) for sha in reversed(line.split(" ", 2)[:2])]


def unpublished(top: Path, remote: str, branch: str) -> list[str]:
    """The files a push of HEAD to `remote`'s `branch` would publish changes to."""
    known = remote_head(top, remote, branch)
    if known is not None:
        args = ["diff", "--name-only", "--no-renames", "-z", known, "HEAD"]
    else:
        args = ["log", "--format=", "--name-only", "--no-renames", "-z", "HEAD"]
        args += ["--not", f"--remotes={remote}"]
    listed = run_git(top, *args, exact=True).stdout.split("\0")
    return sorted({path for path in listed if path.strip()})


def push(
    top: Path, remote: str, branch: str, commit: str = "HEAD", local: str | None = None
) -> bool:
    """Push `commit` (the one checked under the lock) to the remote's `branch`; False when the
    remote's branch moved since we fetched it (another machine pushed first)."""
    local = local or branch
    known = remote_head(top, remote, branch)
    upstream = _branch_setting(top, local, "remote")
    done = run_git(top, "push", "--quiet", remote, f"{commit}:refs/heads/{branch}", check=False)
    if done.returncode == 0:
        if not upstream:  # the first push: the branch follows the remote's from now on
            run_git(top, "branch", f"--set-upstream-to={remote}/{branch}", local, check=False)
        return True
    run_git(top, "fetch", "--quiet", remote, check=False)
    if remote_head(top, remote, branch) != known:
        return False
    raise GitError(f"git push {remote} {branch} failed: {git_said(done)}", top)
