"""A real full disk (a small tmpfs; the test needs the right to mount one, else it is skipped):
a write whose git commit fails for want of space leaves nothing behind, not even in git's index,
so no later commit (cardvault's, or a person's `git commit`) records the write that failed."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import cli_at
from tests.writers_support import assert_vault_sound, git

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


def test_a_new_card_whose_commit_found_the_disk_full_is_not_left_staged(disk: Path) -> None:
    """`new` writes the card, stages it, and git's commit fails: disk full. The card is
    removed again, and it is out of git's index too: once there is room, the next write
    commits only itself and a hand `git commit` has nothing to record."""
    failed_in_git = 0
    for leave in (12, 16, 20, 24, 28, 32):
        vault = disk / f"v{leave}"
        cli_at(disk, "init", str(vault), now=NOW)
        filler = fill(disk, leave)
        out = cli_at(vault, "new", "Failcheck card", "-c", "tools", "--body", "FAILCHECK body",
                     now=NOW, code=None)  # fmt: skip
        filler.unlink()
        if "git commit failed" in out:
            failed_in_git += 1
        if (
            "FAILCHECK" not in git(vault, "log", "-p")
            and not (vault / "memory/cards/failcheck-card.md").exists()
        ):
            assert git(vault, "diff", "--cached", "--name-only") == "", out
            cli_at(vault, "log", "Lesson: there is room again.", now=NOW)
            assert "failcheck" not in git(vault, "show", "--stat", "HEAD")
            assert_vault_sound(vault)
        shutil.rmtree(vault)
    assert failed_in_git  # the case: some commit failed for want of space after the add
