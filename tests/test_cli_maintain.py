"""`cardvault maintain` through the real CLI: dry run, review branch, safety rules, JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardvault.cli.app import app
from cardvault.search.embedder import Embedder
from cardvault.vault.layout import Vault
from tests.support.maintain import (
    card,
    commit_all,
    git,
    give_entry_ids,
    log,
    new_vault,
    run,
    snapshot,
)
from tests.support.writers import lock_held_elsewhere, set_lock_timeout

pytestmark = pytest.mark.slow


REDIS = "Lesson: KEYS walks every key in one blocking call; use SCAN with COUNT 1000 instead."
#: The new card is named after the lesson, not the entry's title ("Redis stall").
SLUG = "use-scan-with-count-1000-instead"


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDVAULT_NOW", "2026-06-01T09:15")


@pytest.fixture
def vault(tmp_path: Path):  # type: ignore[no-untyped-def]
    vault = new_vault(tmp_path / "v")
    card(vault, "utc-timestamps", "UTC Timestamps", "Store every timestamp as UTC timestamptz.",
         category="workflow", tags="[postgres, time]", created="2026-05-01")  # fmt: skip
    log(vault, "2026-05-20", [
        ("10:00", "Redis stall", REDIS),
    ])  # fmt: skip
    commit_all(vault)
    return vault


def cli(vault, *args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, ["--vault", str(vault.root), *args])


def test_dry_run_prints_plan_and_diff_and_writes_nothing(vault) -> None:  # type: ignore[no-untyped-def]
    before, head = snapshot(vault.root), git(vault.root, "rev-parse", "HEAD")
    result = cli(vault, "maintain", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["dry_run"] is True and data["counts"]["distill"] == 1
    assert f"+++ b/memory/cards/{SLUG}.md" in data["diff"]
    assert data["message"].startswith("maintain: distilled 1")
    assert snapshot(vault.root) == before
    assert git(vault.root, "rev-parse", "HEAD") == head


def test_run_commits_once_and_second_run_commits_nothing(vault) -> None:  # type: ignore[no-untyped-def]
    first = cli(vault, "maintain", "--json")
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert data["commit"] and data["counts"]["distill"] == 1
    assert git(vault.root, "log", "-1", "--format=%s").startswith("maintain: distilled 1")
    assert git(vault.root, "status", "--porcelain", "--", "memory", "MEMORY.md", "AGENTS.md") == ""
    count = git(vault.root, "rev-list", "--count", "HEAD")
    second = cli(vault, "maintain", "--json")
    assert second.exit_code == 0 and json.loads(second.stdout)["commit"] is None
    assert git(vault.root, "rev-list", "--count", "HEAD") == count


def test_refuses_uncommitted_edits_unless_commit_pending(vault) -> None:  # type: ignore[no-untyped-def]
    note = vault.card_path("utc-timestamps")
    note.write_text(note.read_text(encoding="utf-8") + "Hand edit.\n", encoding="utf-8")
    refused = cli(vault, "maintain", "--json")
    assert refused.exit_code == 1
    assert "uncommitted changes" in refused.output and "--commit-pending" in refused.output
    assert "Hand edit." in note.read_text(encoding="utf-8")
    done = cli(vault, "maintain", "--commit-pending", "--json")
    assert done.exit_code == 0, done.output
    subjects = git(vault.root, "log", "-3", "--format=%s").splitlines()
    assert subjects[2] == "hand edits" and subjects[0].startswith("maintain:")
    assert subjects[1].startswith("log: give")  # the fixture's entries get ids (own commit)
    hand = git(vault.root, "show", "--stat", "--format=", "HEAD~2")
    assert "utc-timestamps.md" in hand and "redis" not in hand


def test_review_commits_on_a_branch_and_leaves_the_work_tree(vault) -> None:  # type: ignore[no-untyped-def]
    before, head = snapshot(vault.root), git(vault.root, "rev-parse", "HEAD")
    branch_before = git(vault.root, "rev-parse", "--abbrev-ref", "HEAD")
    result = cli(vault, "maintain", "--review", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    branch = data["branch"]
    assert branch.startswith("cardvault/maintain-")
    assert snapshot(vault.root) == before
    assert git(vault.root, "rev-parse", "HEAD") == head
    assert git(vault.root, "rev-parse", "--abbrev-ref", "HEAD") == branch_before
    assert git(vault.root, "status", "--porcelain", "--", "memory", "MEMORY.md") == ""
    shown = git(vault.root, "show", "--stat", branch)
    assert "maintain: distilled 1" in shown and f"memory/cards/{SLUG}.md" in shown
    assert git(vault.root, "rev-parse", f"{branch}~1") == head
    merged = git(vault.root, "merge", "--ff-only", branch)
    assert f"{SLUG}.md" in merged


def test_a_second_run_waits_then_gives_up_naming_the_holder(vault) -> None:  # type: ignore[no-untyped-def]
    set_lock_timeout(vault.root, 0.5)
    with lock_held_elsewhere(vault.root) as holder:
        result = cli(vault, "maintain", "--json")
    assert result.exit_code == 1
    assert "gave up after waiting 0.5 s" in result.output and f"pid {holder.pid}" in result.output


def test_failure_between_writes_leaves_the_vault_as_it_was(
    vault: Vault, embedder: Embedder
) -> None:
    from cardvault.edits.apply import ApplyError
    from cardvault.edits.door import Door

    Door(vault).commit(
        give_entry_ids(vault)
    )  # the fixture's entries get their ids first, in a commit of their own
    before, head = snapshot(vault.root), git(vault.root, "rev-parse", "HEAD")
    written: list[Path] = []

    def fail_on_second(path: Path) -> None:
        written.append(path)
        if len(written) == 2:
            raise OSError(5, "Input/output error", str(path))

    with pytest.raises(ApplyError):
        run(vault, embedder, after_write=fail_on_second)
    assert len(written) == 2
    assert snapshot(vault.root) == before
    assert git(vault.root, "rev-parse", "HEAD") == head


def test_unknown_step_and_bad_date_are_errors(vault) -> None:  # type: ignore[no-untyped-def]
    bad = cli(vault, "maintain", "--only", "distill,compress")
    assert bad.exit_code == 1 and "unknown step compress" in bad.output
    date = cli(vault, "maintain", "--since", "yesterday")
    assert date.exit_code == 1 and "YYYY-MM-DD" in date.output


def test_only_runs_the_named_steps(vault) -> None:  # type: ignore[no-untyped-def]
    result = cli(vault, "maintain", "--only", "index", "--json")
    data = json.loads(result.stdout)
    assert list(data["counts"]) == ["index"]
    assert git(vault.root, "log", "-1", "--format=%s").strip() == "maintain: reindexed 1"
    assert not vault.card_path(SLUG).exists()


def test_hand_commands_and_check_conflicts(vault) -> None:  # type: ignore[no-untyped-def]
    card(
        vault,
        "npm-ci",
        "npm ci",
        "Always use `npm ci` in the Docker build.",
        tags="[npm]",
        created="2026-05-01",
    )
    never = "Never use `npm ci` in the Docker build."
    card(vault, "npm-install", "npm install", never, tags="[npm]", created="2026-05-02")
    commit_all(vault)
    checked = cli(vault, "check", "--json")
    conflicts = [f for f in json.loads(checked.stdout) if f["code"] == "conflict"]
    assert {f["path"] for f in conflicts} == {
        "memory/cards/npm-ci.md",
        "memory/cards/npm-install.md",
    }
    promoted = cli(vault, "promote", "utc-timestamps", "--rule", "Store timestamps as UTC.")
    assert promoted.exit_code == 0, promoted.output
    assert (
        "- Store timestamps as UTC. (memory/cards/utc-timestamps.md)"
        in vault.agents_md.read_text(encoding="utf-8")
    )
    assert cli(vault, "demote", "utc-timestamps").exit_code == 0
    assert "utc-timestamps.md" not in vault.agents_md.read_text(encoding="utf-8")
    archived = cli(vault, "archive", "npm-ci")
    assert archived.exit_code == 0 and (vault.archive_dir / "npm-ci.md").exists()
    assert git(vault.root, "log", "-1", "--format=%s").strip() == "archive: npm-ci"
    missing = cli(vault, "promote", "no-such-card")
    assert missing.exit_code == 1 and "no live card" in missing.output


def test_a_vault_outside_git_is_maintained_without_a_commit(tmp_path: Path) -> None:
    import shutil

    vault = new_vault(tmp_path / "v")
    card(
        vault, "utc-timestamps", "UTC Timestamps", "Store timestamps as UTC.", created="2026-05-01"
    )
    shutil.rmtree(vault.root / ".git")
    done = cli(vault, "maintain", "--only", "index", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["commit"] is None
    assert "UTC Timestamps" in vault.memory_md.read_text(encoding="utf-8")
    card(vault, "second", "Second Card", "Another card.", created="2026-05-02")
    review = cli(vault, "maintain", "--review", "--only", "index")
    assert review.exit_code == 1 and "git repository" in review.output
    assert "Second Card" not in vault.memory_md.read_text(encoding="utf-8")
