"""Finding things as users and agents do: a fresh vault edited by hand, by git and by the
CLI, searched through the real CLI (cold, and warm through a kept handle), on notes written
for these tests alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.search import write_card


def _search(root: Path, *args: str) -> tuple[list[dict[str, object]], str]:
    result = run_cli(["--vault", str(root), "search", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), result.stderr


@pytest.mark.slow
def test_every_search_names_the_cards_it_cannot_read(vault_path: Path) -> None:
    """A card that does not parse is skipped WITH a notice naming the file, on every search —
    not only on the one sync that read it (r5-user found search silent about them)."""
    write_card(vault_path, "nginx-timeouts", "Nginx timeouts", "Set proxy_read_timeout 300s.")
    cards = vault_path / "memory" / "cards"
    (cards / "no-front.md").write_text("nginx websocket upstream drops after 60s.\n")
    (cards / "bad-yaml.md").write_text("---\ntopic: Kafka\ncategory: [oops\n---\nKafka lag.\n")
    for _ in range(2):  # the first search reads the files, the second finds them unchanged
        _, stderr = _search(vault_path, "nginx websocket", "--mode", "keyword")
        assert "memory/cards/no-front.md:1" in stderr and "no frontmatter" in stderr
        assert "memory/cards/bad-yaml.md:" in stderr and "invalid YAML" in stderr
    _, stderr = _search(vault_path, "nginx websocket")  # hybrid too
    assert "memory/cards/no-front.md" in stderr
    (cards / "no-front.md").unlink()
    (cards / "bad-yaml.md").write_text(
        "---\ntopic: Kafka\ncategory: tools\ntags: [kafka]\ncreated: 2026-03-19\n"
        "updated: 2026-03-19\n---\nKafka lag.\n"
    )
    hits, stderr = _search(vault_path, "kafka lag", "--mode", "keyword")
    assert "skipped" not in stderr and hits[0]["slug"] == "bad-yaml"


@pytest.mark.slow
def test_a_warm_handle_names_the_cards_it_cannot_read_on_every_query(vault_path: Path) -> None:
    from cardvault import open_vault

    write_card(vault_path, "nginx-timeouts", "Nginx timeouts", "Set proxy_read_timeout 300s.")
    (vault_path / "memory" / "cards" / "no-front.md").write_text("nginx upstream drops.\n")
    with open_vault(vault_path, watch=True) as warm:
        for _ in range(3):
            found = warm.search_hits("nginx", mode="keyword")
            assert any("memory/cards/no-front.md:1" in n for n in found.notices), found.notices


@pytest.mark.parametrize(
    "pasted",
    [
        "--- FAIL: TestParseConfig (0.00s)",
        "-bash: psql: command not found",
        "--> src/config.rs:14:5",
    ],
)
def test_a_pasted_error_that_starts_with_a_dash_is_the_query(vault_path: Path, pasted: str) -> None:
    """Agents paste error lines as they come: Go's `--- FAIL`, bash's `-bash:`, rustc's `-->`.
    Such a line holds a space, so it is never an option: it is searched, wherever it stands
    among the options (a value of an option that takes one is left alone)."""
    write_card(
        vault_path, "go-test-parse-config", "TestParseConfig fails on CI",
        "--- FAIL: TestParseConfig (0.00s) on CI means psql is missing: -bash: psql: command "
        "not found. The config loader in src/config.rs:14:5 shells out to psql.",
    )  # fmt: skip
    for argv in ([pasted, "--mode", "keyword"], ["--mode", "keyword", pasted, "-k", "3"]):
        hits, _ = _search(vault_path, *argv)
        assert hits and hits[0]["slug"] == "go-test-parse-config", argv
    hits, _ = _search(vault_path, "psql", "--mode", "keyword", "--tag", "-odd tag")
    assert hits == []  # "-odd tag" is the tag asked for, not the query
    typo = run_cli(["--vault", str(vault_path), "search", "psql", "--limt", "3"])
    assert typo.exit_code == 2 and "No such option: --limt" in typo.output


def test_what_an_agent_writes_may_start_with_a_dash_and_is_found_next(vault_path: Path) -> None:
    """`remember` an error line as pasted, `log` a Markdown bullet list: both are written (no
    "No such option") and the very next search finds them."""
    failing = "--- FAIL: TestInvoiceTotals (0.02s) means the fixture rates file is stale"
    assert run_cli(["--vault", str(vault_path), "remember", failing]).exit_code == 0
    bullets = "- deployed 2.3.1 to staging\n- migration 0042 took 12 minutes"
    result = run_cli(["--vault", str(vault_path), "log", bullets, "--title", "Staging deploy"])
    assert result.exit_code == 0, result.output
    hits, _ = _search(vault_path, "TestInvoiceTotals", "--mode", "keyword")
    assert hits and hits[0]["kind"] == "log" and "TestInvoiceTotals" in str(hits[0]["snippet"])
    hits, _ = _search(vault_path, "migration 0042", "--mode", "keyword", "--logs")
    assert hits and hits[0]["entry"].endswith("Staging deploy")  # type: ignore[union-attr]


def test_a_query_of_stop_words_alone_is_no_match(vault_path: Path) -> None:
    """A hit that holds every word of the query is never weak — but a query of stop words
    alone ("the") is held by nearly every card: that is no evidence, so such a query is "no
    match" (while a content word the card holds still counts)."""
    for slug, body in [
        ("nginx-timeouts", "Raise the proxy_read_timeout for the websocket upstream."),
        ("redis-eviction", "The sessions cluster must use noeviction; it is the rule."),
        ("kafka-lag", "Restart the fraud scorer when the lag is above 50000."),
    ]:
        write_card(vault_path, slug, slug.replace("-", " ").title(), body)
    for query in ("the", "The"):
        result = run_cli(["--vault", str(vault_path), "search", query, "--mode", "keyword"])
        assert result.exit_code == 0 and json.loads(result.stdout) == [], (query, result.stdout)
        assert "no match" in result.stderr
    hits, _ = _search(vault_path, "the websocket", "--mode", "keyword")
    assert [hit["slug"] for hit in hits] == ["nginx-timeouts"]


