"""Git history of a vault: the one module that runs git.

Every command that changes the vault records exactly one commit here. A vault that is not a git
repository still works (the change is written, `commit` returns a result saying it was not
recorded); a repository with no user configured gets cardvault's default identity, so commits
never fail for want of `git config user.name`. git runs as a subprocess (no library: importing
one cost ~60 ms of every `log` and `new`); `run_git` is the one way cardvault starts it, and
`sync/` builds its fetch, merge and push on it.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cardvault.errors import CardvaultError

if TYPE_CHECKING:
    from cardvault.vault.layout import Vault

DEFAULT_NAME = "cardvault"
DEFAULT_EMAIL = "cardvault@localhost"
IGNORED = (".cardvault/",)
#: More paths than this go to git through a pathspec file, not the command line (whose length
#: the operating system limits: a 10,000-card import or maintenance run would not fit).
MANY_PATHS = 1000


class GitError(CardvaultError):
    """A git command failed; the message holds git's own words."""


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


def run_git(
    root: Path,
    *args: str,
    input: str | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run `git args...` in `root`; raise GitError with git's message when it fails and `check`."""
    full_env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **(env or {})}
    done = subprocess.run(
        ["git", *args],
        cwd=root,
        input=input,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
        env=full_env,
        check=False,
    )
    if check and done.returncode != 0:
        detail = (done.stderr.strip() or done.stdout.strip() or f"exit {done.returncode}")[-2000:]
        raise GitError(f"git {args[0]} failed: {detail}", root)
    return done


def work_tree_of(root: Path) -> Path | None:
    """The top of the git work tree holding `root` (the nearest folder upwards with a `.git`),
    or None outside a repository. Found without starting git: this runs on every write."""
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE"):
        done = run_git(root, "rev-parse", "--show-toplevel", check=False)
        return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None
    start = root.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def git_dir(root: Path) -> Path | None:
    """The repository's git folder for the work tree holding `root`, or None."""
    top = work_tree_of(root)
    if top is None:
        return None
    dot_git = top / ".git"
    if dot_git.is_dir():
        return dot_git
    done = run_git(top, "rev-parse", "--absolute-git-dir", check=False)
    return Path(done.stdout.strip()) if done.returncode == 0 else None


def is_repo(root: Path) -> bool:
    """Whether `root` is inside a git work tree."""
    return work_tree_of(root) is not None


def init_repo(root: Path) -> None:
    """`git init` at `root` (branch main)."""
    root.mkdir(parents=True, exist_ok=True)
    if run_git(root, "init", "-q", "-b", "main", check=False).returncode != 0:
        run_git(root, "init", "-q")  # older git without -b


def identity_env(root: Path) -> dict[str, str]:
    """Author/committer env vars, filled with cardvault's identity where git has none."""
    done = run_git(root, "config", "--get-regexp", r"^user\.(name|email)$", check=False)
    configured = {line.split(" ", 1)[0] for line in done.stdout.splitlines()}
    env: dict[str, str] = {}
    defaults = (("name", "NAME", DEFAULT_NAME), ("email", "EMAIL", DEFAULT_EMAIL))
    for kind, var_name, default in defaults:
        for role in ("AUTHOR", "COMMITTER"):
            var = f"GIT_{role}_{var_name}"
            if not os.environ.get(var) and f"user.{kind}" not in configured:
                env[var] = default
    return env


def signed(message: str, agent: str | None) -> str:
    """`message` with an `Agent: NAME` trailer when an agent writes (git interpret-trailers
    reads it: `git log --format='%(trailers:key=Agent)'`)."""
    if not agent:
        return message
    return f"{message.rstrip()}\n\n{AGENT_TRAILER}: {agent}\n"


def commit(vault: Vault, message: str, paths: Iterable[Path] | None = None) -> CommitResult:
    """Stage `paths` (all of the vault when None; deletions and renames included) and commit
    those alone (whatever else is staged stays staged, out of the commit), signed with the
    vault's agent, if any."""
    top = work_tree_of(vault.root)
    if top is None:
        return CommitResult(None, message, "not a git repository: change written, not committed")
    targets = [str(p) for p in paths] if paths is not None else [str(vault.root)]
    _stage(top, targets)
    staged = _staged(top)
    if not staged:
        return CommitResult(None, message, "nothing to commit")
    ours = {Path(os.path.relpath(t, top)).as_posix() for t in targets}
    only_ours = paths is not None and staged <= ours
    told = signed(message, vault.agent)
    with _pathspec(targets) as spec, _message_args(told) as message_args:
        # `git commit -- paths` rebuilds a temporary index (seconds at 10,000 paths): needed
        # only when something else is staged too
        args = ("commit", "-q", "--no-verify", *message_args, *([] if only_ours else spec))
        # the configured identity, never one git guesses from the host name; none: cardvault's
        done = run_git(top, "-c", "user.useConfigOnly=true", *args, check=False)
        if done.returncode != 0 and _no_identity(done.stderr):
            done = run_git(top, *args, env=identity_env(top), check=False)
    if done.returncode != 0:
        if "nothing to commit" in done.stdout or "nothing added to commit" in done.stdout:
            return CommitResult(None, message, "nothing to commit")
        detail = (done.stderr.strip() or done.stdout.strip())[-2000:]
        raise GitError(f"git commit failed: {detail}", vault.root)
    return CommitResult(head_of(top), message)


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
        with _pathspec(present) as spec:
            run_git(top, *pack, "add", "-A", *spec)
    if gone:
        with _pathspec(gone) as spec:
            run_git(top, "rm", "-q", "--cached", "--ignore-unmatch", *spec)


