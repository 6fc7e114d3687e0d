"""Commits: one per write, of exactly the files it wrote (or on a new branch, leaving the work
tree alone), signed with the writing agent."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cardvault.errors import CardvaultError

if TYPE_CHECKING:
    from cardvault.vault.layout import Vault

from cardvault.history.runner import (
    GitError,
    identity_env,
    message_args,
    pathspec,
    run_git,
    work_tree_of,
)

#: The commit trailer naming the agent that wrote (`--agent`, CARDVAULT_AGENT).
AGENT_TRAILER = "Agent"


@dataclass(frozen=True)
class CommitResult:
    """What `commit` did: the new commit's id, or why nothing was recorded."""

    sha: str | None
    message: str
    note: str | None = None  # e.g. "not a git repository: change not recorded"

    @property
    def recorded(self) -> bool:
        return self.sha is not None


def signed(message: str, agent: str | None) -> str:
    """`message` with an `Agent: NAME` trailer when an agent writes (git interpret-trailers
    reads it: `git log --format='%(trailers:key=Agent)'`)."""
    if not agent:
        return message
    return f"{message.rstrip()}\n\n{AGENT_TRAILER}: {agent}\n"


def commit(vault: Vault, message: str, paths: Iterable[Path] | None = None) -> CommitResult:
    """Stage `paths` (all of the vault when None; deletions and renames included) and commit
    those alone (whatever else is staged stays staged, out of the commit), signed with the
    vault's agent, if any. The message passes the secret guard first (`safe_message`): history
    is forever."""
    message = safe_message(message)
    top = work_tree_of(vault.root)
    if top is None:
        return CommitResult(None, message, "not a git repository: change written, not committed")
    targets = [str(p) for p in paths] if paths is not None else [str(vault.root)]
    try:
        _stage(top, targets)
    except GitError as exc:
        if IGNORED_BY_GIT in exc.message:
            return CommitResult(None, message, "written, not committed: git ignores the file")
        raise
    staged = _staged(top)
    if not staged:
        return CommitResult(None, message, "nothing to commit")
    ours = {Path(os.path.relpath(t, top)).as_posix() for t in targets}
    only_ours = paths is not None and staged <= ours
    told = signed(message, vault.agent)
    with pathspec(targets) as spec, message_args(told) as told_args:
        # `git commit -- paths` rebuilds a temporary index (seconds at 10,000 paths): needed
        # only when something else is staged too
        args = ("commit", "-q", "--no-verify", *told_args, *([] if only_ours else spec))
        # the configured identity, never one git guesses from the host name; none: cardvault's
        done = run_git(top, "-c", "user.useConfigOnly=true", *args, check=False)
        if done.returncode != 0 and _no_identity(done.stderr):
            done = run_git(top, *args, env=identity_env(top), check=False)
    if done.returncode != 0:
        if "nothing to commit" in done.stdout or "nothing added to commit" in done.stdout:
            return CommitResult(None, message, "nothing to commit")
        said = f"{done.stderr}\n{done.stdout}"
        first = next((line.strip() for line in said.splitlines() if line.strip()), "")
        raise GitError(f"git commit failed (exit {done.returncode}): {first}", vault.root)
    return CommitResult(head_of(top), message)


#: What git says when a path to add is ignored by a .gitignore.
IGNORED_BY_GIT = "ignored by one of your .gitignore files"


def safe_message(message: str) -> str:
    """A commit message with any secret redacted: every commit message passes here, whichever
    service built it from whatever text (an entry title, a query, a card's topic)."""
    from cardvault.guard import redact_text

    return redact_text(message)


def _no_identity(stderr: str) -> bool:
    """Whether git refused a commit for want of a configured name or email."""
    signs = ("tell me who you are", "no email was given", "empty ident name", "no name was given")
    return any(sign in stderr for sign in signs)


