"""What an agent just remembered is found at once — by the CLI, the Python API and MCP — before
any `maintain`, as a log entry naming its source; once a card cites the entry (maintenance
distilled it), the card answers instead of the entry."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from cardvault import open_vault
from cardvault.vault.daily import parse_log
from tests.support.cli import run_cli
from tests.support.mcp import NOW, connected

pytestmark = pytest.mark.slow

LESSON = "The staging cluster restarts every Sunday at 03:00 UTC, so long jobs must avoid it."
REWORDED = "when does the staging cluster reboot"
DAY = NOW[:10]


def source_of(root: Path, time: str = "09:00") -> str:
    """The citation of the day's entry at `time`, as the log names it: its heading's
    `<!-- id:... -->` (a random id each remember), read with the product's own parser."""
    path = root / "memory" / f"{DAY}.md"
    entries = [e for e in parse_log(path.read_text("utf-8"), path, ()) if e.time == time]
    assert len(entries) == 1 and entries[0].entry_id, entries
    return entries[0].ref


def remember(root: Path, text: str = LESSON) -> str:
    """Remember `text` at NOW; the new entry's citation (`memory/<day>.md#<id>`)."""
    result = run_cli(["--vault", str(root), "remember", text], env={"CARDVAULT_NOW": NOW})
    assert result.exit_code == 0, result.output
    return source_of(root)


def test_cli_finds_what_was_just_remembered(indexed_sample: Path) -> None:
    source = remember(indexed_sample)
    for query in (REWORDED, "staging cluster Sunday"):  # by meaning, and by its words
        result = run_cli(["--vault", str(indexed_sample), "search", query, "--json", "-k", "3"])
        assert result.exit_code == 0, result.output
        first = json.loads(result.stdout)[0]
        assert (first["kind"], first["source"], first["path"]) == (
            "log",
            source,
            f"memory/{DAY}.md",
        )
        assert first["entry"].startswith("09:00 ") and not first["weak"]
        assert "staging cluster restarts" in first["snippet"]


def test_keyword_search_finds_it_without_the_model(indexed_sample: Path) -> None:
    source = remember(indexed_sample)
    args = ["--vault", str(indexed_sample), "search", "staging cluster", "--mode", "keyword"]
    first = json.loads(run_cli([*args, "--json"]).stdout)[0]
    assert (first["kind"], first["source"]) == ("log", source)


def test_python_api_warm_handle_finds_it(indexed_sample: Path) -> None:
    with open_vault(indexed_sample, watch=True) as handle:
        before = handle.search(REWORDED, k=3)
        assert all(hit.kind != "log" or "staging cluster" not in hit.snippet for hit in before)
        source = remember(indexed_sample)
        outcome = handle.query(REWORDED, k=3)
        first = outcome.results[0]
        assert (first.kind, first.source, first.weak) == ("log", source, False)
        assert outcome.sync.embedded == 1  # the one new entry, nothing else


def test_a_distilled_entry_gives_way_to_its_card(indexed_sample: Path) -> None:
    source = remember(indexed_sample)
    card = indexed_sample / "memory" / "cards" / "staging-restarts.md"
    card.write_text(
        "---\ntopic: Staging cluster restarts\ncategory: infrastructure\ntags: [staging]\n"
        f"created: {DAY}\nupdated: {DAY}\nsources:\n  - {source}\n---\n{LESSON}\n",
        encoding="utf-8",
    )
    hits = open_vault(indexed_sample).search(REWORDED, k=5)
    assert hits[0].slug == "staging-restarts"
    assert all(hit.source != source for hit in hits)  # cited: no longer fresh
    logs = open_vault(indexed_sample).search(REWORDED, k=5, logs=True)
    assert any(hit.source == source for hit in logs)  # still there on request


def test_mcp_remember_then_search(indexed_sample: Path) -> None:
    async def scenario() -> None:
        async with connected(indexed_sample) as client:
            done = await client.call_tool("remember", {"text": LESSON})
            assert not done.is_error
            source = source_of(indexed_sample)
            found = await client.call_tool("search", {"query": REWORDED, "k": 3})
            first = found.structured_content["results"][0]
            assert (first["kind"], first["source"], first["weak"]) == ("log", source, False)
            pack = await client.call_tool("context", {"task": REWORDED, "budget": 800})
            assert source in pack.content[0].text

    anyio.run(scenario)


def test_context_task_includes_todays_entry(indexed_sample: Path) -> None:
    source = remember(indexed_sample)
    args = ["--vault", str(indexed_sample), "context", "--task", REWORDED, "-f", "json"]
    result = run_cli(args, env={"CARDVAULT_NOW": NOW})
    assert result.exit_code == 0, result.output
    pack = json.loads(result.stdout)
    logs = [row for row in pack["included"] if row["kind"] == "log"]
    assert [row["name"] for row in logs] == [source]
    assert "staging cluster restarts" in pack["text"]
