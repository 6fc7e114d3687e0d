"""Search shows its best answers with honest words, the same in the CLI, the MCP server and the
Python API: a real question whose best hit scores low gets that hit, marked weak ("no strong
match"); a query that shares no word with memory and is near nothing in meaning gets none
("no match")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from cardvault import open_vault
from cardvault.search.engine import Searcher, SearchOutcome
from cardvault.search.scoped import NO_MATCH, NO_STRONG_MATCH, search_vaults
from cardvault.vault.layout import open_vault_at
from tests.support.cli import cli_at, run_cli
from tests.support.mcp import connected, text_of

pytestmark = pytest.mark.slow

NOW = "2026-11-30T09:00"
#: The README tour's question: its answer shares one word ("POST") with it and is near it in
#: meaning only a little, so its own evidence is below the floor.
QUESTION = "why does the login POST get rejected"
ANSWER = "cortex-csrf-automation"
NONSENSE = "purple elephant quantum banjo recital"
CARDS = (
    ("Cortex CSRF Automation", "infrastructure", "cortex,csrf",
     "Cortex 3.1.8 wants the CSRF token as cookie AND header on every POST."),
    ("Docker buildx platform flag", "infrastructure", "docker",
     "Build arm64 images on an x86 laptop with docker buildx build --platform linux/arm64."),
    ("Postgres connection pooling", "infrastructure", "postgres",
     "Put pgbouncer in front of Postgres when the app opens more than 100 connections."),
)  # fmt: skip


@pytest.fixture
def vault(vault_path: Path) -> Path:
    """A new vault holding the tour's card and two others, indexed with the real model."""
    for topic, category, tags, body in CARDS:
        cli_at(vault_path, "new", topic, "-c", category, "-t", tags, "--body", body, now=NOW)
    cli_at(vault_path, "index", now=NOW)
    return vault_path


def test_the_api_returns_a_weak_best_hit_marked_and_nothing_for_nonsense(vault: Path) -> None:
    with open_vault(vault) as handle:
        hits = handle.search(QUESTION, k=3)
        assert (hits[0].slug, hits[0].weak) == (ANSWER, True), [(h.slug, h.score) for h in hits]
        found = handle.search_hits(QUESTION, k=3)
        assert found.verdict == NO_STRONG_MATCH
        for mode in ("hybrid", "semantic", "keyword"):
            assert handle.search(NONSENSE, k=3, mode=mode) == [], mode
        assert handle.search_hits(NONSENSE).verdict == NO_MATCH


def test_the_cli_shows_a_weak_best_hit_and_says_no_match_for_nonsense(vault: Path) -> None:
    result = run_cli(["--vault", str(vault), "search", QUESTION, "--json"])
    rows = json.loads(result.stdout)
    assert rows[0]["slug"] == ANSWER and rows[0]["weak"] is True, rows
    assert "no strong match" in result.stderr
    table = run_cli(["--vault", str(vault), "search", QUESTION], env={"COLUMNS": "200"})
    assert "Cortex CSRF Automation" in table.stdout and "weak" in table.stdout
    nonsense = run_cli(["--vault", str(vault), "search", NONSENSE, "--json"])
    assert (nonsense.exit_code, json.loads(nonsense.stdout)) == (0, [])
    assert "no match" in nonsense.stderr and "no strong match" not in nonsense.stderr
    retired = run_cli(["--vault", str(vault), "search", QUESTION, "--all", "--json"])
    assert json.loads(retired.stdout) == rows and "no longer needed" in retired.stderr


def test_the_mcp_tool_returns_a_weak_best_hit_marked_and_nothing_for_nonsense(
    vault: Path,
) -> None:
    async def scenario() -> tuple[dict, dict]:
        async with connected(vault) as client:
            question = await client.call_tool("search", {"query": QUESTION, "k": 3})
            nonsense = await client.call_tool("search", {"query": NONSENSE, "k": 3})
            return json.loads(text_of(question)), json.loads(text_of(nonsense))

    question, nonsense = anyio.run(scenario)
    first = question["results"][0]
    assert (first["slug"], first["weak"]) == (ANSWER, True), question
    assert NO_STRONG_MATCH in question["notices"]
    assert nonsense["results"] == [] and NO_MATCH in nonsense["notices"], nonsense


def test_a_search_that_misses_says_when_a_log_entry_holds_the_answer(vault: Path) -> None:
    """An entry with no lesson in it is searched only with --logs: a search that finds nothing
    strong among the cards says so, with the switch of the front end asked."""
    said = "Restarted the worker after the queue stalled; it came back in a minute."
    cli_at(vault, "log", said, "--title", "Worker restart", now=NOW)
    asked = ["--vault", str(vault), "search", "restart the worker", "--json"]
    missed = run_cli(asked)
    assert all(row["kind"] == "card" for row in json.loads(missed.stdout)), missed.stdout
    assert "1 log entry matches: search again with --logs" in missed.stderr, missed.stderr
    found = run_cli([*asked, "--logs"])
    assert json.loads(found.stdout)[0]["topic"] == "Worker restart"
    assert "log entry matches" not in found.stderr
    nonsense = run_cli(["--vault", str(vault), "search", NONSENSE, "--json"])
    assert "log entr" not in nonsense.stderr

    async def scenario() -> dict:
        async with connected(vault) as client:
            hit = await client.call_tool("search", {"query": "restart the worker"})
            return json.loads(text_of(hit))

    assert (
        "1 log entry matches: search again with include_logs=true" in anyio.run(scenario)["notices"]
    )


def test_the_logs_are_searched_again_only_when_the_hint_is_read(vault: Path) -> None:
    """A caller that takes the hits alone (the Python API's `search`) pays for one search."""
    said = "Restarted the worker after the queue stalled; it came back in a minute."
    cli_at(vault, "log", said, "--title", "Worker restart", now=NOW)
    asked: list[object] = []

    class Counted(Searcher):  # the real service, its searches counted
        def search(self, *args: Any, **kwargs: Any) -> SearchOutcome:
            asked.append(args)
            return super().search(*args, **kwargs)

    with Counted(open_vault_at(vault)) as searcher:
        found = search_vaults({"project": searcher}, "restart the worker")
        assert all(hit.kind == "card" for hit in found.results) and len(asked) == 1
        assert (found.in_logs, len(asked)) == (1, 2)
        assert (found.in_logs, len(asked)) == (1, 2)  # asked once
