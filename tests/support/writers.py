"""Helpers for the many-writers tests: real processes holding the lock, running the CLI, and the
vault invariants every writer must keep (whole files, no temp files, clean tree, git fsck)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.machine import scaled

REPO = Path(__file__).resolve().parents[2]

HOLD = """
import sys, time
from cardvault.edits.lock import vault_lock
from cardvault.vault.layout import open_vault_at
vault = open_vault_at(__import__("pathlib").Path(sys.argv[1]))
with vault_lock(vault):
    print("held", flush=True)
    sys.stdin.readline()
"""


@contextmanager
def lock_held_elsewhere(root: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holds the vault lock until the block ends (or the process is killed)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        assert proc.stdin is not None and proc.stdout is not None
        if proc.poll() is None:
            proc.stdin.write("\n")
            proc.stdin.flush()
        proc.wait(timeout=scaled(30))
        proc.stdin.close()
        proc.stdout.close()


def cardvault(root: Path, *args: str, now: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real CLI in a fresh process on the vault at `root`."""
    env = {**os.environ, "CARDVAULT_VAULT": str(root)}
    if now is not None:
        env["CARDVAULT_NOW"] = now
    return subprocess.run(
        [sys.executable, "-m", "cardvault", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=scaled(300),
        check=False,
    )


#: The real CLI (`argv[3:]`), killed (os._exit: no cleanup, like kill -9) right after writing
#: the `argv[2]`-th file of the write whose commit message starts with `argv[1]`: its journal
#: is left, and some of its files written.
KILLED_COMMAND = """
import os, sys
from cardvault.edits import door
real = door.apply_changes
prefix, stop_after, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def killed(vault, changes, after_write=None, finish=None, message=None, moves=None):
    if not (message or "").startswith(prefix):
        return real(vault, changes, after_write, finish, message, moves)
    written = []
    def die(path):
        written.append(path)
        if len(written) == stop_after:
            os._exit(137)
    return real(vault, changes, die, finish, message, moves)
door.apply_changes = killed
sys.argv = ["cardvault", *argv]
from cardvault.cli.entry import main
main()
"""


def killed_midway(root: Path, prefix: str, stop_after: int, *args: str) -> int:
    """Run `cardvault ARGS` on the vault at `root`, killed midway through its write whose
    commit message starts with `prefix` (KILLED_COMMAND); its exit code (137 when killed)."""
    env = {**os.environ, "CARDVAULT_VAULT": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", KILLED_COMMAND, prefix, str(stop_after), *args],
        capture_output=True,
        env=env,
        cwd=REPO,
        timeout=scaled(300),
        check=False,
    )
    return done.returncode


def git(root: Path, *args: str) -> str:
    """Run git in `root`; its stdout (raises on failure)."""
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def set_lock_timeout(root: Path, seconds: float) -> None:
    """Set `[write] lock_timeout` in the vault's cardvault.toml and commit it."""
    config = root / "cardvault.toml"
    text = config.read_text(encoding="utf-8")
    if "[write]" in text:
        head, _, tail = text.partition("[write]")
        tail = "\n".join(line for line in tail.splitlines() if "lock_timeout" not in line)
        text = head + "[write]\n" + f"lock_timeout = {seconds}\n" + tail.lstrip("\n")
    else:
        text += f"\n[write]\nlock_timeout = {seconds}\n"
    config.write_text(text, encoding="utf-8")
    git(root, "add", "cardvault.toml")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "timeout")


def temp_files(root: Path) -> list[str]:
    """Temporary files a writer left in the vault (outside .git)."""
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*.tmp")
        if ".git" not in p.relative_to(root).parts
    )


def assert_vault_sound(root: Path) -> None:
    """The invariants after any writer, crashed or not: no journal or temp file left, no git
    lock file, a clean work tree, `git fsck` passing."""
    assert not (root / ".cardvault" / "journal.json").exists(), "journal left behind"
    assert temp_files(root) == []
    assert not (root / ".git" / "index.lock").exists()
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    subprocess.run(["git", "-C", str(root), "fsck", "--strict", "--no-progress"], check=True,
                   capture_output=True)  # fmt: skip