def _staged(top: Path) -> set[str]:
    """Paths (relative to the work tree) whose staged state differs from HEAD (from nothing on
    an unborn branch)."""
    out = run_git(top, "diff", "--cached", "--name-only", "--no-renames", "-z").stdout
    return {path for path in out.split("\0") if path}


@contextlib.contextmanager
def _pathspec(targets: list[str]) -> Iterator[list[str]]:
    """git arguments naming `targets`: `-- path...`, or a NUL-separated pathspec file."""
    if len(targets) <= MANY_PATHS:
        yield ["--", *targets]
        return
    with tempfile.NamedTemporaryFile("w", suffix=".pathspec", delete=False) as handle:
        handle.write("\0".join(targets))
    try:
        yield [f"--pathspec-from-file={handle.name}", "--pathspec-file-nul"]
    finally:
        os.unlink(handle.name)


@contextlib.contextmanager
def _message_args(message: str) -> Iterator[list[str]]:
    """`-m message`, or `-F file` for a message too long for one command-line argument."""
    if len(message.encode("utf-8")) < 64_000:
        yield ["-m", message]
        return
    with tempfile.NamedTemporaryFile("w", suffix=".msg", delete=False, encoding="utf-8") as handle:
        handle.write(message)
    try:
        yield ["--cleanup=verbatim", "-F", handle.name]
    finally:
        os.unlink(handle.name)


def unstage(vault: Vault, paths: Sequence[Path]) -> None:
    """Take `paths` out of the index again (after a failed commit); best effort."""
    top = work_tree_of(vault.root)
    if top is None or not paths:
        return
    with _pathspec([str(p) for p in paths]) as spec:
        run_git(top, "reset", "-q", *spec, check=False)


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
    cache and hidden temporary files excluded): in the whole vault, or among `paths`."""
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
    if paths is None or few:
        return found
    wanted = {Path(os.path.relpath(p, top)).as_posix() for p in paths}
    return [path for path in found if path in wanted]


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
    if work_tree_of(vault.root) is None:
        return None
    done = run_git(vault.root, "rev-parse", "--verify", "-q", "HEAD", check=False)
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def commit_count(vault: Vault) -> int:
    """Number of commits reachable from HEAD (0 for none or no repository)."""
    if head(vault) is None:
        return 0
    return int(run_git(vault.root, "rev-list", "--count", "HEAD").stdout.strip())


@dataclass(frozen=True)
class CommitInfo:
    """One commit as reports show it: id, commit date (ISO 8601) and subject line."""

    sha: str
    date: str
    subject: str


def last_commit_with_subject(vault: Vault, prefix: str) -> CommitInfo | None:
    """The newest commit touching the vault whose subject starts with `prefix`, if any."""
    import re

    if head(vault) is None:
        return None
    out = run_git(
        vault.root,
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


def commit_to_branch(
    vault: Vault, branch: str, message: str, files: Mapping[Path, str | None]
) -> CommitResult:
    """Commit HEAD's tree with `files` replaced (None = removed) on a new branch `branch`.

    The commit's parent is HEAD. The current branch, the index and the work tree are left
    exactly as they were (the tree is built in a temporary index file inside the git folder).
    """
    top, folder = work_tree_of(vault.root), git_dir(vault.root)
    if top is None or folder is None:
        return CommitResult(None, message, "not a git repository: nothing committed")
    if head(vault) is None:
        raise CardvaultError("the repository has no commit yet; commit once first", vault.root)
    fd, index_file = tempfile.mkstemp(prefix="cardvault-index-", dir=folder)
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


def work_tree(vault: Vault) -> Path | None:
    """The root of the git work tree holding the vault (paths in `uncommitted` are relative to
    it), or None outside a repository."""
    return work_tree_of(vault.root)


def remote_url(root: Path) -> str | None:
    """The URL of the repository's `origin` remote (else its first remote), or None: no
    repository, no remote."""
    if work_tree_of(root) is None:
        return None
    remotes = run_git(root, "remote", check=False).stdout.split()
    if not remotes:
        return None
    name = "origin" if "origin" in remotes else remotes[0]
    done = run_git(root, "remote", "get-url", name, check=False)
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None
