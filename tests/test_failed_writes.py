"""A write that reports failure leaves nothing behind: the disk full at every write step (an
injected ENOSPC, edits/faults.py: the Nth step of the real write path raises what the kernel
would), read-only files, names of 255 bytes. After each reported failure the vault is
byte-identical to before, nothing is committed, no journal or temporary file is left, and the
next command changes nothing (it never finishes the failed write). `index` on a disk that
cannot take its file (a real file-size limit, RLIMIT_FSIZE) fails in one line."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import run_cli, snapshot
from tests.support.machine import scaled
from tests.support.writers import git, temp_files

NOW = "2026-06-01T09:15"
LONG = "stale-" + "x" * 246  # with ".md", a file name of 255 bytes
CARD = (
    "---\ntopic: {topic}\ncategory: tools\ntags: [{tag}]\ncreated: {day}\nupdated: {day}\n"
    "---\n{body}\n"
)

#: Each writer, and what it is asked to do.
COMMANDS = {
    "log": ("log", "an entry written on a full disk", "--title", "full"),
    "remember": ("remember", "raise client_max_body_size for big uploads"),
    "new": ("new", "Full disk card", "-c", "tools", "--body", "Written on a full disk?"),
    "forget": ("forget", "nginx", "--yes"),
    "maintain": ("maintain", "--only", "archive"),  # moves the 255-byte card, and two more
}


def cv(root: Path, *args: str, fail_at: str | None = None) -> tuple[int, str]:
    env = {"CARDVAULT_NOW": NOW, "CARDVAULT_FAIL_AT": fail_at or ""}
    result = run_cli(["--vault", str(root), *args], env=env)
    return result.exit_code, result.stderr if result.exit_code else result.output


def _card(root: Path, name: str, tag: str, day: str, folder: str = "cards") -> None:
    body = f"A note about {tag}: keep the {tag} settings in one place."
    path = root / "memory" / folder / f"{name}.md"
    path.write_text(CARD.format(topic=f"{tag.title()} {name[:20]}", tag=tag, day=day, body=body))


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from cardvault.app.vaults import init_vault

    root = tmp_path_factory.mktemp("failed-writes") / "vault"
    init_vault(root)
    _card(root, "nginx-uploads", "nginx", "2026-05-20")
    _card(root, LONG, "stale", "2025-01-01")
    _card(root, "stale-two", "stale", "2025-01-01")
    _card(root, "stale-three", "stale", "2025-01-01")
    # its entry has an id already: maintain's once-only id migration (its own commit before the
    # maintenance one, maintain/entry_ids.py) is not part of the write these tests fail
    daily = "# 2026-06-01\n\n## 08:00 — start <!-- id:0a1b2c -->\nBegun.\n"
    (root / "memory" / "2026-06-01.md").write_text(daily)
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fixture")
    return root


def _state(root: Path) -> tuple[dict[str, bytes], str]:
    return snapshot(root), git(root, "rev-parse", "HEAD")


def _nothing_left(root: Path) -> None:
    assert not (root / ".cardvault" / "journal.json").exists(), "journal left behind"
    assert not (root / ".cardvault" / "undo.json").exists(), "undo left behind"
    assert temp_files(root) == []
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""


#: How the disk fails: at one step only, or full from that step on (every later step that
#: needs space fails too, the undo's included: edits/faults.py).
FAULTS = {"one step": "{}", "full from then on": "{}+"}


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_full_disk_at_every_write_step_leaves_the_vault_as_it_was(
    template: Path, tmp_path: Path, command: str, fault: str
) -> None:
    failures = 0
    for step in range(1, 200):
        root = tmp_path / f"at-{step}"
        shutil.copytree(template, root, symlinks=True)
        before = _state(root)
        code, out = cv(root, *COMMANDS[command], fail_at=FAULTS[fault].format(step))
        if code == 0:  # the fault lay past the last step: the write went through
            assert _state(root)[1] != before[1], "succeeded without a commit"
            _nothing_left(root)
            break
        failures += 1
        errors = [line for line in out.splitlines() if line.startswith("error:")]
        assert len(errors) == 1, out
        assert "No space left on device" in errors[0] and "/" in errors[0], errors[0]
        assert _state(root) == before, f"step {step}: the vault changed ({errors[0]})"
        _nothing_left(root)
        code, out = cv(root, "check", "--fix")  # the next command: nothing to finish
        assert code == 0, out
        assert "finished" not in out, out
        assert _state(root) == before, f"step {step}: the next command changed the vault"
        shutil.rmtree(root)
    else:
        raise AssertionError("the command never succeeded")
    assert failures >= 4, f"only {failures} write steps seen"  # journal, temp, rename, commit


def _commit_step(template: Path, tmp_path: Path, command: tuple[str, ...]) -> int:
    """The step number of the write's commit (its last step): the last one that fails."""
    last = 0
    for step in range(1, 200):
        root = tmp_path / f"probe-{step}"
        shutil.copytree(template, root, symlinks=True)
        code, _ = cv(root, *command, fail_at=str(step))
        shutil.rmtree(root)
        if code == 0:
            return last
        last = step
    raise AssertionError("the command never succeeded")


