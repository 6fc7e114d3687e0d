"""The write door: recovery after a killed writer, git's stale locks, hand edits, re-planning."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cardvault import history
from cardvault.edits.changes import WriteFile
from cardvault.edits.door import Door
from cardvault.edits.journal import Step, new_journal, read_journal, temp_path, write_journal
from cardvault.edits.proposal import propose
from cardvault.edits.recover import describe, recover
from cardvault.errors import CardvaultError
from cardvault.vault.files import ABSENT, digest_text, read_text
from cardvault.vault.layout import open_vault_at
from cardvault.write.add import plan_log
from tests.support.cli import git_log, run_cli
from tests.support.writers import REPO, assert_vault_sound, cardvault, git, lock_held_elsewhere

NOW = "2026-03-19T14:30"

#: A writer of three cards that is killed (os._exit: no cleanup, like kill -9) right after
#: writing its `argv[2]`-th file.
KILLED_WRITER = """
import os, sys
from pathlib import Path
from cardvault.edits.changes import WriteFile
from cardvault.edits.door import Door
from cardvault.edits.proposal import propose
from cardvault.vault.files import ABSENT
from cardvault.vault.layout import open_vault_at
vault = open_vault_at(Path(sys.argv[1]))
stop_after = int(sys.argv[2])
written = []
def die(path):
    written.append(path)
    if len(written) == stop_after:
        os._exit(137)
