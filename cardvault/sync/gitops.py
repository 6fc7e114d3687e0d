"""The git steps of `cardvault sync`: which branch and remote, fetch, merge, push.

Each is one or two git commands through `history.run_git`; none takes the lock (the sync
service holds it around them). A merge that stops on a conflict is described (files and the
lines of each conflict block) and aborted, so the repository is back where it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cardvault.errors import CardvaultError
from cardvault.history import GitError, identity_env, run_git
from cardvault.sync.merge_text import conflict_lines
from cardvault.vault.confine import read_confined
from cardvault.vault.files import MAX_FILE_BYTES


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


@dataclass(frozen=True)
class MergeOutcome:
    """How a merge ended: "up to date", "fast-forward", "merged" or "conflict"."""

    how: str
    conflicts: tuple[Conflict, ...] = ()
    changed: tuple[str, ...] = ()  # files the merge changed in the work tree


def current_branch(top: Path) -> str:
    """The checked-out branch (a detached HEAD cannot sync)."""
    done = run_git(top, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    if done.returncode != 0:
        raise CardvaultError("HEAD is detached; check out a branch before syncing", top)
    return done.stdout.strip()


def default_remote(top: Path, branch: str) -> str:
    """The branch's upstream remote, else `origin`."""
    done = run_git(top, "config", "--get", f"branch.{branch}.remote", check=False)
    return done.stdout.strip() or "origin"


def check_remote(top: Path, remote: str) -> None:
    """Refuse a remote the repository does not know."""
    if run_git(top, "remote", "get-url", remote, check=False).returncode != 0:
        known = run_git(top, "remote").stdout.split()
        listed = ", ".join(known) if known else "none; add one with `git remote add origin URL`"
        raise CardvaultError(f"no git remote named '{remote}' (remotes: {listed})", top)


def fetch(top: Path, remote: str, branch: str) -> bool:
    """Fetch the remote's branch; False when the remote has no such branch yet."""
    done = run_git(top, "fetch", "--quiet", remote, check=False)
    if done.returncode != 0:
        raise GitError(f"git fetch {remote} failed: {done.stderr.strip()}", top)
    return remote_head(top, remote, branch) is not None


def merge(top: Path, target: str, message: str) -> MergeOutcome:
    """Merge `target` into HEAD with the vault's drivers; abort and describe a conflict."""
    before = run_git(top, "rev-parse", "HEAD").stdout.strip()
    env = identity_env(top)
    done = run_git(top, "merge", "--no-edit", "-m", message, target, env=env, check=False)
    if done.returncode == 0:
        after = run_git(top, "rev-parse", "HEAD").stdout.strip()
        changed = run_git(top, "diff", "--name-only", before, after).stdout.split("\n")
        how = "up to date" if before == after else (
            "fast-forward" if "Fast-forward" in done.stdout else "merged"
        )  # fmt: skip
        return MergeOutcome(how, (), tuple(p for p in changed if p))
    unmerged = run_git(top, "diff", "--name-only", "--diff-filter=U").stdout.split()
    if not unmerged:  # the merge never started (an untracked file in the way, ...)
        raise GitError(f"git merge {target} failed: {(done.stderr or done.stdout).strip()}", top)
    conflicts = tuple(Conflict(path, tuple(_marked_lines(top, path))) for path in unmerged)
    run_git(top, "merge", "--abort")
    return MergeOutcome("conflict", conflicts)


def _marked_lines(top: Path, rel: str) -> list[int]:
    """Where the conflict blocks of a real file of the work tree start (none for a symlink)."""
    try:
        data = read_confined(top, top / rel, MAX_FILE_BYTES)
    except (OSError, CardvaultError):
        return []
    return conflict_lines(data.decode("utf-8", errors="replace"))


def refuse_overwriting(top: Path, paths: list[str]) -> None:
    """Refuse a merge that would overwrite uncommitted changes to files that are not the
    vault's (code in a shared repository), as `git merge` does."""
    if not paths:
        return
    out = run_git(top, "status", "--porcelain", "-z", "--untracked-files=all", "--", *paths)
    dirty = [record[3:] for record in out.stdout.split("\0") if len(record) > 3]
    if dirty:
        names = ", ".join(dirty[:3]) + (f" and {len(dirty) - 3} more" if len(dirty) > 3 else "")
        raise CardvaultError(
            f"the merge would overwrite uncommitted changes to {names}; commit or stash them, "
            "then sync again; nothing merged",
            top,
        )


def remote_head(top: Path, remote: str, branch: str) -> str | None:
    """The commit our copy of the remote's branch points at (None: no such branch)."""
    ref = f"refs/remotes/{remote}/{branch}"
    done = run_git(top, "rev-parse", "--verify", "--quiet", ref, check=False)
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def unpublished(top: Path, remote: str, branch: str) -> list[str]:
    """The files a push of HEAD to `remote`'s `branch` would publish changes to: the tree
    difference from the remote's branch; for a new branch, every file the commits the remote
    does not have yet touch."""
    known = remote_head(top, remote, branch)
    if known is not None:
        args = ["diff", "--name-only", "--no-renames", "-z", known, "HEAD"]
    else:
        args = ["log", "--format=", "--name-only", "--no-renames", "-z", "HEAD"]
        args += ["--not", f"--remotes={remote}"]
    return sorted({path for path in run_git(top, *args).stdout.split("\0") if path.strip()})


def push(top: Path, remote: str, branch: str, commit: str = "HEAD") -> bool:
    """Push `commit` (the one checked under the lock; HEAD may have moved on since) to the
    remote's branch. False when it was refused because the remote's branch moved since we
    fetched it (another machine pushed first); other failures raise."""
    known = remote_head(top, remote, branch)
    upstream = run_git(top, "config", "--get", f"branch.{branch}.remote", check=False).stdout
    done = run_git(top, "push", "--quiet", remote, f"{commit}:refs/heads/{branch}", check=False)
    if done.returncode == 0:
        if not upstream.strip():  # the first push: the branch follows the remote's from now on
            run_git(top, "branch", f"--set-upstream-to={remote}/{branch}", branch, check=False)
        return True
    run_git(top, "fetch", "--quiet", remote, check=False)
    if remote_head(top, remote, branch) != known:
        return False
    raise GitError(f"git push {remote} {branch} failed: {done.stderr.strip()}", top)
