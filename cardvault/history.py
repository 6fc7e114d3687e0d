"""Git history of a vault: the only module that imports gitpython.

Every command that changes the vault records exactly one commit here. A vault that is not a git
repository still works (the change is written, `commit` returns a result saying it was not
recorded); a repository with no user configured gets cardvault's default identity, so commits
never fail for want of `git config user.name`.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cardvault.errors import CardvaultError

if TYPE_CHECKING:
    from git import Repo

    from cardvault.vault.layout import Vault

DEFAULT_NAME = "cardvault"
DEFAULT_EMAIL = "cardvault@localhost"
IGNORED = (".cardvault/",)
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


@contextlib.contextmanager
def _repo(root: Path) -> Iterator[Repo | None]:
    """The repository holding `root` (None outside one), closed afterwards so gitpython's
    `git cat-file` helper processes do not outlive the call."""
    import git

    try:
        repo = git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        yield None
        return
    try:
        yield repo
    finally:
        repo.close()


def is_repo(root: Path) -> bool:
    """Whether `root` is inside a git work tree."""
    with _repo(root) as repo:
        return repo is not None


def init_repo(root: Path) -> None:
    """`git init` at `root` (branch main)."""
    import git

    try:
        git.Repo.init(root, initial_branch="main")
    except TypeError:  # older git without --initial-branch
        git.Repo.init(root)


def _identity_env(repo: Repo) -> dict[str, str]:
    """Author/committer env vars, filled with cardvault's identity where git has none."""
    env: dict[str, str] = {}
    reader = repo.config_reader()
    for kind, var_name, default in (
        ("name", "NAME", DEFAULT_NAME),
        ("email", "EMAIL", DEFAULT_EMAIL),
    ):
        configured = reader.get_value("user", kind, default="")
        for role in ("AUTHOR", "COMMITTER"):
            var = f"GIT_{role}_{var_name}"
            if not os.environ.get(var) and not configured:
                env[var] = default
    return env


def signed(message: str, agent: str | None) -> str:
    """`message` with an `Agent: NAME` trailer when an agent writes (git interpret-trailers
    reads it: `git log --format='%(trailers:key=Agent)'`)."""
    if not agent:
        return message
    return f"{message.rstrip()}\n\n{AGENT_TRAILER}: {agent}\n"


def commit(vault: Vault, message: str, paths: Iterable[Path] | None = None) -> CommitResult:
    """Stage `paths` (all of the vault when None; deletions included) and commit them, signed
    with the vault's agent, if any. The message passes the secret guard first (`safe_message`):
    history is forever."""
    message = safe_message(message)
    told = signed(message, vault.agent)
    with _repo(vault.root) as repo:
        if repo is None:
            return CommitResult(
                None, message, "not a git repository: change written, not committed"
            )
        import git

        targets = [str(p) for p in paths] if paths is not None else [str(vault.root)]
        try:
            with repo.git.custom_environment(**_identity_env(repo)), _pathspec(targets) as spec:
                repo.git.add("-A", *spec)
                if not _staged(repo, targets):
                    return CommitResult(None, message, "nothing to commit")
                with _message_args(told) as message_args:
                    repo.git.commit("-q", "--no-verify", *message_args, *spec)
        except git.GitCommandError as exc:
            return _failed_commit(exc, message, vault)
        return CommitResult(repo.head.commit.hexsha, message)


def _failed_commit(exc: Exception, message: str, vault: Vault) -> CommitResult:
    """A failed `git add`/`git commit` as one clear outcome: nothing left to commit (another
    commit recorded the change first), the paths git is told to ignore, or one error line."""
    detail = _git_output(exc)
    if "ignored by one of your .gitignore files" in detail:
        return CommitResult(None, message, "written, not committed: git ignores the file")
    if "nothing to commit" in detail or "no changes added" in detail:
        return CommitResult(None, message, "nothing to commit")
    first = next((line.strip() for line in detail.splitlines() if line.strip()), "")
    status = getattr(exc, "status", "?")
    raise CardvaultError(f"git commit failed (exit {status}): {first}", vault.root) from exc


def _git_output(exc: Exception) -> str:
    """What git printed, without gitpython's `stderr: '...'` wrapping."""
    parts = [str(getattr(exc, name, "") or "") for name in ("stderr", "stdout")]
    text = "\n".join(parts)
    return text.replace("stderr: '", "").replace("stdout: '", "").strip().strip("'")


#: More paths than this go to git through a pathspec file, not the command line (whose length
#: the operating system limits: a 10,000-card import or maintenance run would not fit).
MANY_PATHS = 1000


def safe_message(message: str) -> str:
    """A commit message with any secret redacted: every commit message passes here, whichever
    service built it from whatever text (an entry title, a query, a card's topic)."""
    from cardvault.guard import redact_text

    return redact_text(message)


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


def _staged(repo: Repo, targets: list[str]) -> bool:
    if len(targets) > MANY_PATHS:
        against = ["HEAD"] if repo.head.is_valid() else []
        staged = set(repo.git.diff("--cached", "--name-only", "-z", *against).split("\0"))
        top = str(repo.working_tree_dir)
        return any(Path(os.path.relpath(t, top)).as_posix() in staged for t in targets)
    if not repo.head.is_valid():
        return bool(repo.git.diff("--cached", "--name-only", "--", *targets))
    return bool(repo.git.diff("--cached", "--name-only", "HEAD", "--", *targets))


