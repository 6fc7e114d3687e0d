"""A first hybrid search answers from what is ready: it embeds at most a budget of passages
(search/embed_sync.py), finds the rest by keyword, says how many documents are still to embed,
and later searches, or `cardvault index`, go on where it stopped. Real model, in-process CLI;
the budget is made small so the backlog is a few dozen cards."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from cardvault import history
from cardvault.vault.layout import open_vault_at
from tests.support.cli import run_cli

pytestmark = pytest.mark.slow

CARDS = 60
BUDGET = 16
TOPICS = ("Postgres vacuum", "Redis eviction", "Kafka lag", "Nginx buffers", "Docker layers")


def vectors(root: Path) -> int:
    with sqlite3.connect(root / ".cardvault" / "search.sqlite") as db:
        return int(db.execute("SELECT count(*) FROM vectors").fetchone()[0])


def search(root: Path, query: str) -> tuple[list[str], str]:
    result = run_cli(["--vault", str(root), "search", query, "--all", "--json"])
    assert result.exit_code == 0, result.output
    return [hit["slug"] for hit in json.loads(result.stdout)], result.stderr


def left_to_embed(said: str) -> int | None:
    found = re.search(r"([\d,]+) documents? still to embed", said)
    return int(found.group(1).replace(",", "")) if found else None


def test_a_first_hybrid_search_answers_before_the_backlog_is_embedded(
    vault_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("cardvault.search.engine.QUERY_BUDGET", BUDGET)
    cards = vault_path / "memory" / "cards"
    for number in range(CARDS):
        topic = f"{TOPICS[number % len(TOPICS)]} {number}"
        body = f"Notes on {topic.lower()}: check the settings before a deploy."
        if number == CARDS - 1:
            body += " The zanzibarquux flag turns it off."
        (cards / f"card-{number}.md").write_text(
            f"---\ntopic: {topic}\ncategory: tools\ntags: [ops]\ncreated: 2026-01-01\n"
            f"updated: 2026-01-01\n---\n{body}\n",
            encoding="utf-8",
        )
    history.commit(open_vault_at(vault_path), "cards by hand")

    # the CLI's first index embeds one budget (showing progress), its query one more
    found, said = search(vault_path, "what does the zanzibarquux flag do")
    assert found[0] == f"card-{CARDS - 1}"  # by keyword, embedded or not
    assert vectors(vault_path) == 2 * BUDGET
    assert left_to_embed(said) == CARDS - 2 * BUDGET, said

    found, said = search(vault_path, "redis eviction")
    assert vectors(vault_path) == 3 * BUDGET  # the second search went on
    assert left_to_embed(said) == CARDS - 3 * BUDGET, said
    assert found and found[0].startswith("card-")

    done = run_cli(["--vault", str(vault_path), "index"])
    assert done.exit_code == 0, done.output
    assert vectors(vault_path) == CARDS
    found, said = search(vault_path, "redis eviction")
    assert left_to_embed(said) is None, said
