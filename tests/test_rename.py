"""`cardvault rename SLUG NEW`: the card moves, every link follows, the old slug stays an alias,
the user's own text and the logs are reported rather than rewritten; refusals write nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cardvault.vault.card import parse_card
from tests.support.cli import git_log, run_cli, snapshot
from tests.support.maintain import git

NOW = {"CARDVAULT_NOW": "2026-11-30T09:15"}


def write_card(root: Path, rel: str, body: str, extra: str = "") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    slug = path.stem
    path.write_text(
        f"---\ntopic: {slug.replace('-', ' ').title()}\ncategory: tools\ntags: [x]\n"
        f"created: 2026-03-19\nupdated: 2026-03-19\n{extra}---\n{body}\n",
        encoding="utf-8",
    )


def commit_all(root: Path) -> None:
    from cardvault import history
    from cardvault.vault.layout import open_vault_at

    history.commit(open_vault_at(root), "cards by hand")


@pytest.fixture
def linked(vault_path: Path) -> Path:
    """A vault whose card `pg-pool` is named every way a vault names a card."""
    root = vault_path
    write_card(root, "memory/cards/db/pg-pool.md", "Use PgBouncer in transaction mode.")
    write_card(
        root,
        "memory/cards/deploys.md",
        "Before a deploy read [[pg-pool]], [[pg-pool|the pool card]] and [[pg-pool#Limits]];\n"
        "the path form is [[db/pg-pool.md]]. Not this one: [[pg-pool-tuning]].",
        extra="rule: check [[pg-pool]] first\nsources:\n- memory/cards/db/pg-pool.md\n",
    )
    write_card(root, "memory/cards/pg-pool-tuning.md", "Tune pool size to cores × 2.")
    from cardvault.vault.sections import set_section

    agents = root / "AGENTS.md"
    text = agents.read_text(encoding="utf-8") + "\nMy own note: see memory/cards/db/pg-pool.md.\n"
    text = set_section(text, "rules", "- Pool connections (memory/cards/db/pg-pool.md)")
    agents.write_text(text, encoding="utf-8")
    memory = root / "MEMORY.md"
    text = memory.read_text(encoding="utf-8") + "\nHand-written: [[pg-pool]] matters.\n"
    table = "| category | cards | main topics |\n|---|---|---|\n| tools | 3 | [[pg-pool]] |"
    memory.write_text(set_section(text, "categories", table), encoding="utf-8")
    (root / "memory" / "2026-11-02.md").write_text(
        "# 2026-11-02\n\n## 10:00 — Pool\nLesson: the pool saturates.\n→ card: pg-pool\n",
        encoding="utf-8",
    )
    commit_all(root)
    return root


def rename(root: Path, *args: str) -> Any:
    result = run_cli(["--vault", str(root), "rename", *args, "--json"], env=NOW)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_rename_moves_the_card_and_every_link_follows(linked: Path) -> None:
    commits = len(git_log(linked))
    logs_before = (linked / "memory" / "2026-11-02.md").read_bytes()
    outcome = rename(linked, "pg-pool", "pgbouncer-pool")
    assert len(git_log(linked)) == commits + 1
    assert git_log(linked)[0] == "rename: pg-pool → pgbouncer-pool"
    assert outcome["path"] == "memory/cards/db/pgbouncer-pool.md"
    assert not (linked / "memory/cards/db/pg-pool.md").exists()
    moved = linked / "memory/cards/db/pgbouncer-pool.md"
    assert parse_card(moved.read_text(encoding="utf-8"), moved).meta["aliases"] == ["pg-pool"]

    deploys = (linked / "memory/cards/deploys.md").read_text(encoding="utf-8")
    for expected in (
        "read [[pgbouncer-pool]], [[pgbouncer-pool|the pool card]] and [[pgbouncer-pool#Limits]]",
        "the path form is [[pgbouncer-pool]]",
        "Not this one: [[pg-pool-tuning]]",
        "rule: check [[pgbouncer-pool]] first",
        "- memory/cards/db/pgbouncer-pool.md",
    ):
        assert expected in deploys, expected
    agents = (linked / "AGENTS.md").read_text(encoding="utf-8")
    assert "- Pool connections (memory/cards/db/pgbouncer-pool.md)" in agents
    assert "My own note: see memory/cards/db/pg-pool.md." in agents  # the user's text
    memory = (linked / "MEMORY.md").read_text(encoding="utf-8")
    # The table is the cards' own, in the rename's commit: the renamed card under its new path.
    assert "](memory/cards/db/pgbouncer-pool.md)" in memory
    assert "pg-pool.md" not in memory
    assert "MEMORY.md" in git(linked, "show", "--name-only", "--format=", "HEAD")
    assert "Hand-written: [[pg-pool]] matters." in memory
    assert (linked / "memory" / "2026-11-02.md").read_bytes() == logs_before  # append-only
    left = outcome["left"]
    assert any(place.startswith("AGENTS.md:") for place in left)
    assert any(place.startswith("MEMORY.md:") for place in left)
    assert "memory/2026-11-02.md:5" in left
    check = run_cli(["--vault", str(linked), "check", "--json"])
    assert [f for f in json.loads(check.stdout) if f["code"] == "broken-link"] == []


def test_rename_by_alias_and_to_its_own_alias(linked: Path) -> None:
    rename(linked, "pg-pool", "pgbouncer-pool")
    back = rename(linked, "pg-pool", "pg-pool")  # pg-pool is now its alias: the name is free
    assert back["path"] == "memory/cards/db/pg-pool.md"
    card = linked / "memory/cards/db/pg-pool.md"
    assert parse_card(card.read_text(encoding="utf-8"), card).meta["aliases"] == ["pgbouncer-pool"]
    assert "read [[pg-pool]]" in (linked / "memory/cards/deploys.md").read_text()


def test_an_archived_card_can_be_renamed(vault_path: Path) -> None:
    write_card(vault_path, "memory/archive/old-trick.md", "An old trick.", "status: archived\n")
    write_card(vault_path, "memory/cards/now.md", "Once we used [[old-trick]].")
    commit_all(vault_path)
    rename(vault_path, "old-trick", "older-trick")
    assert (vault_path / "memory/archive/older-trick.md").exists()
    assert "[[older-trick]]" in (vault_path / "memory/cards/now.md").read_text()


@pytest.mark.parametrize(
    ("new", "message"),
    [
        ("pg-pool-tuning", "'pg-pool-tuning' is already the slug of card pg-pool-tuning"),
        ("Bad Name", "'Bad Name' is not a slug: lowercase letters, digits and hyphens"),
        ("../escape", "is not a slug"),
        ("x" * 101, "is not a slug"),
        ("ghp-ab3de5fg7hj9kl1mn3pq5rs7tu9vw1xy3za5", "looks like a secret"),
        ("pg-pool", "already has that slug"),
    ],
)
def test_refusals_are_one_line_and_write_nothing(linked: Path, new: str, message: str) -> None:
    before, commits = snapshot(linked), git_log(linked)
    result = run_cli(["--vault", str(linked), "rename", "pg-pool", new], env=NOW)
    assert result.exit_code == 1
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert snapshot(linked) == before and git_log(linked) == commits


def test_a_name_that_is_another_cards_alias_is_refused(linked: Path) -> None:
    write_card(linked, "memory/cards/pooling.md", "Pools.", "aliases:\n- connection-pool\n")
    commit_all(linked)
    result = run_cli(["--vault", str(linked), "rename", "pg-pool", "connection-pool"])
    assert result.exit_code == 1
    assert "'connection-pool' is already an alias of card pooling" in result.stderr


def test_renaming_a_missing_card_is_an_error(vault_path: Path) -> None:
    result = run_cli(["--vault", str(vault_path), "rename", "nothing-here", "something"])
    assert result.exit_code == 1 and "no card with slug or alias 'nothing-here'" in result.stderr


def test_a_card_that_cannot_be_read_is_named_not_skipped_in_silence(linked: Path) -> None:
    broken = linked / "memory/cards/broken.md"
    broken.write_text("---\ntopic: [unclosed\n---\nSee [[pg-pool]].\n", encoding="utf-8")
    commit_all(linked)
    result = run_cli(["--vault", str(linked), "rename", "pg-pool", "pgbouncer-pool"], env=NOW)
    assert result.exit_code == 0, result.output
    said = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert "memory/cards/broken.md:" in said and "not read" in said and "pg-pool" in said
    assert broken.read_text(encoding="utf-8").endswith("See [[pg-pool]].\n")  # left as written
