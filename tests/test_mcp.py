"""`cardvault mcp` as a real subprocess, driven by the MCP SDK's own stdio client."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from cardvault.context.pack import PREAMBLE
from cardvault.search.embedder import Embedder
from cardvault.vault.tokens import count_tokens
from tests.support.cli import git_log
from tests.support.mcp import NOW, connected, mapped_files, server_pids, text_of

pytestmark = pytest.mark.slow
TODAY_LOG = f"memory/{NOW[:10]}.md"
AWS_KEY = "AKIAIOSFODNN7EXAMPLF"


def _run(coroutine, *args):  # type: ignore[no-untyped-def]
    return anyio.run(coroutine, *args)


def test_it_lists_its_tools_and_resources(indexed_sample: Path) -> None:
    async def scenario() -> None:
        async with connected(indexed_sample) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == {
                "search", "read", "context", "remember", "log", "new_card",
                "review_pending", "review_answer",
            }  # fmt: skip
            for tool in tools.values():
                assert len(tool.description or "") > 200 and "Returns" in (tool.description or "")
            assert tools["search"].input_schema["required"] == ["query"]
            assert tools["search"].annotations.read_only_hint is True
            assert tools["remember"].annotations.read_only_hint is False
            assert "Categories: system, human" in (tools["new_card"].description or "")
            listed = {str(r.uri) for r in (await client.list_resources()).resources}
            cards = {p.stem for p in (indexed_sample / "memory" / "cards").glob("*.md")}
            assert listed == {"cardvault://memory", "cardvault://rules"} | {
                f"cardvault://cards/{slug}" for slug in cards
            }
            templates = (await client.list_resource_templates()).resource_templates
            assert {t.uri_template for t in templates} == {
                "cardvault://cards/{slug}", "cardvault://logs/{date}",
            }  # fmt: skip
            # each file's exact text, quoted as stored memory (a card may be written to steer)
            for uri, rel in (
                ("cardvault://memory", "MEMORY.md"),
                (
                    "cardvault://cards/docker-buildx-platform-flag",
                    cards_rel("docker-buildx-platform-flag"),
                ),
                ("cardvault://logs/2026-11-02", "memory/2026-11-02.md"),
            ):
                text = (await client.read_resource(uri)).contents[0].text
                assert text == (
                    f'{PREAMBLE}\n\n<memory source="{rel}">\n'
                    f"{(indexed_sample / rel).read_text()}\n</memory>\n"
                ), uri
            rules = (await client.read_resource("cardvault://rules")).contents[0].text
            assert "Never commit .env files" in rules

    _run(scenario)


def cards_rel(slug: str) -> str:
    return f"memory/cards/{slug}.md"


def test_search_finds_a_paraphrased_card_and_read_returns_it(indexed_sample: Path) -> None:
    async def scenario() -> None:
        async with connected(indexed_sample) as client:
            query = "my containers keep getting terminated because they use too much RAM"
            found = await client.call_tool("search", {"query": query, "k": 3})
            assert not found.is_error
            hits = found.structured_content["results"]
            assert hits[0]["slug"] == "kubernetes-oomkilled-memory-limits"
            assert found.structured_content["mode"] == "hybrid" and hits[0]["snippet"]
            card = await client.call_tool("read", {"name": hits[0]["path"]})
            assert card.structured_content["meta"]["category"] == "infrastructure"
            assert "OOMKilled" in card.structured_content["body"]
            pack = await client.call_tool("context", {"task": query, "budget": 600})
            assert "# Learned rules" in text_of(pack) and count_tokens(text_of(pack)) <= 600
            assert "kubernetes-oomkilled-memory-limits" in text_of(pack)

    _run(scenario)


def test_search_and_context_cover_the_global_vault(
    indexed_sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "global"
    shutil.copytree(Path(__file__).resolve().parent / "fixtures" / "search-vault", shared)
    monkeypatch.setenv("CARDVAULT_HOME", str(shared))

    async def scenario() -> None:
        async with connected(indexed_sample) as client:
            query = {"query": "csrf token rejected on login", "k": 5}
            hits = (await client.call_tool("search", query)).structured_content["results"]
            assert "global" in {hit["vault"] for hit in hits}
            assert any(hit["slug"] == "cortex-csrf-automation" for hit in hits)
            alone = await client.call_tool("search", {**query, "scope": "project"})
            assert {h["vault"] for h in alone.structured_content["results"]} == {"project"}
            pack = await client.call_tool("context", {"task": "login csrf error"})
            assert "cortex-csrf-automation" in text_of(pack)

    _run(scenario)


def test_remember_writes_one_log_entry_and_one_commit(indexed_sample: Path) -> None:
    before = git_log(indexed_sample)

    async def scenario() -> None:
        async with connected(indexed_sample) as client:
            done = await client.call_tool(
                "remember", {"text": "pytest -x stops at the first failure"}
            )
            assert not done.is_error and done.structured_content["path"] == TODAY_LOG
            logged = await client.call_tool("log", {"text": "Fix: pin numpy<2", "title": "CI"})
            assert not logged.is_error
            today = await client.call_tool("read", {"name": "today"})
            assert re.search(
                r"## 09:00 — CI <!-- id:[0-9a-f]{6} -->\nFix: pin numpy<2",
                today.structured_content["text"],
            )

    _run(scenario)
    log = (indexed_sample / TODAY_LOG).read_text()
    assert log.count("Lesson: pytest -x stops at the first failure") == 1
    day = NOW[:10]
    subjects = [f"log: {day} 09:00 CI", f"log: {day} 09:00 pytest -x stops at the first failure"]
    assert git_log(indexed_sample) == [*subjects, *before]
    status = subprocess.run(
        ["git", "-C", str(indexed_sample), "status", "--porcelain"], capture_output=True, text=True
    )
    assert status.stdout.strip() in ("", "?? .cardvault/")


def test_a_secret_is_refused_with_its_kind_named_and_nothing_written(indexed_sample: Path) -> None:
    before = git_log(indexed_sample)

    async def scenario() -> None:
        async with connected(indexed_sample) as client:
            refused = await client.call_tool("remember", {"text": f"the deploy key is {AWS_KEY}"})
            assert refused.is_error
            message = text_of(refused)
            assert "refusing to write a secret (AWS access key)" in message
            assert AWS_KEY not in message and f"{TODAY_LOG}:" in message
            card = {"topic": "Deploy", "category": "tools", "body": f"key {AWS_KEY}"}
            assert AWS_KEY not in text_of(await client.call_tool("new_card", card))
            redacted = await client.call_tool(
                "remember", {"text": f"key {AWS_KEY}", "redact": True}
            )
            assert not redacted.is_error

    _run(scenario)
    assert AWS_KEY not in (indexed_sample / TODAY_LOG).read_text()
    assert len(git_log(indexed_sample)) == len(before) + 1  # the redacted entry only


def test_a_changed_cardvault_toml_is_seen_by_the_tools(indexed_sample: Path) -> None:
    config = indexed_sample / "cardvault.toml"
    card = {"topic": "Sourdough starter", "category": "recipes", "body": "Feed it daily."}

    async def scenario() -> None:
        async with connected(indexed_sample) as client:
            refused = await client.call_tool("new_card", card)
            assert refused.is_error and "unknown category 'recipes'" in text_of(refused)
            config.write_text(config.read_text().replace('"models"]', '"models", "recipes"]'))
            created = await client.call_tool("new_card", card)
            assert (
                not created.is_error and created.structured_content["slug"] == "sourdough-starter"
            )

    _run(scenario)


BAD_CALLS = [
    ("search", {}, "query"),
    ("search", {"query": "x", "k": "lots"}, "k"),
    ("search", {"query": "x", "k": 0}, "greater than or equal to 1"),
    ("search", {"query": "x", "mode": "fuzzy"}, "'hybrid', 'semantic' or 'keyword'"),
    ("read", {"name": "no-such-card"}, "no card with slug or alias 'no-such-card'"),
    ("read", {"name": "2026-13-45"}, "month must be in 1..12"),
    ("new_card", {"topic": "x", "category": "nope", "body": "b"}, "unknown category 'nope'"),
    ("log", {"text": ""}, "at least 1 character"),
    ("no_such_tool", {}, "Unknown tool"),
]


def test_bad_arguments_are_errors_and_the_server_keeps_serving(indexed_sample: Path) -> None:
    async def scenario() -> None:
        async with connected(indexed_sample) as client:
            for name, arguments, expected in BAD_CALLS:
                result = await client.call_tool(name, arguments)
                assert result.is_error and expected in text_of(result), (name, arguments)
            with pytest.raises(Exception, match="no card with slug or alias 'nope'"):
                await client.read_resource("cardvault://cards/nope")
            found = await client.call_tool("search", {"query": "nginx upload limit"})
            assert found.structured_content["results"][0]["slug"] == "nginx-upload-size-limit"

    _run(scenario)


def test_the_model_is_loaded_once_per_server(indexed_sample: Path) -> None:
    async def scenario() -> None:
        async with connected(indexed_sample) as client:
            await client.call_tool("search", {"query": "docker on apple silicon"})
            (pid,) = server_pids(indexed_sample)
            first = mapped_files(pid, "model.onnx.data")
            assert first  # the ONNX weights are memory-mapped by the one session
            for query in ("nginx", "postgres pool", "release tags"):
                await client.call_tool("search", {"query": query, "mode": "semantic"})
            await client.call_tool("context", {"task": "deploy"})
            assert mapped_files(pid, "model.onnx.data") == first

    _run(scenario)


def test_the_handshake_does_not_wait_for_search(indexed_sample: Path) -> None:
    """While the index is locked for writing (so the warm-up search and any search are stuck
    behind it), the server still completes the handshake and answers tools that do not search."""
    card = indexed_sample / "memory/cards/nginx-upload-size-limit.md"
    card.write_text(card.read_text() + "\nAlso raise client_body_buffer_size.\n")
    blocker = sqlite3.connect(indexed_sample / ".cardvault/search.sqlite", isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")

    async def scenario() -> None:
        async with connected(indexed_sample) as client:
            assert len((await client.list_tools()).tools) == 8
            card_read = await client.call_tool("read", {"name": "nginx-upload-size-limit"})
            assert "client_body_buffer_size" in card_read.structured_content["body"]
            remembered = await client.call_tool("remember", {"text": "searching can wait"})
            assert not remembered.is_error
            blocker.execute("ROLLBACK")
            found = await client.call_tool("search", {"query": "client_body_buffer_size"})
            assert found.structured_content["results"][0]["slug"] == "nginx-upload-size-limit"

    try:
        _run(scenario)
    finally:
        blocker.close()


WRITES_EACH = 8


def test_two_clients_writing_at_once_lose_nothing(indexed_sample: Path) -> None:
    before = git_log(indexed_sample)
    results: dict[str, list[str | None]] = {"a": [], "b": []}

    async def writer(name: str) -> None:
        async with connected(indexed_sample) as client:
            for number in range(WRITES_EACH):
                text = f"note {name}{number} from client {name}"
                done = await client.call_tool("remember", {"text": text})
                results[name].append(text_of(done) if done.is_error else None)

    async def scenario() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(writer, "a")
            group.start_soon(writer, "b")

    _run(scenario)
    log = (indexed_sample / TODAY_LOG).read_text()
    failed = [error for errors in results.values() for error in errors if error]
    assert failed == [], f"writes refused: {failed}"
    for name in "ab":
        for number in range(WRITES_EACH):
            assert log.count(f"Lesson: note {name}{number} from client {name}\n") == 1
    assert len(git_log(indexed_sample)) == len(before) + 2 * WRITES_EACH


def test_the_registration_snippets_start_the_server(indexed_sample: Path) -> None:
    import tomllib

    commands = []
    for host in ("claude", "cursor", "codex"):
        done = subprocess.run(
            [sys.executable, "-m", "cardvault", "--vault", str(indexed_sample), "mcp",
             "--config", host], capture_output=True, text=True, check=True,
        )  # fmt: skip
        if host == "codex":
            entry = tomllib.loads(done.stdout)["mcp_servers"]["cardvault"]
            assert "~/.codex/config.toml" in done.stderr
        else:
            entry = json.loads(done.stdout)["mcpServers"]["cardvault"]
            assert (".mcp.json" if host == "claude" else ".cursor/mcp.json") in done.stderr
        commands.append([entry["command"], *entry["args"]])
    assert commands[0] == commands[1] == commands[2]
    assert commands[0][-3:] == ["mcp", "--vault", str(indexed_sample)]

    async def scenario() -> None:
        async with connected(indexed_sample, commands[0]) as client:
            assert len((await client.list_tools()).tools) == 8

    _run(scenario)


def test_review_decisions_are_listed_and_answered_through_the_tools(
    tmp_path: Path, embedder: Embedder
) -> None:
    """A contradiction maintain could not settle: listed by `review_pending` as `review --json`
    lists it, settled by `review_answer` through the write door (one commit), then gone."""
    from tests.support.maintain import contradicting_vault

    vault = contradicting_vault(tmp_path / "v", embedder)
    before = git_log(vault.root)

    async def scenario() -> None:
        async with connected(vault.root) as client:
            listed = await client.call_tool("review_pending", {})
            assert not listed.is_error
            items = (
                json.loads(text_of(listed))
                if listed.structured_content is None
                else (listed.structured_content.get("result", listed.structured_content))
            )
            contradiction = next(i for i in items if i["kind"] == "contradiction")
            winner = next(m["n"] for m in contradiction["members"] if "vitest" in m["path"])
            answered = await client.call_tool(
                "review_answer",
                {"id": contradiction["id"], "accept": True, "keep": winner, "reason": "ESM"},
            )
            assert not answered.is_error, text_of(answered)
            assert answered.structured_content["settled"][0]["id"] == contradiction["id"]
            again = await client.call_tool("review_answer", {"id": "no-such-item", "accept": False})
            assert again.is_error and "no-such-item" in text_of(again)

    _run(scenario)
    assert (vault.root / "memory" / "archive" / "use-jest.md").exists()
    assert len(git_log(vault.root)) == len(before) + 1


def test_the_global_queue_is_listed_and_answered_through_the_tools(indexed_sample: Path) -> None:
    """`queue: global` reads and answers the global vault's queue (where `maintain --global`
    asks about lessons found in several projects); the project's queue is not touched."""
    from cardvault.app import Session
    from cardvault.vault.decisions import read_queue
    from tests.support.maintain import ask_cross_project

    home = Session().vault_for(to_global=True)
    asked = ask_cross_project(home)
    before = git_log(home.root)

    async def scenario() -> None:
        async with connected(indexed_sample) as client:
            listed = await client.call_tool("review_pending", {"queue": "global"})
            items = listed.structured_content["result"]
            assert [(i["id"], i["kind"]) for i in items] == [(asked.id, "cross-project")]
            assert [m["n"] for m in items[0]["members"]] == [1, 2]
            project = await client.call_tool("review_pending", {})
            assert project.structured_content["result"] == []
            answered = await client.call_tool(
                "review_answer",
                {"id": asked.id, "accept": False, "reason": "two clients", "queue": "global"},
            )
            assert not answered.is_error, text_of(answered)
            assert answered.structured_content["settled"][0]["status"] == "rejected"

    _run(scenario)
    settled = read_queue(home.root)
    assert [(i.status, i.by, i.reason) for i in settled] == [
        ("rejected", "agent (mcp)", "two clients")
    ]
    assert len(git_log(home.root)) == len(before) + 1


def test_a_first_index_says_in_the_servers_log_that_searches_wait_for_it(
    indexed_sample: Path,
) -> None:
    """A vault never indexed is indexed by the server's warm-up, minutes on thousands of long
    notes; its log (stderr, which clients keep) said nothing meanwhile. It now says that the
    index is being built, how far it is now and then, and when it is done; an indexed vault's
    server says none of it."""
    for db in (indexed_sample / ".cardvault").glob("search.sqlite*"):
        db.unlink()
    log = indexed_sample.parent / "mcp-server.log"

    async def scenario() -> None:
        async with connected(indexed_sample) as client:
            found = await client.call_tool("search", {"query": "docker on apple silicon"})
            assert found.structured_content["results"]

    _run(scenario)
    lines = log.read_text().splitlines()
    building = f"cardvault mcp: building the search index of {indexed_sample}; searches wait for it"
    assert building in lines, lines
    assert any(re.fullmatch(r"cardvault mcp: search index built in \d+ (s|min)", x) for x in lines)
    log.unlink()
    _run(scenario)
    assert not any("search index" in line for line in log.read_text().splitlines())