def uncommitted(vault: Vault) -> list[str]:
    """Paths in the vault with uncommitted changes (untracked included, the cache excluded)."""
    with _repo(vault.root) as repo:
        if repo is None:
            return []
        out = repo.git.status("--porcelain", "-z", "--untracked-files=all", "--", str(vault.root))
        paths = []
        for record in out.split("\0"):
            if len(record) > 3:
                path = record[3:]
                if not path.startswith(IGNORED) and "/.cardvault/" not in f"/{path}":
                    paths.append(path)
        return paths


def head(vault: Vault) -> str | None:
    """The current commit id, if any."""
    with _repo(vault.root) as repo:
        if repo is None or not repo.head.is_valid():
            return None
        return repo.head.commit.hexsha


def commit_count(vault: Vault) -> int:
    """Number of commits reachable from HEAD (0 for none or no repository)."""
    with _repo(vault.root) as repo:
        if repo is None or not repo.head.is_valid():
            return 0
        return int(repo.git.rev_list("--count", "HEAD"))


@dataclass(frozen=True)
class CommitInfo:
    """One commit as reports show it: id, commit date (ISO 8601) and subject line."""

    sha: str
    date: str
    subject: str


def last_commit_with_subject(vault: Vault, prefix: str) -> CommitInfo | None:
    """The newest commit touching the vault whose subject starts with `prefix`, if any.

    A plain `git log` call: a read this small does not pay gitpython's import (~0.25 s), which
    matters for `stats`, a command people and agents run often."""
    import re
    import subprocess

    try:
        out = subprocess.run(
            ["git", "-C", str(vault.root), "log", f"--grep=^{re.escape(prefix)}",
             "--format=%H%x00%cI%x00%s", "HEAD", "--", "."],
            capture_output=True, text=True, check=False, timeout=30,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None  # not a repository, or no commit yet
    for record in out.stdout.splitlines():
        sha, date, subject = record.split("\0", 2)
        if subject.startswith(prefix):
            return CommitInfo(sha, date, subject)
    return None


def commit_to_branch(
    vault: Vault, branch: str, message: str, files: Mapping[Path, str | None]
) -> CommitResult:
    """Commit HEAD's tree with `files` replaced (None = removed) on a new branch `branch`.

    The commit's parent is HEAD. The current branch, the index and the work tree are left
    exactly as they were (the tree is built in a temporary index file). The message passes the
    secret guard, as in `commit`.
    """
    message = safe_message(message)
    import tempfile
    from io import BytesIO

    import git
    from gitdb.base import IStream

    told = signed(message, vault.agent)
    with _repo(vault.root) as repo:
        if repo is None:
            return CommitResult(None, message, "not a git repository: nothing committed")
        if not repo.head.is_valid():
            raise CardvaultError("the repository has no commit yet; commit once first", vault.root)
        work = Path(str(repo.working_tree_dir)).resolve()
        fd, index_file = tempfile.mkstemp(prefix="cardvault-index-")
        os.close(fd)
        try:
            with repo.git.custom_environment(**_identity_env(repo), GIT_INDEX_FILE=index_file):
                repo.git.read_tree("HEAD")
                for path, text in files.items():
                    rel = path.resolve().relative_to(work).as_posix()
                    if text is None:
                        repo.git.update_index("--force-remove", "--", rel)
                        continue
                    data = text.encode("utf-8")
                    blob = repo.odb.store(IStream(b"blob", len(data), BytesIO(data))).hexsha
                    listed = repo.git.ls_files("-s", "--", rel).split()
                    mode = listed[0] if listed else "100644"
                    repo.git.update_index("--add", "--cacheinfo", f"{mode},{blob.decode()},{rel}")
                tree = repo.git.write_tree()
                sha = repo.git.commit_tree(tree, "-p", "HEAD", "-m", told)
                repo.git.branch(branch, sha)
        except git.GitCommandError as exc:
            detail = (exc.stderr or str(exc)).strip()
            message_ = f"git could not commit to branch {branch}: {detail}"
            raise CardvaultError(message_, vault.root) from exc
        finally:
            Path(index_file).unlink(missing_ok=True)
        return CommitResult(sha, message)


def work_tree(vault: Vault) -> Path | None:
    """The root of the git work tree holding the vault (paths in `uncommitted` are relative to
    it), or None outside a repository."""
    with _repo(vault.root) as repo:
        return (
            None if repo is None or repo.working_tree_dir is None else Path(repo.working_tree_dir)
        )


def remote_url(root: Path) -> str | None:
    """The URL of the repository's `origin` remote (else its first remote), or None: no
    repository, no remote. A plain `git` call, like last_commit_with_subject."""
    import subprocess

    def git_out(*args: str) -> str:
        try:
            done = subprocess.run(
                ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30
            )
        except (OSError, subprocess.SubprocessError):
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    remotes = git_out("remote").split()
    if not remotes:
        return None
    name = "origin" if "origin" in remotes else remotes[0]
    return git_out("remote", "get-url", name) or None