head = "---\\ntopic: T\\ncategory: tools\\ntags: [t]\\ncreated: 2026-03-19\\n"
body = head + "updated: 2026-03-19\\n---\\nBody {n}.\\n"
changes = [
    WriteFile(vault.card_path(f"card-{n}"), body.format(n=n), ABSENT, f"card {n}")
    for n in range(3)
]
Door(vault).commit(lambda: propose(changes, "three cards", None), after_write=die)
"""


def _killed_writer(root: Path, stop_after: int) -> int:
    done = subprocess.run(
        [sys.executable, "-c", KILLED_WRITER, str(root), str(stop_after)], cwd=REPO, check=False
    )
    return done.returncode


@pytest.mark.parametrize("stop_after", [1, 2, 3])
def test_a_write_killed_midway_is_finished_and_committed_by_the_next(
    vault_path: Path, stop_after: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _killed_writer(vault_path, stop_after) == 137
    assert (vault_path / ".cardvault" / "journal.json").exists()
    vault = open_vault_at(vault_path)
    result = _log(vault, "after the crash", None, _now())
    said = capsys.readouterr().err
    assert "finished an interrupted write (three cards): committed " in said
    assert not any("interrupted" in n for n in result.notes)  # said once, by the door
    for n in range(3):
        assert vault.card_path(f"card-{n}").read_text(encoding="utf-8").endswith(f"Body {n}.\n")
    subjects = git_log(vault_path)
    assert subjects[:2] == ["log: 2026-03-19 14:30 after the crash", "three cards"]
    body = git(vault_path, "log", "-1", "--format=%B", "HEAD~1")
    assert "finished after an interruption" in body
    assert_vault_sound(vault_path)


@pytest.mark.parametrize(
    "command",
    [
        ["log", "after the crash"],
        ["maintain", "--only", "promote,uses,verify,archive,index"],
        ["forget", "card-0", "--yes"],
        ["promote", "card-1", "--rule", "Card one is a rule."],
        ["check", "--fix"],
    ],
    ids=lambda command: command[0],
)
def test_every_writing_command_says_once_that_it_finished_an_interrupted_write(
    vault_path: Path, command: list[str]
) -> None:
    """docs/writers.md: the next writing command, whichever it is, finishes the write a killed
    process left and says so on stderr, in one line (maintain and forget used to say nothing;
    a command that said it through its result must not say it twice)."""
    assert _killed_writer(vault_path, 2) == 137
    result = run_cli(["--vault", str(vault_path), *command], env={"CARDVAULT_NOW": NOW})
    assert result.exit_code == 0, result.output
    assert result.stderr.count("finished an interrupted write (three cards): committed ") == 1
    assert "three cards" in git_log(vault_path)
    assert_vault_sound(vault_path)


def test_a_file_edited_by_hand_after_the_crash_is_left_as_found(vault_path: Path) -> None:
    assert _killed_writer(vault_path, 1) == 137
    vault = open_vault_at(vault_path)
    first = next(p for p in vault.cards_dir.glob("card-*.md"))
    first.write_text("my own words\n", encoding="utf-8")
    outcome = recover(vault)
    assert outcome.left == (vault.rel(first),)
    assert first.read_text(encoding="utf-8") == "my own words\n"
    assert read_journal(vault) is None


def test_an_undo_interrupted_by_a_crash_is_finished_without_a_commit(vault_path: Path) -> None:
    vault = open_vault_at(vault_path)
    memory = read_text(vault.memory_md, vault.root)
    new_text = memory.text + "half-written change\n"
    vault.memory_md.write_text(new_text, encoding="utf-8")  # the change was written...
    step = Step("MEMORY.md", digest_text(new_text), memory.digest, memory.text, 0o644)
    journal = new_journal(None, [step], rollback=True)  # ...and its undo had begun
    write_journal(vault, journal)
    temp_path(vault.memory_md, journal.id).write_text("partial", encoding="utf-8")
    heads = history.commit_count(vault)
    outcome = recover(vault)
    assert outcome.rollback and outcome.commit is None
    assert not temp_path(vault.memory_md, journal.id).exists()
    assert vault.memory_md.read_text(encoding="utf-8") == memory.text
    assert history.commit_count(vault) == heads
    assert_vault_sound(vault_path)


def test_a_stale_index_lock_is_cleared_and_reported(
    vault_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vault_path / ".git" / "index.lock").write_text("", encoding="utf-8")
    (vault_path / ".git" / "refs" / "heads" / "main.lock").write_text("", encoding="utf-8")
    result = _log(open_vault_at(vault_path), "note", None, _now())
    assert result.commit.recorded
    said = capsys.readouterr().err.splitlines()
    assert any("index.lock" in line and "refs/heads/main.lock" in line for line in said)
    assert_vault_sound(vault_path)


def test_a_lock_of_a_live_git_is_waited_for_never_removed(vault_path: Path, tmp_path: Path) -> None:
    """While a git process runs in the repository (here a `sleep` named git), its index.lock is
    not cleared: the write waits until that git lets go of it."""
    fake_git = tmp_path / "bin" / "git"
    fake_git.parent.mkdir()
    fake_git.write_bytes(Path(shutil.which("sleep") or "/bin/sleep").read_bytes())
    fake_git.chmod(0o755)
    lock = vault_path / ".git" / "index.lock"
    lock.write_text("", encoding="utf-8")
    live = subprocess.Popen([str(fake_git), "30"], cwd=vault_path)
    seen: list[bool] = []

    def finish_later() -> None:
        time.sleep(1.0)
        seen.append(lock.exists())  # still there: nobody removed a live git's lock
        lock.unlink()
        live.kill()

    thread = threading.Thread(target=finish_later)
    thread.start()
    try:
        result = _log(open_vault_at(vault_path), "while git ran", None, _now())
    finally:
        thread.join()
        live.wait()
    assert seen == [True] and result.commit.recorded
    assert not any("index.lock" in n for n in result.notes)


def test_a_git_lock_taken_after_the_settling_is_waited_for_by_the_commit(
    vault_path: Path,
) -> None:
    """A git that starts between the write's look at git's locks and its commit (an editor's
    `git status`, run every second, takes index.lock for a moment) makes git refuse with
    "Unable to create '.git/index.lock': File exists": the commit waits for it, bounded, and
    records the write, instead of failing it (seen: 2 of 30 `cardvault log` failed beside a
    `git status` loop)."""
    vault = open_vault_at(vault_path)
    path = vault.log_path("2026-03-19")
    path.write_text("# 2026-03-19\n\n## 10:00 — taken\nan entry\n", encoding="utf-8")
    lock = vault_path / ".git" / "index.lock"
    lock.write_text("", encoding="utf-8")

    def let_go_later() -> None:
        time.sleep(0.8)
        lock.unlink()

    thread = threading.Thread(target=let_go_later)
    thread.start()
    try:
        result = history.commit(vault, "log: while git status ran", [path], created=[path])
    finally:
        thread.join()
    assert result.recorded
    assert git(vault_path, "status", "--porcelain") == ""


def test_a_killed_syncs_merge_a_hand_pull_took_in_is_told_as_in_the_branch(
    vault_path: Path,
) -> None:
    """A sync killed after it moved the branch to its merge but before it tidied up (its
    journal left); the person then pulled by hand, so the branch has moved on from the merge.
    The next command says the merge is in the branch, not that it "was not recorded" (which
    reads as memory lost), and no empty "finished an interrupted write ()" line."""
    vault = open_vault_at(vault_path)
    git(vault_path, "config", "user.name", "Test Person")
    git(vault_path, "config", "user.email", "person@example.com")
    log = vault.log_path("2026-03-19")
    log.write_text("# 2026-03-19\n\n## 10:00 — one\nfirst\n", encoding="utf-8")
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-q", "-m", "one")
    old = git(vault_path, "rev-parse", "HEAD").strip()
    merged = read_text(log, vault.root).text + "\n## 10:05 — two\nsecond\n"
    log.write_text(merged, encoding="utf-8")
    git(vault_path, "commit", "-q", "-am", "sync: merge origin/main")
    new = git(vault_path, "rev-parse", "HEAD").strip()
    (vault_path / "notes.txt").write_text("pulled by hand\n", encoding="utf-8")
    git(vault_path, "add", "notes.txt")
    git(vault_path, "commit", "-q", "-m", "Merge branch 'main' of origin")  # the hand pull
    step = Step(vault.rel(log), digest_text(merged), digest_text(merged), merged, 0o644)
    write_journal(vault, new_journal(None, [step], moves=(old, new)))
    said = describe(recover(vault))
    assert said == [f"an interrupted sync's merge ({new[:10]}) is in the branch already"]
    assert read_journal(vault) is None


def test_hand_edits_of_the_target_get_their_own_commit(vault_path: Path) -> None:
    vault = open_vault_at(vault_path)
    _log(vault, "first", None, _now())
    log = vault.log_path("2026-03-19")
    log.write_text(log.read_text(encoding="utf-8") + "\nA line typed by hand.\n", "utf-8")
    result = _log(vault, "second", None, _now())
    assert git_log(vault_path)[:2] == ["log: 2026-03-19 14:30 second", "hand edits"]
    assert "A line typed by hand." in log.read_text(encoding="utf-8")
    assert any("hand edits" in n for n in result.notes)
    assert_vault_sound(vault_path)


def test_a_file_saved_between_plan_and_write_makes_the_plan_again(vault_path: Path) -> None:
    vault = open_vault_at(vault_path)
    path = vault.memory_md
    calls: list[int] = []

    def plan():  # type: ignore[no-untyped-def]
        current = read_text(path, vault.root)
        calls.append(1)
        if len(calls) == 1:  # an editor saves the file right after this read
            path.write_text(current.text + "saved in an editor\n", encoding="utf-8")
        return propose([WriteFile(path, current.text + "ours\n", current.digest, "x")], "m", 0)

    written = Door(vault).commit(plan)
    assert len(calls) == 2 and written.commit is not None
    assert path.read_text(encoding="utf-8").endswith("saved in an editor\nours\n")


def test_many_files_are_written_in_one_batch(vault_path: Path) -> None:
    vault = open_vault_at(vault_path)
    changes = [
        WriteFile(vault.card_path(f"c-{n}"), f"card {n}\n", ABSENT, f"card {n}") for n in range(60)
    ]
    written = Door(vault).commit(lambda: propose(changes, "sixty cards", None))
    assert len(written.paths) == 60 and written.commit is not None
    assert vault.card_path("c-59").read_text(encoding="utf-8") == "card 59\n"
    assert_vault_sound(vault_path)


def test_writes_are_refused_while_a_merge_is_in_progress(vault_path: Path) -> None:
    (vault_path / ".git" / "MERGE_HEAD").write_text(git(vault_path, "rev-parse", "HEAD"))
    with pytest.raises(CardvaultError, match="merge is in progress"):
        _log(open_vault_at(vault_path), "note", None, _now())
    assert (vault_path / ".git" / "MERGE_HEAD").exists()


def test_readers_never_wait_for_a_writer(vault_path: Path) -> None:
    with lock_held_elsewhere(vault_path) as holder:
        for args in (["list", "--json"], ["search", "--mode", "keyword", "anything"], ["check"]):
            done = cardvault(vault_path, *args)
            assert done.returncode in (0, 1), done.stderr
            assert "waiting" not in done.stderr
        assert holder.poll() is None  # still holding: the readers did not wait for it


def test_a_rename_in_the_index_is_parsed_with_both_paths() -> None:
    out = "R  memory/archive/x.md\0memory/cards/x.md\0 M MEMORY.md\0?? new file.md\0"
    assert history.parse_status(out) == [
        "memory/archive/x.md",
        "memory/cards/x.md",
        "MEMORY.md",
        "new file.md",
    ]


def test_commit_pending_after_git_mv(vault_path: Path) -> None:
    card = vault_path / "memory" / "cards" / "old-note.md"
    card.write_text(
        "---\ntopic: Old\ncategory: tools\ntags: [x]\ncreated: 2026-01-01\nupdated: 2026-01-01\n"
        "---\nOld note.\n",
        encoding="utf-8",
    )
    git(vault_path, "add", "-A")
    git(vault_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "card")
    git(vault_path, "mv", "memory/cards/old-note.md", "memory/archive/")
    done = cardvault(vault_path, "maintain", "--only", "index", "--commit-pending", now=NOW)
    assert done.returncode == 0, done.stderr
    assert "pathspec" not in done.stderr
    assert git(vault_path, "status", "--porcelain") == ""
    assert "hand edits" in git_log(vault_path)


def _now():  # type: ignore[no-untyped-def]
    import datetime as dt

    return dt.datetime.fromisoformat(NOW)


def test_a_temporary_file_left_by_an_old_writer_is_never_committed(vault_path: Path) -> None:
    orphan = vault_path / "memory" / "cards" / ".note.md.k2j3h4g5.tmp"
    orphan.write_text("half a card", encoding="utf-8")
    assert history.uncommitted(open_vault_at(vault_path)) == []
    done = cardvault(vault_path, "maintain", "--only", "index", "--commit-pending", now=NOW)
    assert done.returncode == 0, done.stderr
    assert ".tmp" not in git(vault_path, "log", "--name-only", "--format=")


def _log(vault, text, title, now):  # type: ignore[no-untyped-def]
    """`cardvault log`'s write: its plan landed through the door."""
    return Door(vault).land(plan_log(vault, text, title, now))
