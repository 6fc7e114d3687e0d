"""Starting git without a library: the settings every git cardvault runs gets, finding the
repository that holds a vault, and cardvault's identity for a repository that has none.

Every git command runs through `run_git` (GitPython's own gits, repo.py, get the same
`safe_env`): literal pathspecs (a card named `[s]tar.md` stages that file, never `star.md`),
`safe.bareRepository=explicit` (a vault folder mimicking a bare repository is never taken for
one), no fsmonitor and no hook (docs/security.md). No module outside `history/` starts git
(tests/test_code_rules.py). A git refused because another holds one of its lock files (an
editor's `git status` takes index.lock for a moment) is run again for up to BUSY_LOCK_WAIT
seconds, as writers wait for the vault lock rather than fail.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from cardvault.errors import CardvaultError

DEFAULT_NAME = "cardvault"
DEFAULT_EMAIL = "cardvault@localhost"
#: More paths than this go to git through a pathspec file, not the command line (whose length
#: the operating system limits: a 10,000-card import or maintenance run would not fit).
MANY_PATHS = 1000


#: What every git cardvault starts gets: no prompt, C messages, literal pathspecs.
SAFE_ENV = {"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_LITERAL_PATHSPECS": "1"}
#: Settings given to every git on its command-line level, which outranks every config file (and
#: is the only place besides the user's and system's files where git honours `safe.*`): no
#: fsmonitor program runs, whatever a `.git/config` that came with the vault names.
PROTECTED = (
    ("safe.bareRepository", "explicit"),
    ("core.fsmonitor", "false"),
)
#: Nor does any hook of the repository's (a `.git/hooks/` handed over with the vault is the
#: vault's code: docs/security.md), unless the user's own environment sets CARDVAULT_GIT_HOOKS=1.
NO_HOOKS = ("core.hooksPath", os.devnull)
HOOKS_VAR = "CARDVAULT_GIT_HOOKS"


def _protected() -> tuple[tuple[str, str], ...]:
    return PROTECTED if os.environ.get(HOOKS_VAR) == "1" else (*PROTECTED, NO_HOOKS)


def protected_config(environ: Mapping[str, str]) -> dict[str, str]:
    """`GIT_CONFIG_COUNT` variables adding PROTECTED after any the caller's environment has."""
    try:
        first = int(environ.get("GIT_CONFIG_COUNT", "0") or "0")
    except ValueError:
        first = 0
    protected = _protected()
    env = {"GIT_CONFIG_COUNT": str(first + len(protected))}
    for number, (key, value) in enumerate(protected, start=first):
        env[f"GIT_CONFIG_KEY_{number}"] = key
        env[f"GIT_CONFIG_VALUE_{number}"] = value
    return env


def safe_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables every git cardvault starts gets on top of `environ` (SAFE_ENV, PROTECTED)."""
    return {**SAFE_ENV, **protected_config(environ)}


class GitError(CardvaultError):
    """A git command failed; the message holds git's own words (`git_said`)."""


#: A line of a failed git's output that starts a new message (others continue the one before).
_LEVEL_PREFIXES = ("fatal: ", "error: ", "warning: ")


def git_said(done: subprocess.CompletedProcess[str]) -> str:
    """What a failed git said, as one line: its messages (a `fatal:`/`error:` line or a blank
    line starts the next, a wrapped line continues its sentence) without those prefixes, hints
    or repeats, joined by "; "; its exit status when it said nothing."""
    messages: list[str] = []
    current: list[str] = []
    for raw in [*(done.stderr or done.stdout or "").splitlines(), ""]:
        line = raw.strip()
        starts = line.startswith(_LEVEL_PREFIXES) or line.startswith("hint:") or not line
        if starts and current:
            message = " ".join(current).rstrip(".")
            if message not in messages:
                messages.append(message)
            current = []
        if line and not line.startswith("hint:"):
            for prefix in _LEVEL_PREFIXES:
                line = line.removeprefix(prefix)
            current.append(line)
    return "; ".join(messages)[-2000:] or f"exit {done.returncode}"


