"""Use counted without churn (issue 22): reading a card for a task records a use in the clone's
local ledger at no commit; `maintain` folds the uses into the cards (`uses`, `last_used`) in
its one commit, archiving counts them, and two clones' uses add up through git."""

from __future__ import annotations

import multiprocessing
import subprocess
from pathlib import Path

import pytest

from cardvault.vault.layout import open_vault_at
from cardvault.vault.read import read_card
from cardvault.vault.uses import ledger_path, read_unfolded, record_uses
from tests.support.cli import git_log, run_cli
from tests.support.writers import git

OLD = "2025-01-10T09:00"
LATER = "2026-11-20T09:00"
TODAY = "2026-12-01T09:00"


def ok(root: Path, *args: str, now: str = TODAY, agent: str | None = None) -> str:
    env = {"CARDVAULT_NOW": now, **({"CARDVAULT_AGENT": agent} if agent else {})}
    result = run_cli(["--vault", str(root), *args], env=env)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return str(result.output)


def card(root: Path, slug: str, archived: bool = False) -> dict[str, object]:
    folder = "archive" if archived else "cards"
    return read_card(root / "memory" / folder / f"{slug}.md", root).meta


def two_old_cards(root: Path) -> None:
    """Two cards written long ago (over `archive.days`), never edited since."""
    ok(root, "new", "Deploy runbook", "-c", "workflow", "-t", "deploy",
       "--body", "Run make deploy from the release branch, never from main.", now=OLD)  # fmt: skip
    ok(root, "new", "Old printer quirks", "-c", "infrastructure", "-t", "printer",
       "--body", "The third-floor printer jams on duplex A3.", now=OLD)  # fmt: skip


@pytest.mark.slow
def test_a_card_context_packs_survives_maintain_while_an_unused_one_is_archived(
    vault_path: Path,
) -> None:
    two_old_cards(vault_path)
    commits = git_log(vault_path)
    for _ in range(3):
        pack = ok(vault_path, "context", "--task", "deploy from the release branch",
                  "--budget", "340", "--scope", "project", now=LATER)  # fmt: skip
        assert '<memory source="memory/cards/deploy-runbook.md">' in pack
        # over the budget: no use (MEMORY.md's table still links it)
        assert '<memory source="memory/cards/old-printer-quirks.md">' not in pack
    assert git_log(vault_path) == commits, "a use made a commit"
    assert git(vault_path, "status", "--porcelain") == ""
    assert len(ledger_path(open_vault_at(vault_path)).read_text().splitlines()) == 3

    out = ok(vault_path, "maintain")
    assert "archived" in out
    used = card(vault_path, "deploy-runbook")
    assert used["uses"] == 3 and str(used["last_used"]) == "2026-11-20"
    assert str(used["updated"]) == "2025-01-10"  # a read is no edit
    assert card(vault_path, "old-printer-quirks", archived=True)["status"] == "archived"
    assert not (vault_path / "memory/cards/old-printer-quirks.md").exists()
    assert len(git_log(vault_path)) == len(commits) + 1  # the one maintenance commit
    assert git(vault_path, "status", "--porcelain") == ""

    again = ok(vault_path, "maintain", "--only", "uses,archive")
    assert card(vault_path, "deploy-runbook")["uses"] == 3, again  # nothing counted twice
    assert len(git_log(vault_path)) == len(commits) + 1


@pytest.mark.slow
def test_a_card_packed_only_to_fill_the_budget_is_no_use(vault_path: Path) -> None:
    """With a task, a card the task's search did not find may fill the budget by its value,
    but it was not read for the task: no use recorded, so it can still be archived (filler
    counted as use would be packed again for its fresh use, and never archived)."""
    two_old_cards(vault_path)
    for _ in range(3):
        pack = ok(vault_path, "context", "--task", "deploy from the release branch",
                  "--budget", "2000", "--scope", "project", now=LATER)  # fmt: skip
        assert "memory/cards/old-printer-quirks.md" in pack  # room for it: it fills
    ledger = ledger_path(open_vault_at(vault_path)).read_text().splitlines()
    assert [line.split("\t")[1:] for line in ledger] == [["deploy-runbook", "context"]] * 3
    ok(vault_path, "maintain", "--only", "uses,archive")
    assert card(vault_path, "old-printer-quirks", archived=True)["status"] == "archived"
    assert card(vault_path, "deploy-runbook")["uses"] == 3
    ledger = ledger_path(open_vault_at(vault_path))
    before = ledger.read_text().count("\tdeploy-runbook\t")
    without_task = ok(vault_path, "context", "--budget", "2000", "--scope", "project")
    assert "memory/cards/deploy-runbook.md" in without_task  # no task: the pack is what is read
    assert ledger.read_text().count("\tdeploy-runbook\t") == before + 1


