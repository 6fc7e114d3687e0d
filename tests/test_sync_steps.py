"""A sync's long parts hold no vault lock, so a writer gets in: many pending hand edits are
screened holding none and committed in steps of a bounded size, the lock let go between two
(edits/door.py `Door.commit_hand_edits`), each step its own "hand edits" commit, all of them
published, a secret in any of them committing none; the merge is computed holding none and
carried out under the lock, computed again there when a writer committed meanwhile
(sync/run.py `_prepare`). A `log` run in its own process at those moments, with a 1 s lock
timeout, shows the lock free."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.writers import cardvault, git, set_lock_timeout

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


def log_meanwhile(root: Path, text: str) -> None:
    """A `log` in its own process that may wait 1 s for the vault lock: it must get in."""
    done = cardvault(root, "log", text, "--title", "meanwhile")
    assert done.returncode == 0, done.stderr


def test_a_log_gets_in_while_a_sync_screens_many_pending_edits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cardvault.edits import door

    monkeypatch.setattr(door, "PENDING_STEP", STEP)
    root, _ = vault_with_remote(tmp_path)
    set_lock_timeout(root, 1)
    drop_notes(root, NOTES)
    screen = door.screen_hand_edits
    calls: list[int] = []

    def screen_then_log(top: Path, dirty: list[str]) -> None:
        screen(top, dirty)
        if len(dirty) > STEP:  # the whole list, screened before the steps
            calls.append(len(dirty))
            log_meanwhile(root, "written while a sync screens")

    monkeypatch.setattr(door, "screen_hand_edits", screen_then_log)
    done = run_cli(["--vault", str(root), "sync"])
    assert done.exit_code == 0, done.output
    assert calls == [NOTES]
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    assert "written while a sync screens" in git(root, "log", "-p", "origin/main")


def test_a_log_that_gets_in_while_a_sync_merges_is_merged_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cardvault.sync import run

    root, remote = vault_with_remote(tmp_path)
    assert run_cli(["--vault", str(root), "sync"]).exit_code == 0
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(remote), str(other)], check=True)
    assert (
        run_cli(["--vault", str(other), "new", "Theirs", "-c", "tools", "--body", "b"]).exit_code
        == 0
    )
    assert run_cli(["--vault", str(other), "sync"]).exit_code == 0
    assert (
        run_cli(["--vault", str(root), "new", "Ours", "-c", "tools", "--body", "a"]).exit_code == 0
    )
    set_lock_timeout(root, 1)
    prepare = run.prepare
    prepared: list[str] = []

    def prepare_then_log(vault, top, target, today, dropped=None):  # type: ignore[no-untyped-def]
        made = prepare(vault, top, target, today, dropped)
        prepared.append(made.merge.old)
        if len(prepared) == 1:  # computed holding no lock: a writer gets in and commits
            log_meanwhile(root, "written while a sync merges")
        return made

    monkeypatch.setattr(run, "prepare", prepare_then_log)
    done = run_cli(["--vault", str(root), "sync"])
    assert done.exit_code == 0, done.output
    assert len(prepared) == 2 and prepared[0] != prepared[1]  # made again from the new HEAD
    published = git(remote, "ls-tree", "-r", "--name-only", "main").split()
    assert {"memory/cards/theirs.md", "memory/cards/ours.md"} <= set(published)
    assert "written while a sync merges" in git(root, "log", "-p", "origin/main")
    assert git(root, "status", "--porcelain") == ""
    table = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert "memory/cards/theirs.md)" in table and "memory/cards/ours.md)" in table
