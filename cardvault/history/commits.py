"""Commits: one per write, of exactly the files it wrote (or on a new branch, leaving the work
tree alone), signed with the writing agent."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Collection, Iterable, Mapping, Sequence
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
    """`message` with an `Agent: NAME` trailer when an agent writes."""
    if not agent:
        return message
    return f"{message.rstrip()}\n\n{AGENT_TRAILER}: {agent}\n"


def commit(
    vault: Vault,
    message: str,
    paths: Iterable[Path] | None = None,
    *,
    created: Collection[Path] | None = None,
) -> CommitResult:
    """Stage `paths` (all of the vault when None) and commit those alone, signed with the
    vault's agent; the message passes the secret guard first (history is forever). `created`
    names the paths this write created: a write of a few files then costs two or three gits."""
    message = safe_message(message)
    top = work_tree_of(vault.root)
    if top is None:
        return CommitResult(None, message, "not a git repository: change written, not committed")
    targets = [str(p) for p in paths] if paths is not None else [str(vault.root)]
    told = signed(message, vault.agent)
    note = None
    try:
        if paths is not None and len(targets) <= FEW_PATHS:
            done = _commit_few(top, targets, told, created)
        else:
            done = _commit_many(top, targets, told, paths is not None)
    except GitError as exc:
        if IGNORED_BY_GIT not in exc.message:
            raise
        # a `.gitignore` (a shared vault's, a teammate's push) ignores some of the files: the
        # others are committed, so none of this write is left for a later command to take for
        # the person's uncommitted hand edits
        ignored = ignored_paths(top, targets)
        names = ", ".join(sorted(os.path.relpath(t, top) for t in ignored)) or "the file"
        note = f"written, not committed: git ignores {names}"
        rest = [t for t in targets if t not in ignored]
        if not ignored or not rest:
            return CommitResult(None, message, note)
        done = _commit_many(top, rest, told, True)
    if done is None or (done.returncode != 0 and any(s in done.stdout for s in NOTHING_TO_COMMIT)):
        return CommitResult(None, message, note or "nothing to commit")
    if done.returncode != 0:
        said = f"{done.stderr}\n{done.stdout}"
        first = next((line.strip() for line in said.splitlines() if line.strip()), "")
        raise GitError(f"git commit failed (exit {done.returncode}): {first}", vault.root)
    return CommitResult(head_of(top), message, note)


def ignored_paths(top: Path, targets: Sequence[str]) -> set[str]:
    """Those of `targets` a `.gitignore` keeps out of git (`check-ignore` refuses literal
    pathspecs, and takes each path as it is anyway)."""
    literal = {"GIT_LITERAL_PATHSPECS": "0"}
    stdin = "\0".join(targets)
    done = run_git(top, "check-ignore", "-z", "--stdin", input=stdin, env=literal, check=False)
    return {path for path in done.stdout.split("\0") if path}


#: Up to this many paths, a commit names them (`--include`); more are staged, then committed.
FEW_PATHS = 100
#: What `git commit` prints when the paths hold no change.
NOTHING_TO_COMMIT = ("nothing to commit", "nothing added to commit", "no changes added to commit")
#: What `git commit --include -- paths` says of a path it does not track.
UNKNOWN_PATH = "did not match any file(s) known to git"


def _commit_few(
    top: Path, targets: list[str], told: str, created: Collection[Path] | None
) -> subprocess.CompletedProcess[str] | None:
    """Commit a few paths with `git commit --include` when nothing else is staged (new files
    added first); else the general way (`--only` would rebuild a temporary index from HEAD,
    which costs more in a 10,000-file work tree than the gits it saves)."""
    if run_git(top, "diff", "--cached", "--quiet", check=False).returncode != 0:
        return _commit_many(top, targets, told, True)
    new = {str(p) for p in created} if created is not None else set(targets)
    fresh = [t for t in targets if t in new and os.path.lexists(t)]
    if fresh:
        run_git(top, "add", "-A", "--", *fresh)
    done = _run_commit(top, told, ["--include", "--", *targets])
    if done.returncode != 0 and UNKNOWN_PATH in done.stderr:
        return _commit_many(top, targets, told, True)
    return done


def _commit_many(
    top: Path, targets: list[str], told: str, exact: bool
) -> subprocess.CompletedProcess[str] | None:
    """Stage the targets, then commit the index as it is when only they are staged (`commit --
    paths` takes seconds at 10,000 paths), else with the paths named; None: nothing staged."""
    _stage(top, targets)
    staged = _staged(top)
    if not staged:
        return None
    ours = {Path(os.path.relpath(t, top)).as_posix() for t in targets}
    only_ours = exact and staged <= ours
    with pathspec(targets) as spec:
        return _run_commit(top, told, [] if only_ours else spec)


def _run_commit(top: Path, told: str, spec: list[str]) -> subprocess.CompletedProcess[str]:
    """`git commit -m told` without hooks, with the configured identity (never one git guesses
    from the host name), else cardvault's."""
    with message_args(told) as told_args:
        args = ("commit", "-q", "--no-verify", *told_args, *spec)
        done = run_git(top, "-c", "user.useConfigOnly=true", *args, check=False)
        if done.returncode != 0 and _no_identity(done.stderr):
            done = run_git(top, *args, env=identity_env(top), check=False)
    return done