def test_archive_alone_counts_uses_not_yet_folded(vault_path: Path) -> None:
    """`maintain --only archive` keeps a card read since the last fold, without folding."""
    two_old_cards(vault_path)
    ok(vault_path, "show", "deploy-runbook", now=LATER, agent="claude")  # an agent's read
    ok(vault_path, "show", "old-printer-quirks", now=LATER)  # a person's look: no use
    ok(vault_path, "maintain", "--only", "archive")
    assert "uses" not in card(vault_path, "deploy-runbook")
    assert card(vault_path, "old-printer-quirks", archived=True)["status"] == "archived"
    ok(vault_path, "maintain", "--only", "uses")
    assert card(vault_path, "deploy-runbook")["uses"] == 1


def test_a_log_entry_citing_a_card_is_a_use(vault_path: Path) -> None:
    two_old_cards(vault_path)
    ok(vault_path, "log", "Deployed 4.2 following [[deploy-runbook]]; `[[not-a-link]]` is code.",
       now=LATER)  # fmt: skip
    ok(vault_path, "maintain", "--only", "uses")
    assert card(vault_path, "deploy-runbook")["uses"] == 1
    assert "uses" not in card(vault_path, "old-printer-quirks")


def clones(tmp_path: Path) -> tuple[Path, Path]:
    """A bare remote and two clones of one vault holding the two old cards."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    a, b = tmp_path / "a", tmp_path / "b"
    ok(tmp_path, "init", str(a))
    git(a, "remote", "add", "origin", str(remote))
    two_old_cards(a)
    ok(a, "sync")
    subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
    ok(b, "sync")  # sets up the merge drivers in this clone
    return a, b


def test_two_clones_uses_merge_without_counting_any_twice(tmp_path: Path) -> None:
    a, b = clones(tmp_path)
    for _ in range(2):
        ok(a, "context", "--budget", "2000", "--scope", "project", now="2026-11-20T09:00")
    for _ in range(3):
        ok(b, "show", "deploy-runbook", now="2026-11-25T09:00", agent="codex")
    ok(a, "maintain", "--only", "uses")  # both clones fold, and both commits touch the card
    ok(b, "maintain", "--only", "uses")
    assert card(a, "deploy-runbook")["uses"] == 2 and card(b, "deploy-runbook")["uses"] == 3
    ok(a, "sync")
    ok(b, "sync")  # merges a's fold into b's: the card merge driver, no conflict
    ok(a, "sync")
    for root in (a, b):
        merged = card(root, "deploy-runbook")
        assert merged["uses"] == 5, root
        assert str(merged["last_used"]) == "2026-11-25"
        assert card(root, "old-printer-quirks")["uses"] == 2  # only a's context packed it
        assert "<<<<<<<" not in (root / "memory/cards/deploy-runbook.md").read_text()
    for root in (a, b):  # the watermarks hold: folding again adds nothing
        ok(root, "maintain", "--only", "uses")
        assert card(root, "deploy-runbook")["uses"] == 5


def _record_many(root: str, worker: int) -> None:
    import datetime as dt

    vault = open_vault_at(Path(root))
    for n in range(200):
        record_uses(vault, [f"card-{worker}-{n}", "shared"], "read", dt.date(2026, 12, 1))


def test_many_processes_append_whole_lines(vault_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_record_many, args=(str(vault_path), w)) for w in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
        assert worker.exitcode == 0
    unfolded = read_unfolded(open_vault_at(vault_path))
    assert unfolded.uses["shared"].count == 6 * 200
    assert len(unfolded.uses) == 6 * 200 + 1
    assert all(u.count == 1 for name, u in unfolded.uses.items() if name != "shared")


@pytest.mark.slow
def test_an_agent_opening_a_search_hit_over_mcp_is_a_use(indexed_sample: Path) -> None:
    """The MCP server (a real subprocess): a search hit carries the card's age; reading it and
    packing context record uses in the ledger; the vault's history does not move."""
    import anyio

    from tests.support.mcp import connected

    before = git_log(indexed_sample)

    async def scenario() -> None:
        async with connected(indexed_sample) as client:
            query = "my containers keep getting terminated because they use too much RAM"
            found = await client.call_tool("search", {"query": query, "k": 3})
            hit = found.structured_content["results"][0]
            assert hit["slug"] == "kubernetes-oomkilled-memory-limits"
            assert hit["age"].startswith("updated ") and "stale" not in hit
            card = await client.call_tool("read", {"name": hit["path"]})
            assert card.structured_content["age"] == hit["age"]
            await client.call_tool("context", {"task": query, "budget": 600, "scope": "project"})

    anyio.run(scenario)
    lines = ledger_path(open_vault_at(indexed_sample)).read_text().splitlines()
    assert any(line.endswith("\tkubernetes-oomkilled-memory-limits\tread") for line in lines)
    assert any(line.endswith("\tkubernetes-oomkilled-memory-limits\tcontext") for line in lines)
    assert git_log(indexed_sample) == before
