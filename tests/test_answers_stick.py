"""Answers stick (issue 20): `git revert` of a maintenance commit is read as an answer (that
archive, that promotion, that merge is not wanted) and the next `maintain` does not redo it;
review questions whose members were archived are closed with the reason shown, not dropped;
`review accept` of a question that would merge nothing is an error, never "accepted"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import run_cli, snapshot
from tests.support.writers import assert_vault_sound, git

NOW = "2026-06-01T09:00"
QUEUE = "memory/review.jsonl"


def cv(root: Path, *args: str, now: str = NOW) -> Any:
    return run_cli(["--vault", str(root), *args], env={"CARDVAULT_NOW": now})


def ok(root: Path, *args: str, now: str = NOW) -> str:
    result = cv(root, *args, now=now)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return str(result.output)


def person(root: Path, *args: str) -> str:
    return git(root, "-c", "user.name=Dana", "-c", "user.email=dana@example.com", *args)


def write_card(root: Path, slug: str, topic: str, body: str, extra: str = "") -> None:
    (root / "memory" / "cards" / f"{slug}.md").write_text(
        f"---\ntopic: {topic}\ncategory: workflow\ntags: [ops]\ncreated: 2025-01-02\n"
        f"updated: 2025-01-02\n{extra}---\n{body}\n",
        encoding="utf-8",
    )


def vault_with(tmp_path: Path, *cards: tuple[str, str, str, str]) -> Path:
    root = tmp_path / "vault"
    ok(tmp_path, "init", str(root))
    for slug, topic, body, extra in cards:
        write_card(root, slug, topic, body, extra)
    git(root, "add", "-A")
    person(root, "commit", "-qm", "cards by hand")
    return root


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def subjects_since(root: Path, sha: str) -> list[str]:
    return git(root, "log", "--format=%s", f"{sha}..HEAD").splitlines()


def queue(root: Path) -> list[dict[str, Any]]:
    path = root / QUEUE
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_a_reverted_archive_is_not_redone(tmp_path: Path) -> None:
    root = vault_with(tmp_path, ("old-runbook", "Old runbook", "Restart the queue first.", ""))
    ok(root, "maintain", "--only", "archive")
    assert (root / "memory/archive/old-runbook.md").exists()
    person(root, "revert", "--no-edit", "HEAD")
    reverted = snapshot(root)
    before = head(root)
    ok(root, "maintain", "--only", "archive")
    assert (root / "memory/cards/old-runbook.md").exists(), "the archive was redone"
    after = snapshot(root)
    assert {k for k in after if after[k] != reverted.get(k)} == {QUEUE}  # the answer, only
    (answer,) = queue(root)
    assert answer["kind"] == "archive" and answer["status"] == "rejected"
    assert answer["members"][0]["key"] == "memory/cards/old-runbook.md"
    assert answer["by"].startswith("revert ") and "archived old-runbook" in answer["reason"]
    assert subjects_since(root, before) == ["maintain: recorded reverts 1"]
    again = head(root)
    ok(root, "maintain", "--only", "archive")
    assert head(root) == again, "a second run changed something"
    assert_vault_sound(root)


def test_a_reverted_promotion_is_not_redone(tmp_path: Path) -> None:
    # a lesson the log told three times (a card citing no log entry is never promoted on its own)
    times = ("09:00", "10:00", "11:00")
    told = "".join(f"  - memory/2025-01-02.md#{t}\n" for t in times)
    root = vault_with(
        tmp_path,
        ("retry-flaky", "Retry flaky steps", "Retry a flaky step once, then fail.",
         f"seen: 3\nsources:\n{told}"),
    )  # fmt: skip
    entry = "\n## {} — Flaky step\nLesson: retry a flaky step once, then fail.\n"
    log = "# 2025-01-02\n" + "".join(entry.format(t) for t in times)
    (root / "memory/2025-01-02.md").write_text(log, encoding="utf-8")
    git(root, "add", "-A")
    person(root, "commit", "-qm", "the log")
    ok(root, "maintain", "--only", "promote", now="2025-01-03T09:00")
    card = (root / "memory/cards/retry-flaky.md").read_text(encoding="utf-8")
    assert "status: promoted" in card
    person(root, "revert", "--no-edit", "HEAD")
    agents = (root / "AGENTS.md").read_bytes()
    ok(root, "maintain", "--only", "promote", now="2025-01-03T09:00")
    card = (root / "memory/cards/retry-flaky.md").read_text(encoding="utf-8")
    assert "status: promoted" not in card and (root / "AGENTS.md").read_bytes() == agents
    assert [q["kind"] for q in queue(root)] == ["promote"]


def test_a_revert_of_something_else_is_no_answer(tmp_path: Path) -> None:
    """Only maintenance commits are read: a reverted hand edit records nothing."""
    root = vault_with(tmp_path, ("old-runbook", "Old runbook", "Restart the queue first.", ""))
    write_card(root, "old-runbook", "Old runbook", "Restart the queue first. Then the API.")
    person(root, "commit", "-qam", "hand edit")
    person(root, "revert", "--no-edit", "HEAD")
    ok(root, "maintain", "--only", "archive")
    assert (root / "memory/archive/old-runbook.md").exists()
    assert queue(root) == []


def duplicate_question(root: Path) -> str:
    """A pending duplicate question of the cards a-card and b-card, committed."""
    members = [
        {"key": f"memory/cards/{s}.md", "path": f"memory/cards/{s}.md", "text": s}
        for s in ("a-card", "b-card")
    ]
    item = {"id": "d00b1e", "kind": "duplicate", "members": members, "evidence": {},
            "asked": "2026-05-01", "status": "pending"}  # fmt: skip
    (root / QUEUE).write_text(json.dumps(item, sort_keys=True) + "\n", encoding="utf-8")
    git(root, "add", "-A")
    person(root, "commit", "-qm", "a question")
    return "d00b1e"


TWO_CARDS = (
    ("a-card", "Queue restarts", "Restart the worker queue before the API.", ""),
    ("b-card", "Worker restarts", "Restart the workers before the API server.", ""),
)


def test_a_question_whose_member_was_archived_is_closed_with_the_reason(tmp_path: Path) -> None:
    root = vault_with(tmp_path, *TWO_CARDS)
    item = duplicate_question(root)
    ok(root, "archive", "a-card")
    before = head(root)
    ok(root, "maintain", "--only", "index")
    (closed,) = queue(root)
    assert closed["id"] == item and closed["status"] == "rejected" and closed["by"] == "maintain"
    assert "memory/cards/a-card.md was archived (now memory/archive/a-card.md)" in closed["reason"]
    body = git(root, "log", "--format=%B", f"{before}..HEAD")
    assert f"review: closed {item}" in body, "the reason is not shown"
    listed = json.loads(ok(root, "review", "--json"))
    assert listed == []


LOG = "memory/2025-01-02.md"
LOGGED = "# 2025-01-02\n\n## 09:00 — Queue order <!-- id:0a0b0c -->\nLesson: restart the queue.\n"


@pytest.mark.parametrize(
    ("damaged", "damage"),
    [
        ("memory/cards/a-card.md", "---\ntopic: [unclosed\n---\nRestart the queue.\n"),
        (LOG, LOGGED + "A pasted \0 byte.\n"),
    ],
)
def test_a_question_whose_member_does_not_read_stays_pending(
    tmp_path: Path, damaged: str, damage: str
) -> None:
    """A member in a file the read skips (bad YAML, a NUL byte) is unknown, not gone."""
    root = vault_with(tmp_path, *TWO_CARDS)
    (root / LOG).write_text(LOGGED, encoding="utf-8")
    entry = {"key": f"{LOG}#0a0b0c", "path": LOG, "source": f"{LOG}#0a0b0c", "text": "restart"}
    card = {"key": "memory/cards/a-card.md", "path": "memory/cards/a-card.md", "text": "a"}
    item = {"id": "5a3e1e", "kind": "same-lesson", "members": [entry, card], "evidence": {},
            "asked": "2026-05-01", "status": "pending"}  # fmt: skip
    (root / QUEUE).write_text(json.dumps(item, sort_keys=True) + "\n", encoding="utf-8")
    (root / damaged).write_text(damage, encoding="utf-8")
    git(root, "add", "-A")
    person(root, "commit", "-qm", "a question, and a damaged file")
    before, files = head(root), snapshot(root)
    result = cv(root, "maintain", "--only", "index")
    assert result.exit_code == 0, result.output
    assert damaged in result.output, "the skipped file is not named"
    assert queue(root) == [item], "the pending question was closed"
    assert snapshot(root)[damaged] == files[damaged]
    assert "review: closed" not in git(root, "log", "--format=%B", f"{before}..HEAD")


def test_accepting_a_question_that_would_merge_nothing_is_an_error(tmp_path: Path) -> None:
    root = vault_with(tmp_path, *TWO_CARDS)
    item = duplicate_question(root)
    ok(root, "archive", "a-card")
    before, files = head(root), snapshot(root)
    result = cv(root, "review", "accept", item)
    assert result.exit_code != 0, result.output
    assert "merge nothing" in result.output and "archived" in result.output
    assert "accepted" not in result.output.replace("accepting", "")
    assert head(root) == before and snapshot(root) == files


@pytest.mark.slow
def test_a_reverted_merge_is_not_redone(tmp_path: Path, embedder: Any) -> None:
    from cardvault.vault.layout import open_vault_at
    from tests.support.maintain import run

    same = "Restart the worker queue before the API server, or jobs are lost."
    root = vault_with(
        tmp_path,
        ("queue-restart", "Restarting the queue", same, ""),
        ("queue-restart-order", "Restarting the queue", same, ""),
    )
    vault = open_vault_at(root)
    first = run(vault, embedder, today="2025-01-03", only=("merge",))
    if not first.changed:
        pytest.fail("the two identical cards were not merged: the test needs a merge to revert")
    person(root, "revert", "--no-edit", "HEAD")
    cards = sorted(p.name for p in (root / "memory/cards").glob("*.md"))
    run(vault, embedder, today="2025-01-03", only=("merge",))
    assert sorted(p.name for p in (root / "memory/cards").glob("*.md")) == cards
    assert [q["kind"] for q in queue(root)] == ["duplicate"]
