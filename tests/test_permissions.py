"""What an ordinary user sees when a card, a log, the caches or the search index cannot be read
or written: one clear line naming the file, and nothing lost — the file, the other files and the
git history stay as they were, and what was refused can be done once the mode is fixed.

Every test here needs file modes to bind (conftest.modes_bind): as root they are left out of
the full run, and `.ci/run` runs them next as an unprivileged user (`pytest -m permissions`).
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.cli import git_log, run_cli, snapshot

pytestmark = pytest.mark.permissions

CARD = "memory/cards/prompt-caching.md"
LOG = "memory/2026-11-04.md"
NOW = "2026-11-30T10:00"


def cli(root: Path, *args: str, now: str = NOW):  # type: ignore[no-untyped-def]
    return run_cli(["--vault", str(root), *args], env={"CARDVAULT_NOW": now})


@contextmanager
def mode(path: Path, bits: int) -> Iterator[None]:
    """`path` with mode `bits` for the block, its own mode again after (so tmp_path can go)."""
    before = stat.S_IMODE(path.stat().st_mode)
    path.chmod(bits)
    try:
        yield
    finally:
        path.chmod(before)


def one_error_line(stderr: str) -> str:
    """The single `error:` line of a failed command (a traceback would be more lines)."""
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in stderr, stderr
    return errors[0]


def unchanged(root: Path, files: dict[str, bytes], commits: list[str]) -> None:
    assert snapshot(root) == files, "a refused write changed a file"
    assert git_log(root) == commits, "a refused write made a commit"
    assert not (root / ".cardvault" / "journal.json").exists(), "a journal was left behind"


def test_an_unreadable_card_is_named_and_back_once_readable(sample_vault: Path) -> None:
    card = sample_vault / CARD
    before = card.read_bytes()
    with mode(card, 0o000):
        listed = cli(sample_vault, "list", "--json")
        assert listed.exit_code == 0
        assert f"{CARD}:1: cannot read: Permission denied" in listed.stderr
        slugs = [row["slug"] for row in json.loads(listed.stdout)]
        assert "prompt-caching" not in slugs and "release-tagging" in slugs  # the rest is there
        shown = cli(sample_vault, "show", "prompt-caching")
        assert shown.exit_code == 1
        assert one_error_line(shown.stderr) == (
            f"error: {sample_vault / CARD}:1: cannot read: Permission denied"
        )
        checked = cli(sample_vault, "check")
        assert checked.exit_code == 1
        assert f"{CARD}:1: error: cannot read: Permission denied [unreadable]" in checked.stdout
    again = cli(sample_vault, "list", "--json")  # a chmod changes no mtime: read again anyway
    assert again.exit_code == 0 and "cannot read" not in again.stderr
    assert "prompt-caching" in [row["slug"] for row in json.loads(again.stdout)]
    assert cli(sample_vault, "check").stdout.count("[unreadable]") == 0
    assert card.read_bytes() == before


def test_an_unreadable_log_is_named_and_not_written(sample_vault: Path) -> None:
    log = sample_vault / LOG
    files, commits = snapshot(sample_vault), git_log(sample_vault)
    with mode(log, 0o000):
        checked = cli(sample_vault, "check")
        assert f"{LOG}:1: error: cannot read: Permission denied [unreadable]" in checked.stdout
        appended = cli(sample_vault, "log", "one more line", now="2026-11-04T18:00")
        assert appended.exit_code == 1
        line = one_error_line(appended.stderr)
        assert str(log) in line and "Permission denied" in line
    unchanged(sample_vault, files, commits)
    other_day = cli(sample_vault, "log", "elsewhere is fine")
    assert other_day.exit_code == 0 and (sample_vault / "memory/2026-11-30.md").exists()


def test_a_read_only_log_is_not_written_around(sample_vault: Path) -> None:
    """A rename would replace a read-only file; cardvault refuses, as `rm` asks first."""
    log = sample_vault / LOG
    files, commits = snapshot(sample_vault), git_log(sample_vault)
    with mode(log, 0o444):
        done = cli(sample_vault, "log", "one more line", now="2026-11-04T18:00")
        assert done.exit_code == 1
        assert one_error_line(done.stderr) == (
            f"error: {log}: is read-only for this user; nothing written "
            "(make it writable to change it)"
        )
        assert stat.S_IMODE(log.stat().st_mode) == 0o444
    unchanged(sample_vault, files, commits)
    retried = cli(sample_vault, "log", "one more line", now="2026-11-04T18:00")
    assert retried.exit_code == 0 and "one more line" in log.read_text()


def test_a_read_only_card_is_neither_rewritten_nor_removed(sample_vault: Path) -> None:
    card = sample_vault / "memory/cards/release-tagging.md"
    files, commits = snapshot(sample_vault), git_log(sample_vault)
    with mode(card, 0o444):
        done = cli(sample_vault, "forget", "release-tagging", "--yes")
        assert done.exit_code == 1
        line = one_error_line(done.stderr)
        assert line == f"error: {card}: is read-only for this user; nothing written " + (
            "(make it writable to change it)"
        )
    unchanged(sample_vault, files, commits)


NEW_CARD = ("new", "Fresh Card", "-c", "tools", "--body", "x")


@pytest.mark.parametrize(
    ("folder", "args", "target"),
    [
        ("memory/cards", NEW_CARD, "memory/cards/fresh-card.md"),
        ("memory", ("log", "a new day"), "memory/2026-11-30.md"),
    ],
    ids=["card", "log"],
)
def test_a_folder_that_cannot_take_the_file_is_named(
    sample_vault: Path, folder: str, args: tuple[str, ...], target: str
) -> None:
    files, commits = snapshot(sample_vault), git_log(sample_vault)
    with mode(sample_vault / folder, 0o555):
        done = cli(sample_vault, *args)
        assert done.exit_code == 1
        assert one_error_line(done.stderr) == (
            f"error: {sample_vault / target}: cannot be written: this user may not write in "
            f"{folder}/; nothing written"
        )
    unchanged(sample_vault, files, commits)
    assert cli(sample_vault, *args).exit_code == 0


def test_a_cache_folder_that_cannot_be_written_stops_a_write_first(sample_vault: Path) -> None:
    """The lock and the journal live in .cardvault/: a write that cannot keep them writes
    nothing, and says which folder must be writable."""
    assert cli(sample_vault, "list", "--json").exit_code == 0  # the catalog made .cardvault/
    cache = sample_vault / ".cardvault"
    files, commits = snapshot(sample_vault), git_log(sample_vault)
    with mode(cache, 0o555):
        done = cli(sample_vault, "log", "cannot keep a journal")
        assert done.exit_code == 1
        line = one_error_line(done.stderr)
        assert str(cache) in line and ".cardvault/ must be a writable folder" in line
        listed = cli(sample_vault, "list", "--json")  # reading still works, without the cache
        assert listed.exit_code == 0 and len(json.loads(listed.stdout)) == 32
    unchanged(sample_vault, files, commits)


@pytest.mark.slow
def test_a_search_index_that_cannot_be_written_is_named_not_called_damaged(
    indexed_sample: Path,
) -> None:
    index = indexed_sample / ".cardvault" / "search.sqlite"
    card = indexed_sample / "memory/cards/release-tagging.md"
    card.write_text(card.read_text() + "\nTag from main only.\n")  # the index must be written
    with mode(index, 0o444):
        done = cli(indexed_sample, "search", "release tag", "--json")
        assert done.exit_code == 0 and json.loads(done.stdout)  # rebuilt beside it: answers
        assert f"search index {index} is read-only for this user; rebuilt it" in done.stderr
        assert "damaged" not in done.stderr
    card.write_text(card.read_text() + "\nAnd sign the tag.\n")
    cache = indexed_sample / ".cardvault"
    before = index.read_bytes()
    with mode(cache, 0o555):  # the index is made in the user's cache instead (vault/cache.py)
        done = cli(indexed_sample, "search", "sign the tag", "--json", "--mode", "keyword")
        assert done.exit_code == 0, done.stderr
        assert json.loads(done.stdout)[0]["slug"] == "release-tagging"
    assert index.read_bytes() == before
    assert card.read_text().endswith("And sign the tag.\n")


@pytest.mark.slow
def test_an_unreadable_search_index_is_named_and_rebuilt(indexed_sample: Path) -> None:
    index = indexed_sample / ".cardvault" / "search.sqlite"
    index.chmod(0o000)  # the rebuild replaces the file; tmp_path can remove it after
    done = cli(indexed_sample, "search", "release tag", "--json")
    assert done.exit_code == 0 and json.loads(done.stdout)
    assert (
        f"search index {index} cannot be read by this user (permission denied); rebuilt it"
        in done.stderr
    )
