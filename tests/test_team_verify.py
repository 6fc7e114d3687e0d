"""A team shares a vault that lives in its code repository (issue 22's verify, as a team runs
it): two clones of one project through a bare remote, each running `verify` on its own day;
`sync` must bring their marks and checks together without a conflict a person has to resolve."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cardvault.vault.decisions import read_queue
from cardvault.vault.read import read_card
from tests.support.cli import cli_at
from tests.support.writers import git

WRITTEN = "2026-11-01T09:00"
MONDAY = "2026-12-01T09:00"
TUESDAY = "2026-12-02T09:00"


def cli(root: Path, *args: str, now: str = MONDAY, code: int | None = 0) -> str:
    return cli_at(root, *args, now=now, code=code)


def commit_all(top: Path, message: str) -> None:
    git(top, "add", "-A")
    git(top, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", message)


def team(tmp_path: Path) -> tuple[Path, Path]:
    """Two clones (their vaults in `memory-vault/`) of a project holding `src/app.py` and
    `src/jobs.py`, with a card citing lines of the first and a card naming the second."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    a = tmp_path / "a"
    (a / "src").mkdir(parents=True)
    (a / "src/app.py").write_text("def load():\n    return 1\n\n# end\n")
    (a / "src/jobs.py").write_text("def jobs():\n    pass\n")
    git(tmp_path, "init", "-q", "-b", "main", str(a))
    commit_all(a, "code")
    git(a, "remote", "add", "origin", str(remote))
    git(a, "push", "-q", "-u", "origin", "main")  # the code is the team's: pushed with git
    cli(a, "init", str(a / "memory-vault"), now=WRITTEN)
    vault_a = a / "memory-vault"
    cli(vault_a, "new", "App loader", "-c", "workflow", "--body", "The loader is "
        "`src/app.py:1-2`.", now=WRITTEN)  # fmt: skip
    cli(vault_a, "new", "Jobs", "-c", "workflow", "--body", "Jobs live in `src/jobs.py`.",
        now=WRITTEN)  # fmt: skip
    cli(vault_a, "sync", now=WRITTEN)
    b = tmp_path / "b"
    subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
    cli(b / "memory-vault", "sync", now=WRITTEN)  # sets up the merge drivers in this clone
    return vault_a, b / "memory-vault"


def card_text(vault: Path, slug: str) -> str:
    return (vault / "memory/cards" / f"{slug}.md").read_text(encoding="utf-8")


def test_two_clones_verifying_on_different_days_sync_without_a_conflict(tmp_path: Path) -> None:
    """Both clones find the same card stale and record the same card's check, a day apart:
    the merged card keeps the day the mark was first found and the latest check, no markers."""
    a, b = team(tmp_path)
    git(a.parent, "rm", "-q", "src/jobs.py")
    commit_all(a.parent, "code: jobs moved out")
    git(a.parent, "push", "-q", "origin", "main")
    cli(b, "sync", now=MONDAY)  # b has the code change too
    cli(a, "verify", now=MONDAY, code=1)  # exit 1: a card is stale
    cli(b, "verify", now=TUESDAY, code=1)
    cli(a, "sync", now=MONDAY)
    cli(b, "sync", now=TUESDAY)  # merges a's marks and checks into b's: no conflict
    cli(a, "sync", now=TUESDAY)
    for slug in ("jobs", "app-loader"):
        assert card_text(a, slug) == card_text(b, slug), slug
        assert "<<<<<<<" not in card_text(a, slug)
    jobs = read_card(a / "memory/cards/jobs.md", a).meta
    assert str(jobs["stale"]["date"]) == "2026-12-01"  # first found on Monday, by a
    loader = read_card(a / "memory/cards/app-loader.md", a).meta
    assert str(loader["checked"]["date"]) == "2026-12-02"  # b's check, the later one
    assert "stale" not in loader
    assert cli(a, "verify", "--json", now=TUESDAY, code=1) == cli(
        b, "verify", "--json", now=TUESDAY, code=1
    ).replace(str(b.parent), str(a.parent))  # the clones agree, and neither rewrites a card
    assert git(a.parent, "status", "--porcelain") == ""


def pull_rebase(top: Path) -> None:
    git(top, "-c", "user.name=t", "-c", "user.email=t@e", "pull", "-q", "--rebase", "origin",
        "main")  # fmt: skip