@pytest.mark.parametrize("query", ["", "   ", "!!!???", "\n"])
def test_a_query_without_a_word_is_an_error_not_weak_noise(vault_path: Path, query: str) -> None:
    write_card(vault_path, "nginx-timeouts", "Nginx timeouts", "Set proxy_read_timeout 300s.")
    result = run_cli(["--vault", str(vault_path), "search", query, "--all", "--json"])
    assert result.exit_code == 1
    said = json.loads(result.stdout)  # the failure object every --json command gives
    assert said["ok"] is False and said["messages"][0]["level"] == "error"
    assert "holds no word to search for" in result.stderr or "query is empty" in result.stderr


@pytest.mark.slow
def test_the_mcp_read_tool_opens_a_log_hit_by_its_slug_or_source(vault_path: Path) -> None:
    """An agent reads a hit by what the hit names: a log hit's `slug` ("2026-11-30#3f9a2c")
    and `source` ("memory/2026-11-30.md#3f9a2c") open that day's log, as its `path` does."""
    import anyio

    from tests.support.mcp import NOW, connected

    lesson = "The quokka exporter must run before the marmalade job."
    result = run_cli(["--vault", str(vault_path), "remember", lesson], env={"CARDVAULT_NOW": NOW})
    assert result.exit_code == 0, result.output

    async def scenario() -> None:
        async with connected(vault_path) as client:
            found = await client.call_tool("search", {"query": "quokka", "mode": "keyword"})
            hit = json.loads(found.content[0].text)["results"][0]
            assert hit["kind"] == "log"
            for name in (hit["path"], hit["slug"], hit["source"]):
                read = await client.call_tool("read", {"name": name})
                assert not read.is_error, (name, read.content[0].text)
                day = json.loads(read.content[0].text)
                assert day["kind"] == "log" and day["path"] == hit["path"], name
                assert lesson in day["text"]

    anyio.run(scenario)
