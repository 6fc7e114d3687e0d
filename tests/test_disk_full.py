"""A real full disk (a small tmpfs; the test needs the right to mount one, else it is skipped):
a write whose git commit fails for want of space leaves nothing behind, not even in git's index,
so no later commit (cardvault's, or a person's `git commit`) records the write that failed."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import cli_at
from tests.support.machine import scaled
from tests.support.writers import assert_vault_sound, git

NOW = "2026-12-01T09:00"


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs at tmp_path/disk (skipped where mounting is not allowed)."""
    where = tmp_path / "disk"
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("mounting a tmpfs needs root (a full disk cannot be made here)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(disk: Path, leave_kib: int) -> Path:
    """A file taking all of the disk's free space but `leave_kib` KiB."""
    free = shutil.disk_usage(disk).free // 1024
    filler = disk / "filler"
    with filler.open("wb") as out:
        out.write(b"\0" * max(0, free - leave_kib) * 1024)
    return filler


def test_a_new_file_whose_commit_found_the_disk_full_is_not_left_staged(disk: Path) -> None:
    """The day's first `log` writes a new daily log, stages it, and git's commit fails: disk
    full. The file is removed again, and it is out of git's index too: once there is room, the
    next write commits only itself and a hand `git commit` has nothing to record. (A new card
    is no longer the case: it also rewrites MEMORY.md's table, whose hand-edit check, a `git
    status`, needs more room than the commit and fails first.)"""
    failed_in_git = 0
    day = "memory/2026-12-01.md"
    for leave in (12, 16, 20, 24, 28, 32):
        vault = disk / f"v{leave}"
        cli_at(disk, "init", str(vault), now=NOW)
        filler = fill(disk, leave)
        out = cli_at(vault, "log", "FAILCHECK body", now=NOW, code=None)
        filler.unlink()
        if "git commit failed" in out:
            failed_in_git += 1
        if "FAILCHECK" not in git(vault, "log", "-p") and not (vault / day).exists():
            assert git(vault, "diff", "--cached", "--name-only") == "", out
            cli_at(vault, "new", "Room again", "-c", "tools", "--body", "There is room.", now=NOW)
            assert day not in git(vault, "show", "--stat", "HEAD")
            assert_vault_sound(vault)
        shutil.rmtree(vault)
    assert failed_in_git  # the case: some commit failed for want of space after the add


def _cardvault(vault: Path, *args: str) -> subprocess.CompletedProcess[str]:
    import os
    import sys

    return subprocess.run(
        [sys.executable, "-m", "cardvault", "--vault", str(vault), *args],
        capture_output=True, text=True, timeout=scaled(600), stdin=subprocess.DEVNULL,
        env={**os.environ, "CARDVAULT_NOW": NOW, "CARDVAULT_NO_AUTOSERVE": "1"},
    )  # fmt: skip


@pytest.mark.slow
def test_a_full_disk_is_one_clear_error_for_import_and_maintain(disk: Path, tmp_path: Path) -> None:
    """Whatever runs out of room (a card's write, git's objects, the SQLite caches in
    .cardvault/), the command says so in one line and leaves the vault as it was."""
    from tests.support.cli import snapshot

    notes = tmp_path / "notes"
    notes.mkdir()
    for number in range(40):
        (notes / f"note-{number}.md").write_text(f"# Note {number}\n\n" + f"fact{number} " * 300)
    vault = disk / "v"
    cli_at(disk, "init", str(vault), now=NOW)
    cli_at(vault, "log", "Deploys failed twice. Lesson: pin the base image.", now=NOW)
    before = snapshot(vault)
    filler = fill(disk, 8)
    for command in (("import", str(notes)), ("maintain",)):
        done = _cardvault(vault, *command)
        assert done.returncode == 1, (command, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr, done.stderr
        assert "error:" in done.stderr.lower(), done.stderr
        assert snapshot(vault) == before, command
    filler.unlink()
    assert_vault_sound(vault)
