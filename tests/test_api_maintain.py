"""`maintain`, the by-hand steps, `review` and the MCP server's reads through the Python API
(`cardvault.open_vault(path).<method>`) and through the CLI or the MCP server, on twin vaults:
the same answers and the same files written."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from cardvault import open_vault
from cardvault.app.review import listing
from cardvault.cli.app import app
from cardvault.search.embedder import Embedder
from tests.support.maintain import card, commit_all, contradicting_vault, git, log, new_vault
from tests.support.maintain import snapshot as files_of

pytestmark = pytest.mark.slow  # distilling and merging embed with the real model

REDIS = "Lesson: KEYS walks every key in one blocking call; use SCAN with COUNT 1000 instead."


@pytest.fixture(autouse=True)
def _now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDVAULT_NOW", "2026-06-01T09:15")


def _made(root: Path) -> Path:
    vault = new_vault(root)
    card(vault, "utc-timestamps", "UTC Timestamps", "Store every timestamp as UTC timestamptz.",
         category="workflow", tags="[postgres, time]", created="2026-05-01")  # fmt: skip
    log(vault, "2026-05-20", [("10:00", "Redis stall <!-- id:3f9a2c -->", REDIS)])
    commit_all(vault)
    return root


@pytest.fixture
def twins(tmp_path: Path) -> tuple[Path, Path]:
    """Two identical committed vaults: one for the CLI, one for the API."""
    return _made(tmp_path / "cli"), _made(tmp_path / "api")


def cli(root: Path, *args: str) -> Result:
    result = CliRunner().invoke(app, ["--vault", str(root), *args])
    assert result.exit_code == 0, result.output
    return result


def _state(root: Path) -> tuple[dict[str, bytes], str, str]:
    """The vault's files, its last commit's message and its number of commits."""
    return (
        files_of(root),
        git(root, "log", "-1", "--format=%B"),
        git(root, "rev-list", "--count", "HEAD"),
    )


def _untimed(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key != "timings"}


def test_a_dry_run_answers_alike(twins: tuple[Path, Path]) -> None:
    root, _ = twins
    before = _state(root)
    by_cli = json.loads(cli(root, "maintain", "--dry-run", "--json").stdout)
    with open_vault(root) as session:
        by_api = session.maintain(dry_run=True).to_json()
    assert by_cli["counts"]["distill"] == 1 and "+++ b/memory/cards/" in by_cli["diff"]
    assert _untimed(by_api) == _untimed(by_cli)
    assert _state(root) == before


def test_a_run_writes_and_commits_alike(twins: tuple[Path, Path]) -> None:
    by_cli, by_api = twins
    untouched = _state(by_cli)
    cli(by_cli, "maintain")
    with open_vault(by_api) as session:
        done = session.maintain()
    assert done.run.commit is not None and done.pending == 0
    assert _state(by_api) == _state(by_cli) != untouched


def test_a_review_branch_holds_the_same_tree(twins: tuple[Path, Path]) -> None:
    by_cli, by_api = twins
    cli(by_cli, "maintain", "--review", "--only", "distill,index")
    with open_vault(by_api) as session:
        branch = session.maintain(review=True, only=["distill,index"]).run.branch
    assert branch is not None
    assert git(by_api, "rev-parse", f"{branch}^{{tree}}") == git(
        by_cli, "rev-parse", f"{branch}^{{tree}}"
    )
    assert _state(by_api) == _state(by_cli)  # the branch left both work trees as they were


@pytest.mark.parametrize(
    ("argv", "call"),
    [
        (["promote", "utc-timestamps", "--rule", "Use UTC."],
         lambda s: s.promote("utc-timestamps", "Use UTC.")),
        (["archive", "utc-timestamps"], lambda s: s.archive("utc-timestamps")),
    ],
    ids=["promote --rule", "archive"],
)  # fmt: skip
def test_the_by_hand_steps_write_alike(
    twins: tuple[Path, Path], argv: list[str], call: Callable[[Any], Any]
) -> None:
    by_cli, by_api = twins
    cli(by_cli, *argv)
    with open_vault(by_api) as session:
        assert call(session).commit is not None
    assert _state(by_api) == _state(by_cli)
    if argv[0] == "promote":  # and back out of AGENTS.md
        cli(by_cli, "demote", "utc-timestamps")
        with open_vault(by_api) as session:
            session.demote("utc-timestamps")
        assert _state(by_api) == _state(by_cli)


def test_maintain_global_registers_and_answers_alike(twins: tuple[Path, Path]) -> None:
    root, _ = twins
    by_cli = json.loads(cli(root, "maintain", "--global", "--dry-run", "--json").stdout)
    with open_vault(root) as session:
        done = session.maintain_global(dry_run=True)
    assert done.registered is not None and done.unregistered is None
    assert done.registered.commit is None  # the CLI's run registered it already
    assert by_cli["projects"] == list(done.result.plan.projects) != []
    assert by_cli["changes"] == done.result.plan.lines


def test_review_lists_and_settles_alike(tmp_path: Path, embedder: Embedder) -> None:
    by_cli = contradicting_vault(tmp_path / "cli", embedder).root
    by_api = contradicting_vault(tmp_path / "api", embedder).root
    listed = json.loads(cli(by_cli, "review", "--json").stdout)
    with open_vault(by_api) as session:
        assert [listing(item) for item in session.review_pending()] == listed
    (item,) = listed
    cli(by_cli, "review", "accept", item["id"], "--keep", "2", "--reason", "ESM")
    with open_vault(by_api) as session:
        assert session.review_accept([item["id"]], keep=2, reason="ESM").pending == 0
    assert _state(by_api) == _state(by_cli)


def test_the_mcp_reads_are_the_sessions(twins: tuple[Path, Path]) -> None:
    from cardvault.mcp.server import build_server

    root, _ = twins
    server = build_server(root, warm_up=False)
    try:
        read = asyncio.run(server.call_tool("read", {"name": "memory/2026-05-20.md"}))
        card_text = asyncio.run(server.read_resource("cardvault://cards/utc-timestamps"))
    finally:
        server.turns.close()
    with open_vault(root) as session:
        day = session.read_log(dt.date(2026, 5, 20))
        found = session.read_card("utc-timestamps", used=False)
    assert read.structured_content is not None
    assert read.structured_content["text"] == day.text and "KEYS walks" in day.text
    assert found.text in next(iter(card_text)).content