#: What git says when a path to add is ignored by a .gitignore.
IGNORED_BY_GIT = "ignored by one of your .gitignore files"


def safe_message(message: str) -> str:
    """A commit message with any secret redacted: every commit message passes here."""
    from cardvault.guard import redact_text

    return redact_text(message)


def _no_identity(stderr: str) -> bool:
    signs = ("tell me who you are", "no email was given", "empty ident name", "no name was given")
    return any(sign in stderr for sign in signs)


def head_of(top: Path) -> str:
    """The commit HEAD points at, read from the git folder when it can be (else git answers)."""
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
    """`git add -A` the targets that exist, `git rm --cached` those that vanished (`git add`
    refuses a path that is neither on disk nor in the index)."""
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
    """Commit HEAD's tree with `files` replaced (None = removed) on a new branch `branch`,
    leaving the current branch, the index and the work tree as they were (the tree is built in
    a scratch index: treemerge.tree_with)."""
    from cardvault.history.status import project_head
    from cardvault.history.treemerge import commit_tree, tree_with

    message = safe_message(message)
    top = work_tree_of(vault.root)
    if top is None:
        return CommitResult(None, message, "not a git repository: nothing committed")
    head = project_head(top)
    if head is None:
        raise CardvaultError("the repository has no commit yet; commit once first", vault.root)
    rels = {path.resolve().relative_to(top.resolve()).as_posix(): text
            for path, text in files.items()}  # fmt: skip
    try:
        blobs = _blobs(top, rels, vault.cache_dir)
        tree = tree_with(top, head, blobs, _modes(top, head))
        sha = commit_tree(top, tree, [head], signed(message, vault.agent))
        run_git(top, "branch", branch, sha)
    except GitError as exc:
        raise CardvaultError(
            f"git could not commit to branch {branch}: {exc.message}", vault.root
        ) from exc
    return CommitResult(sha, message)


def _blobs(top: Path, rels: Mapping[str, str | None], cache: Path) -> dict[str, str | None]:
    """Each written file's new blob (one `hash-object` for all, of the exact bytes), None for
    a removed one."""
    written = [rel for rel, text in rels.items() if text is not None]
    cache.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="branch-", dir=cache) as folder:
        sources = []
        for number, rel in enumerate(written):
            source = Path(folder) / f"blob-{number}"
            source.write_bytes((rels[rel] or "").encode("utf-8"))
            sources.append(f"{source}\n")
        args = ("hash-object", "-w", "--no-filters", "--stdin-paths")
        out = run_git(top, *args, input="".join(sources)).stdout.split()
    blobs: dict[str, str | None] = dict.fromkeys(rels)
    blobs.update(zip(written, out, strict=True))
    return blobs


def _modes(top: Path, commit: str) -> dict[str, str]:
    """The mode (octal) `commit`'s tree gives each file it holds."""
    listed = run_git(top, "ls-tree", "-r", "-z", "--full-tree", commit, exact=True).stdout
    entries = (record.partition("\t") for record in listed.split("\0") if record)
    return {path: info.split(" ", 1)[0] for info, _, path in entries}
