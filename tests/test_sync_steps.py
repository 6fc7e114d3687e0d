"""A sync that commits many pending hand edits does it in steps of a bounded size, letting the
vault lock go between two (edits/door.py `commit_pending_in_steps`): each step is its own
"hand edits" commit of at most PENDING_STEP files, all of them published; a secret in any of
them commits none."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.writers_support import git

STEP = 10
TOKEN = "token: ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5\n"
NOTES = 25


def vault_with_remote(tmp_path: Path) -> tuple[Path, Path]:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    root = tmp_path / "vault"
    assert run_cli(["init", str(root)]).exit_code == 0
    git(root, "remote", "add", "origin", str(remote))
    return root, remote


def drop_notes(root: Path, count: int) -> None:
    for number in range(count):
        (root / "memory" / "cards" / f"note-{number:02}.md").write_text(
            f"---\ntopic: Note {number}\ncategory: tools\ntags: [x]\ncreated: 2026-01-01\n"
            f"updated: 2026-01-01\n---\nNote {number} dropped in by hand.\n",
            encoding="utf-8",
        )


def test_many_pending_edits_are_committed_in_bounded_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("cardvault.edits.door.PENDING_STEP", STEP)
    root, remote = vault_with_remote(tmp_path)
    drop_notes(root, NOTES)
    done = run_cli(["--vault", str(root), "sync"])
    assert done.exit_code == 0, done.output
    subjects = git(root, "log", "--format=%H %s").splitlines()
    steps = [line.split()[0] for line in subjects if line.endswith(" hand edits")]
    assert len(steps) == -(-NOTES // STEP)
    sizes = [len(git(root, "show", "--name-only", "--format=", sha).split()) for sha in steps]
    assert sum(sizes) == NOTES and max(sizes) <= STEP
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    published = git(remote, "ls-tree", "-r", "--name-only", "main").split()
    assert sum(name.startswith("memory/cards/note-") for name in published) == NOTES


def test_a_secret_in_any_step_commits_none_of_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("cardvault.edits.door.PENDING_STEP", STEP)
    root, _ = vault_with_remote(tmp_path)
    drop_notes(root, NOTES)
    last = root / "memory" / "cards" / f"note-{NOTES - 1:02}.md"
    last.write_text(
        last.read_text(encoding="utf-8") + TOKEN,
        encoding="utf-8",
    )
    heads = git(root, "rev-parse", "HEAD")
    done = run_cli(["--vault", str(root), "sync"])
    assert done.exit_code != 0 and "secret" in done.output
    assert git(root, "rev-parse", "HEAD") == heads