#: How long a git refused because another git holds one of its lock files is tried again.
BUSY_LOCK_WAIT = 10.0
_BUSY_PAUSE = 0.05
#: What git says when a lock file it needs is there (another git holds it).
_LOCK_TAKEN = re.compile(r"Unable to create '[^']*\.lock': File exists")


def retried_while_locked(
    start: Callable[[], subprocess.CompletedProcess[str]], wait: float = BUSY_LOCK_WAIT
) -> subprocess.CompletedProcess[str]:
    """`start()` (one git), run again while another git holds a lock file it needs, for up to
    `wait` seconds; the last run's result."""
    deadline = time.monotonic() + wait
    while True:
        done = start()
        busy = done.returncode != 0 and _LOCK_TAKEN.search(f"{done.stderr}\n{done.stdout}")
        if not busy or time.monotonic() >= deadline:
            return done
        time.sleep(_BUSY_PAUSE)


def run_git(
    root: Path,
    *args: str,
    input: str | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
    exact: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run `git args...` in `root` (again while another git holds a lock it needs); raise
    GitError with git's message when it fails and `check`. Output is read as text mode reads
    it (`\r` and `\r\n` become `\n`), or with `exact` as git wrote it."""
    full_env = {**os.environ, **safe_env(os.environ), **(env or {})}

    def once() -> subprocess.CompletedProcess[str]:
        sent = None if input is None else input.encode("utf-8", "surrogateescape")
        raw = subprocess.run(
            ["git", *args], cwd=root, input=sent, capture_output=True, env=full_env, check=False
        )
        out, err = (_decoded(data, exact) for data in (raw.stdout, raw.stderr))
        return subprocess.CompletedProcess(raw.args, raw.returncode, out, err)

    done = retried_while_locked(once)
    if check and done.returncode != 0:
        raise GitError(f"git {args[0]} failed: {git_said(done)}", root)
    return done


def _decoded(data: bytes, exact: bool) -> str:
    text = data.decode("utf-8", "surrogateescape")
    return text if exact else text.replace("\r\n", "\n").replace("\r", "\n")


def work_tree_of(root: Path) -> Path | None:
    """The top of the git work tree holding `root` (the nearest folder upwards with a `.git`), or
    None; found without starting git, since this runs on every write."""
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


def common_dir(folder: Path) -> Path:
    """What all work trees of `folder`'s repository share (refs, `info/`): `folder` itself, or
    the folder a linked work tree's `commondir` names."""
    try:
        named = (folder / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return folder
    return (folder / named).resolve()


def is_repo(root: Path) -> bool:
    """Whether `root` is inside a git work tree."""
    return work_tree_of(root) is not None


def init_repo(root: Path) -> None:
    """`git init` at `root` (branch main)."""
    root.mkdir(parents=True, exist_ok=True)
    if run_git(root, "init", "-q", "-b", "main", check=False).returncode != 0:
        run_git(root, "init", "-q")  # older git without -b


def configured_identity(root: Path) -> dict[str, str]:
    """`user.name` and `user.email` as git resolves them for the repository holding `root`."""
    done = run_git(root, "config", "--get-regexp", r"^user\.(name|email)$", check=False)
    found = {}
    for line in done.stdout.splitlines():
        key, _, value = line.partition(" ")
        found[key] = value  # the last one wins, as in git
    return found


def identity_env(root: Path) -> dict[str, str]:
    """Author/committer env vars, filled with cardvault's identity where git has none."""
    configured = configured_identity(root)
    env: dict[str, str] = {}
    defaults = (("name", "NAME", DEFAULT_NAME), ("email", "EMAIL", DEFAULT_EMAIL))
    for kind, var_name, default in defaults:
        for role in ("AUTHOR", "COMMITTER"):
            var = f"GIT_{role}_{var_name}"
            if not os.environ.get(var) and f"user.{kind}" not in configured:
                env[var] = default
    return env


@contextlib.contextmanager
def pathspec(targets: list[str]) -> Iterator[list[str]]:
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
def message_args(message: str) -> Iterator[list[str]]:
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