def test_a_file_that_cannot_be_put_back_is_put_back_by_the_next_command_never_finished(
    template: Path, tmp_path: Path
) -> None:
    commit = _commit_step(template, tmp_path, COMMANDS["log"])
    root = tmp_path / "vault"
    shutil.copytree(template, root, symlinks=True)
    before = _state(root)
    # the commit fails, the undo is marked (commit + 1), putting the log back fails (+ 2)
    code, out = cv(root, *COMMANDS["log"], fail_at=f"{commit},{commit + 2}")
    assert code == 1
    assert "could not restore memory/2026-06-01.md" in out and "puts it back" in out, out
    assert (root / ".cardvault" / "undo.json").exists()
    code, out = cv(root, "check", "--fix")
    assert code == 0, out
    assert "finished undoing a write that failed" in out, out
    assert _state(root) == before  # undone, never finished: no entry, no commit
    _nothing_left(root)


def test_a_rollback_that_cannot_mark_its_journal_still_restores_everything(
    template: Path, tmp_path: Path
) -> None:
    commit = _commit_step(template, tmp_path, COMMANDS["maintain"])
    root = tmp_path / "vault"
    shutil.copytree(template, root, symlinks=True)
    before = _state(root)
    code, out = cv(root, *COMMANDS["maintain"], fail_at=f"{commit},{commit + 1}")
    assert code == 1 and "every file was restored" in out, out
    assert _state(root) == before
    _nothing_left(root)
    assert cv(root, "check", "--fix")[0] == 0 and _state(root) == before


def test_a_card_named_with_255_bytes_is_written_moved_and_rolled_back(
    template: Path, tmp_path: Path
) -> None:
    from cardvault.edits.atomic import NAME_MAX
    from cardvault.edits.journal import temp_path

    long_card = Path("memory/cards") / f"{LONG}.md"
    assert len(long_card.name.encode()) == 255
    assert len(temp_path(template / long_card, "0123456789ab").name.encode()) <= NAME_MAX
    root = tmp_path / "vault"
    shutil.copytree(template, root, symlinks=True)
    code, out = cv(root, *COMMANDS["maintain"])
    assert code == 0, out
    assert (root / "memory" / "archive" / long_card.name).is_file()
    assert not (root / long_card).exists()
    _nothing_left(root)


def test_a_read_only_card_is_refused_in_one_line_naming_it(template: Path, tmp_path: Path) -> None:
    root = tmp_path / "vault"
    shutil.copytree(template, root, symlinks=True)
    before = _state(root)
    code, out = cv(root, "forget", "nginx", "--yes", fail_at="3:EROFS")
    assert code == 1
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Read-only file system" in errors[0], out
    assert _state(root) == before
    _nothing_left(root)


@pytest.mark.permissions
def test_read_only_files_and_folders_are_refused_before_anything_is_written(
    template: Path, tmp_path: Path
) -> None:
    root = tmp_path / "vault"
    shutil.copytree(template, root, symlinks=True)
    card = root / "memory" / "cards" / "nginx-uploads.md"
    card.chmod(0o444)
    before = _state(root)
    code, out = cv(root, "forget", "nginx", "--yes")
    assert code == 1 and "nginx-uploads.md" in out and "read-only" in out, out
    assert _state(root) == before
    card.chmod(0o644)
    cache = root / ".cardvault"
    cache.chmod(0o555)
    try:
        code, out = cv(root, *COMMANDS["log"])  # a write takes the lock in .cardvault/
        assert code == 1, out
        assert len(out.strip().splitlines()) == 1 and ".cardvault" in out, out
        # the derived index is no write to the vault: it goes to the user's cache instead
        user_cache = tmp_path / "user-cache"
        env = {"CARDVAULT_NOW": NOW, "CARDVAULT_CACHE": str(user_cache)}
        result = run_cli(["--vault", str(root), "index"], env=env)
        assert result.exit_code == 0, result.output
        assert any((user_cache / "vaults").iterdir())
        assert _state(root) == before
    finally:
        cache.chmod(0o755)


def _file_size_limit() -> None:
    """In the child: writes past 64 KiB fail (EFBIG) as on a disk with no room left."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))


def test_index_on_a_disk_without_room_fails_in_one_line(template: Path, tmp_path: Path) -> None:
    root = tmp_path / "vault"
    shutil.copytree(template, root, symlinks=True)
    before = _state(root)
    env = {**os.environ, "CARDVAULT_VAULT": str(root), "CARDVAULT_NOW": NOW}
    done = subprocess.run(
        [sys.executable, "-m", "cardvault", "index"],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[1],
        preexec_fn=_file_size_limit,
        timeout=scaled(600),
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "search index could not be written" in lines[0] and ".cardvault" in lines[0]
    assert _state(root) == before


def test_a_temporary_file_a_killed_write_leaves_is_never_offered_to_git(tmp_path: Path) -> None:
    """Between a kill and the next cardvault command (which removes it), a write's temporary
    file sits beside the vault file; a person's `git add -A` must not commit it."""
    root = tmp_path / "v"
    assert run_cli(["init", str(root)]).exit_code == 0
    (root / "memory" / ".2026-03-02.md.k3j4h5g6.tmp").write_text("## 10:00 — half\n")
    (root / "memory" / "cards" / ".deploy.md.a1b2c3d4.old.tmp").write_text("---\n")
    status = subprocess.run(
        ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert status == ""