def head_of(top: Path) -> str:
    """The commit HEAD points at, read from the git folder (git only for what that cannot
    answer: a detached HEAD is read directly, packed refs and odd layouts ask git)."""
    folder = top / ".git"
    try:
        ref = (folder / "HEAD").read_text(encoding="utf-8").strip()
        if not ref.startswith("ref: "):
            return ref
        loose = folder / ref.removeprefix("ref: ")
        if loose.is_file():
            return loose.read_text(encoding="utf-8").strip()
    except OSError:
        pass
    return run_git(top, "rev-parse", "HEAD").stdout.strip()


#: Staging more files than this writes their objects into one pack, not one file per object.
PACK_ABOVE = 100


def _stage(top: Path, targets: list[str]) -> None:
    """Stage the targets: `git add -A` those that exist, `git rm --cached` those that vanished
    (`git add` refuses a path that is neither on disk nor in the index, as after `git mv`)."""
    present = [t for t in targets if os.path.lexists(t)]
    gone = [t for t in targets if not os.path.lexists(t)]
    if present:
        # above PACK_ABOVE files, every blob goes to one pack: 10,000 loose objects cost ~15 s
        pack = ["-c", "core.bigFileThreshold=1"] if len(present) > PACK_ABOVE else []
        with pathspec(present) as spec:
            run_git(top, *pack, "add", "-A", *spec)
    if gone:
        with pathspec(gone) as spec:
            run_git(top, "rm", "-q", "--cached", "--ignore-unmatch", *spec)


def _staged(top: Path) -> set[str]:
    """Paths (relative to the work tree) whose staged state differs from HEAD (from nothing on
    an unborn branch)."""
    out = run_git(top, "diff", "--cached", "--name-only", "--no-renames", "-z").stdout
    return {path for path in out.split("\0") if path}


def unstage(vault: Vault, paths: Sequence[Path]) -> None:
    """Take `paths` out of the index again (after a failed commit); best effort."""
    top = work_tree_of(vault.root)
    if top is None or not paths:
        return
    with pathspec([str(p) for p in paths]) as spec:
        run_git(top, "reset", "-q", *spec, check=False)


def commit_to_branch(
    vault: Vault, branch: str, message: str, files: Mapping[Path, str | None]
) -> CommitResult:
    """Commit HEAD's tree with `files` replaced (None = removed) on a new branch `branch`.

    The commit's parent is HEAD. The current branch, the index and the work tree are left
    exactly as they were (the tree is built in a temporary index file in the vault's own cache
    folder: cardvault writes nothing into `.git/` but through git). The message passes the
    secret guard, as in `commit`.
    """
    message = safe_message(message)
    top = work_tree_of(vault.root)
    if top is None:
        return CommitResult(None, message, "not a git repository: nothing committed")
    if run_git(top, "rev-parse", "-q", "--verify", "HEAD", check=False).returncode != 0:
        raise CardvaultError("the repository has no commit yet; commit once first", vault.root)
    vault.cache_dir.mkdir(exist_ok=True)
    fd, index_file = tempfile.mkstemp(prefix="branch-index-", dir=vault.cache_dir)
    os.close(fd)
    env = {**identity_env(top), "GIT_INDEX_FILE": index_file}
    try:
        run_git(top, "read-tree", "HEAD", env=env)
        entries = []
        for path, text in files.items():
            rel = path.resolve().relative_to(top.resolve()).as_posix()
            if text is None:
                run_git(top, "update-index", "--force-remove", "--", rel, env=env)
                continue
            blob = run_git(top, "hash-object", "-w", "--stdin", input=text).stdout.strip()
            listed = run_git(top, "ls-files", "-s", "--", rel, env=env).stdout.split()
            entries.append(f"{listed[0] if listed else '100644'} {blob}\t{rel}")
        if entries:
            run_git(top, "update-index", "--index-info", input="\n".join(entries) + "\n", env=env)
        tree = run_git(top, "write-tree", env=env).stdout.strip()
        told = signed(message, vault.agent)
        sha = run_git(top, "commit-tree", tree, "-p", "HEAD", "-m", told, env=env).stdout.strip()
        run_git(top, "branch", branch, sha)
    except GitError as exc:
        raise CardvaultError(
            f"git could not commit to branch {branch}: {exc.message}", vault.root
        ) from exc
    finally:
        Path(index_file).unlink(missing_ok=True)
    return CommitResult(sha, message)
