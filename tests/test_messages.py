"""Every error a user can trigger ends in one clear line and a non-zero exit: no traceback, no
bare "Aborted!", no gitpython `Cmd('git') failed` dump; a `.cardvault` that is not a folder
heals with a notice for every command."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import run_cli


def cli(root: Path, *args: str, stdin: str | None = None):
    return run_cli(["--vault", str(root), *args], input=stdin)


def error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


def test_forget_without_an_answer_says_so_and_removes_nothing(sample_vault: Path) -> None:
    card = sample_vault / "memory" / "cards" / "nginx-upload-size-limit.md"
    result = cli(sample_vault, "forget", "nginx-upload-size-limit", stdin="")
    assert result.exit_code == 1
    assert "Aborted!" not in result.output
    assert error_lines(result.output) == [
        "error: no answer (stdin is closed): nothing removed; pass --yes to remove without asking"
    ]
    assert card.exists()
    declined = cli(sample_vault, "forget", "nginx-upload-size-limit", stdin="n\n")
    assert declined.exit_code == 1 and "cancelled: nothing removed" in declined.output


def test_forget_with_yes_never_widens_to_card_text_on_its_own(sample_vault: Path) -> None:
    """A rerun after the topic's cards are gone (an interrupted forget) must not take cards
    that merely mention the words."""
    first = cli(sample_vault, "forget", "--yes", "nginx")
    assert first.exit_code == 0, first.output
    cards = sorted((sample_vault / "memory" / "cards").iterdir())
    assert not [card for card in cards if card.name.startswith("nginx")]
    rerun = cli(sample_vault, "forget", "--yes", "nginx")  # two cards still mention nginx
    assert rerun.exit_code == 1
    assert "only mention it in their text. Nothing removed" in rerun.output
    assert sorted((sample_vault / "memory" / "cards").iterdir()) == cards
    asked = cli(sample_vault, "forget", "--yes", "--match-text", "nginx")
    assert asked.exit_code == 0, asked.output
    assert len(list((sample_vault / "memory" / "cards").iterdir())) == len(cards) - 2


def test_a_failed_commit_is_one_line(vault_path: Path) -> None:
    (vault_path / ".gitignore").write_text(".cardvault/\nmemory/2*.md\n")
    identity = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(
        ["git", "-C", str(vault_path), *identity, "commit", "-qam", "ignore"], check=True
    )
    result = cli(vault_path, "log", "a note the repository ignores")
    assert result.exit_code == 0
    assert "warning: written, not committed: git ignores memory/2" in result.output
    assert "Cmd(" not in result.output and "stderr:" not in result.output
    (vault_path / ".gitignore").write_text(".cardvault/\n")
    (vault_path / ".git" / "refs" / "heads" / "main").write_text("garbage\n")  # a broken ref
    broken = cli(vault_path, "log", "a note git cannot commit")
    assert broken.exit_code == 1
    assert error_lines(broken.output) == [line for line in broken.output.splitlines() if line]
    assert len(error_lines(broken.output)) == 1 and "git commit failed" in broken.output


def test_a_write_of_a_file_git_ignores_commits_its_other_files(vault_path: Path) -> None:
    """A shared vault's `.gitignore` (a teammate's push) that ignores the cards: `maintain`
    distils a lesson into a card git ignores and regenerates MEMORY.md in one write. The card
    stays out of git (said, naming it); MEMORY.md is committed. Before, neither was, so the
    next `maintain` refused the vault's own MEMORY.md as "uncommitted changes" and the next
    `sync` committed it as the person's "hand edits"."""
    (vault_path / ".gitignore").write_text(".cardvault/\nmemory/cards/*.md\n")
    identity = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(
        ["git", "-C", str(vault_path), *identity, "commit", "-qam", "ignore"], check=True
    )
    logged = cli(vault_path, "log", "Lesson: pin the base image by digest.", "--title", "pins")
    assert logged.exit_code == 0, logged.output
    first = cli(vault_path, "maintain")
    assert first.exit_code == 0, first.output
    assert "git ignores memory/cards/pin-the-base-image-by-digest.md" in first.output
    status = subprocess.run(
        ["git", "-C", str(vault_path), "status", "--porcelain"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert status == "", status
    again = cli(vault_path, "maintain")
    assert again.exit_code == 0 and "uncommitted changes" not in again.output, again.output


def test_an_operating_system_error_is_one_line(vault_path: Path, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    result = cli(vault_path, "export", str(tmp_path / "a-file" / "out.json"))
    assert result.exit_code == 1, result.output
    assert len(error_lines(result.output)) == 1 and "Traceback" not in result.output


COMMANDS = (
    ("check",),
    ("list",),
    ("stats",),
    ("graph",),
    ("search", "--mode", "keyword", "nginx"),
    ("context",),
    ("export", "-"),
    ("show", "nginx-upload-size-limit"),
    ("maintain", "--dry-run", "--only", "promote,archive,index"),
    ("log", "a note"),
    ("new", "A card", "-c", "tools", "--body", "text"),
    ("index",),
    ("forget", "--yes", "no-such-topic-anywhere"),
)


@pytest.mark.parametrize("kind", ["file", "broken symlink"])
def test_a_cardvault_that_is_not_a_folder_heals_for_every_command(
    sample_vault: Path, kind: str
) -> None:
    from cardvault import history
    from cardvault.vault.layout import open_vault_at

    # three cards, so the two commands that build the index anew (each time: the cache is
    # replaced before every command) embed three cards, not the sample's 32
    for card in (sample_vault / "memory" / "cards").glob("*.md"):
        if card.stem not in {"nginx-upload-size-limit", "nginx-proxy-timeouts", "release-tagging"}:
            card.unlink()
    history.commit(open_vault_at(sample_vault), "three cards")
    cache = sample_vault / ".cardvault"
    for args in COMMANDS:
        if cache.is_dir():
            subprocess.run(["rm", "-rf", str(cache)], check=True)
        if kind == "file":
            cache.write_text("not a folder")
        else:
            os.symlink(sample_vault / "nowhere", cache)
        result = cli(sample_vault, *args)
        assert result.exception is None or isinstance(result.exception, SystemExit), args
        assert result.exit_code in (0, 1), (args, result.output)
        assert "to make room for cardvault's cache folder" in result.output, args
        assert not cache.exists() or cache.is_dir(), args