def test_a_check_at_a_commit_rebased_away_does_not_flip_the_mark_between_clones(
    tmp_path: Path,
) -> None:
    """a records a card's check at a code commit of its own, then `git pull --rebase` gives that
    commit a new id before it is pushed: b never has the commit the card names. The cited lines
    then change; a (which still holds the old commit) marks the card, and b, unable to compare,
    must keep the mark rather than clear it, or the two clones rewrite it run after run."""
    a, b = team(tmp_path)
    cli(b, "new", "Note b", "-c", "workflow", "--body", "b was here.", now=WRITTEN)
    cli(b, "sync", now=WRITTEN)
    (a.parent / "src/other.py").write_text("x = 1\n")
    commit_all(a.parent, "code: other")
    cli(a, "verify", now=MONDAY)  # checked at "code: other", not yet pushed
    named = read_card(a / "memory/cards/app-loader.md", a).meta["checked"]["commit"]
    pull_rebase(a.parent)  # "code: other" gets a new id; the card still names the old one
    git(a.parent, "push", "-q", "origin", "main")
    cli(b, "sync", now=MONDAY)
    missing = subprocess.run(["git", "-C", str(b), "cat-file", "-e", f"{named}^{{commit}}"])
    assert missing.returncode != 0  # b has no such commit
    app = b.parent / "src/app.py"
    app.write_text(app.read_text().replace("def load", "def load_all"))  # a cited line
    commit_all(b.parent, "rename load")
    git(b.parent, "push", "-q", "origin", "main")
    pull_rebase(a.parent)

    cli(a, "verify", now=MONDAY, code=1)  # a still holds the old commit: the lines changed
    cli(a, "sync", now=MONDAY)
    cli(b, "sync", now=MONDAY)
    said = cli(b, "verify", now=TUESDAY, code=1)  # b cannot compare: the mark stays
    assert f"this clone has no commit {named}" in said
    assert "stale" in read_card(b / "memory/cards/app-loader.md", b).meta
    subjects = git(a.parent, "log", "--format=%s")
    for _ in range(2):  # run after run, neither clone rewrites the card
        cli(b, "sync", now=TUESDAY)
        cli(a, "sync", now=TUESDAY)
        cli(a, "verify", now=TUESDAY, code=1)
        cli(a, "sync", now=TUESDAY)
        cli(b, "sync", now=TUESDAY)
        cli(b, "verify", now=TUESDAY, code=1)
    cli(b, "sync", now=TUESDAY)
    cli(a, "sync", now=TUESDAY)
    assert git(a.parent, "log", "--format=%s") == subjects


def test_a_card_removed_on_one_clone_and_only_counted_or_checked_on_the_other_stays_removed(
    tmp_path: Path,
) -> None:
    """a forgets a card while b's routine runs folded its uses and recorded its check (no one
    edited it): the removal wins, with no conflict. An edit of a removed card's text by a
    person on the other clone still stops the sync, for that person to decide."""
    a, b = team(tmp_path)
    cli(b, "context", "--budget", "2000", "--scope", "project", now=MONDAY)  # packs both cards
    cli(b, "maintain", "--only", "uses", now=MONDAY)
    cli(b, "verify", now=MONDAY)
    assert "checked" in read_card(b / "memory/cards/app-loader.md", b).meta
    cli(a, "forget", "App loader", "--yes", now=MONDAY)
    cli(a, "sync", now=MONDAY)
    cli(b, "sync", now=MONDAY)  # b's bookkeeping of the card gives way to a's removal
    cli(a, "sync", now=MONDAY)
    for vault in (a, b):
        assert not (vault / "memory/cards/app-loader.md").exists()
        assert (vault / "memory/cards/jobs.md").exists()
    assert read_card(a / "memory/cards/jobs.md", a).meta["uses"] == 1  # b's other fold arrived

    jobs = b / "memory/cards/jobs.md"
    jobs.write_text(jobs.read_text().replace("Jobs live", "Nightly jobs live"))
    commit_all(b.parent, "a person's edit")
    cli(a, "forget", "Jobs", "--yes", now=TUESDAY)
    cli(a, "sync", now=TUESDAY)
    said = cli(b, "sync", now=TUESDAY, code=1)
    assert "memory/cards/jobs.md" in said and jobs.exists()


def test_a_still_right_answer_on_one_clone_and_a_new_reason_on_the_other_merge(
    tmp_path: Path,
) -> None:
    """a answers a card's stale question "still right" (the mark goes) while b finds the card
    stale for one more reason: the sync keeps b's mark, and the next verify leaves out the
    reason a's answer dismissed and asks about the new one."""
    a, b = team(tmp_path)
    (a.parent / "src/cron.py").write_text("x = 1\n")
    commit_all(a.parent, "cron")
    git(a.parent, "push", "-q", "origin", "main")
    body = "Jobs run from `src/jobs.py`, on a timer set in `src/cron.py`."
    cli(a, "new", "Cron jobs", "-c", "workflow", "--body", body, now=WRITTEN)
    cli(a, "sync", now=WRITTEN)
    git(a.parent, "rm", "-q", "src/jobs.py")
    commit_all(a.parent, "drop the jobs")
    git(a.parent, "push", "-q", "origin", "main")
    cli(a, "verify", code=1)
    cli(a, "sync")
    cli(b, "sync")
    [question] = [q["id"] for q in json.loads(cli(a, "review", "--json"))
                  if q["members"][0]["key"] == "memory/cards/cron-jobs.md"]  # fmt: skip
    cli(a, "review", "reject", question)  # still right, on a
    git(b.parent, "rm", "-q", "src/cron.py")  # and on b the timer goes too
    commit_all(b.parent, "drop the timer")
    git(b.parent, "push", "-q", "origin", "main")
    cli(b, "verify", code=1)
    cli(b, "sync")
    cli(a, "sync")  # a's removed mark and b's new one: no conflict, b's mark kept
    mark = read_card(a / "memory/cards/cron-jobs.md", a).meta["stale"]
    assert mark["reason"] == "`src/cron.py` no longer exists; `src/jobs.py` no longer exists"
    # b's verify closed the question a answered (its card was stale for other reasons there):
    # the person's answer outweighs that closing, on the day they both happened
    [answer] = [item for item in read_queue(a) if item.id == question]
    assert (answer.status, answer.by) == ("rejected", "person")
    cli(a, "verify", code=1)
    mark = read_card(a / "memory/cards/cron-jobs.md", a).meta["stale"]
    assert mark["reason"] == "`src/cron.py` no longer exists"  # the dismissed reason left out
    asked = [q["evidence"]["reasons"] for q in json.loads(cli(a, "review", "--json"))
             if q["members"][0]["key"] == "memory/cards/cron-jobs.md"]  # fmt: skip
    assert asked == [["`src/cron.py` no longer exists"]]
