"""One app, three front ends: the CLI (typer's runner, `--json`), the MCP tools (the real server's
functions, called through the SDK's tool manager with their argument validation) and the Python
API (`open_vault`) give the same results for search, context, remember and review.

One table of cases. A read runs through each front end on the same vault (the sample vault,
with the search fixture vault as the global vault, so scope `all` covers two vaults); a write
runs through each on its own copy of that vault, and the copies must end up with the same files
and the same commit subject. The clock is pinned, so the three writes are the same write.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cardvault import open_vault
from cardvault.app import Session
from tests.support.cli import run_cli, snapshot

pytestmark = pytest.mark.slow

NOW = "2026-11-30T09:15"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@dataclass(frozen=True)
class Case:
    """One request as each front end spells it, and how its answer is compared."""

    name: str
    cli: list[str]  # after `--vault ROOT`
    tool: str
    arguments: dict[str, Any]
    api: Callable[[Session], Any]
    writes: bool = False


def _api_hits(session: Session, query: str, **options: Any) -> list[dict[str, Any]]:
    return list(session.search_hits(query, **options).rows())


def _api_pack(session: Session, *args: Any, **options: Any) -> tuple[str, list[str]]:
    pack = session.context(*args, **options)
    return pack.text, list(pack.notices)


def _api_listing(session: Session, to_global: bool = False) -> list[dict[str, Any]]:
    from cardvault.app.review import listing

    return [listing(item) for item in session.review_pending(to_global)]


def _api_reject(session: Session) -> None:
    from cardvault.review.answer import Answer

    (item,) = session.review_pending()
    session.review_answer([Answer(item.id, False, reason="two tools")])


CASES = [
    Case(
        "search, both vaults",
        ["search", "csrf token rejected on login", "-k", "6", "--json"],
        "search", {"query": "csrf token rejected on login", "k": 6},
        lambda s: _api_hits(s, "csrf token rejected on login", k=6, scope="all"),
    ),
    Case(
        "search, keyword, project only, with logs",
        ["search", "buildx platform", "-k", "8", "--mode", "keyword", "--scope", "project",
         "--logs", "--json"],
        "search", {"query": "buildx platform", "mode": "keyword", "scope": "project",
                   "include_logs": True},
        lambda s: _api_hits(s, "buildx platform", k=8, mode="keyword", logs=True, scope="project"),
    ),
    Case(
        "search, one category",
        ["search", "docker images", "-k", "8", "--category", "infrastructure", "--json"],
        "search", {"query": "docker images", "category": "infrastructure"},
        lambda s: _api_hits(s, "docker images", k=8, category="infrastructure", scope="all"),
    ),
    Case(
        "context for a task",
        ["context", "--task", "fix the login csrf error", "--budget", "1200", "--format", "json"],
        "context", {"task": "fix the login csrf error", "budget": 1200},
        lambda s: _api_pack(s, "fix the login csrf error", 1200),
    ),
    Case(
        "context without a task, project scope",
        ["context", "--scope", "project", "--format", "json"],
        "context", {"scope": "project"},
        lambda s: _api_pack(s, scope="project"),
    ),
    Case(
        "review queue",
        ["review", "--json"],
        "review_pending", {},
        _api_listing,
    ),
    Case(
        "remember",
        ["remember", "The staging deploy needs VPN access first."],
        "remember", {"text": "The staging deploy needs VPN access first."},
        lambda s: s.remember("The staging deploy needs VPN access first."),
        writes=True,
    ),
    Case(
        "review answer",
        ["review", "reject", "{item}", "--reason", "two tools"],
        "review_answer", {"id": "{item}", "accept": False, "reason": "two tools"},
        _api_reject,
        writes=True,
    ),
]  # fmt: skip


@pytest.fixture
def vaults(
    indexed_sample_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[str], Path]:
    """Copies of one vault (the sample, with a pending review item committed), each on the
    same global vault; the clock pinned."""
    shared = tmp_path / "global"
    shutil.copytree(FIXTURES / "search-vault", shared)
    monkeypatch.setenv("CARDVAULT_HOME", str(shared))
    monkeypatch.setenv("CARDVAULT_NOW", NOW)
    template = tmp_path / "template"
    shutil.copytree(indexed_sample_template, template, symlinks=True)
    _plant_question(template)

    def copy(name: str) -> Path:
        return Path(shutil.copytree(template, tmp_path / name, symlinks=True))

    return copy


def _plant_question(root: Path) -> None:
    from cardvault import history
    from cardvault.vault.decisions import Member, ReviewItem, item_id, render_queue
    from cardvault.vault.layout import open_vault_at

    cards = ("docker-buildx-platform-flag", "docker-apple-silicon-builds")
    members = tuple(
        Member(f"memory/cards/{slug}.md", f"memory/cards/{slug}.md", f"the card {slug}")
        for slug in cards
    )
    item = ReviewItem(
        item_id("duplicate", [m.key for m in members]), "duplicate", members, {}, "2026-11-29"
    )
    (root / "memory" / "review.jsonl").write_text(render_queue([item]), "utf-8")
    history.commit(open_vault_at(root), "a question")


def _item_id(root: Path) -> str:
    line = (root / "memory" / "review.jsonl").read_text("utf-8").splitlines()[0]
    return str(json.loads(line)["id"])


def _filled(values: Any, item: str) -> Any:
    if isinstance(values, str):
        return values.replace("{item}", item)
    if isinstance(values, list):
        return [_filled(v, item) for v in values]
    if isinstance(values, dict):
        return {k: _filled(v, item) for k, v in values.items()}
    return values


def via_cli(root: Path, case: Case) -> Any:
    result = run_cli(["--vault", str(root), *_filled(case.cli, _item_id(root))])
    assert result.exit_code == 0, result.output
    if case.writes:
        return None
    if case.tool == "context":
        pack = json.loads(result.stdout)
        return pack["text"], pack["notices"]
    rows = json.loads(result.stdout)
    return [{k: v for k, v in row.items() if k != "weights"} for row in rows]


def via_mcp(root: Path, case: Case) -> Any:
    from cardvault.mcp.server import build_server
    from cardvault.vault.layout import open_vault_at

    server = build_server(open_vault_at(root), warm_up=False)
    arguments = _filled(case.arguments, _item_id(root))
    try:
        result = asyncio.run(server.call_tool(case.tool, arguments))
    finally:
        server.turns.close()
    assert not result.is_error, result
    if case.writes:
        return None
    data = result.structured_content
    assert data is not None
    if case.tool == "context":  # the pack, then the notices quoted as memory, one note a line
        from cardvault.context.pack import NOTICES_SOURCE

        text, _, block = data["result"].partition(f'\n\n<memory source="{NOTICES_SOURCE}">')
        return text, re.findall(r"^> note: (.*)$", block, re.MULTILINE)
    if case.tool == "review_pending":  # each item carries MCP's quoted-memory marker
        from cardvault.mcp.tools import QUOTED

        assert all(item.pop("memory") == QUOTED for item in data["result"])
    return data["results"] if case.tool == "search" else data["result"]


def via_api(root: Path, case: Case) -> Any:
    with open_vault(root) as session:
        found = case.api(session)
    return None if case.writes else found


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_cli_mcp_and_api_agree(case: Case, vaults: Callable[[str], Path]) -> None:
    if not case.writes:
        root = vaults("vault")
        answers = {front: run(root, case) for front, run in FRONTS.items()}
        assert answers["cli"], "an empty answer would agree trivially"
        assert answers["mcp"] == answers["cli"]
        assert answers["api"] == answers["cli"]
        return
    after = {}
    for front, run in FRONTS.items():
        root = vaults(front)
        run(root, case)
        after[front] = (_comparable(snapshot(root)), _subject(root))
    assert after["cli"][0] != _comparable(snapshot(vaults("untouched"))), "nothing was written"
    assert after["mcp"] == after["cli"]
    assert after["api"] == after["cli"]


FRONTS: dict[str, Callable[[Path, Case], Any]] = {"cli": via_cli, "mcp": via_mcp, "api": via_api}


def _comparable(files: dict[str, bytes]) -> dict[str, bytes]:
    """The vault's files, with who answered a review question (a person at the CLI, the agent
    through MCP: the one thing the front end is meant to change) set aside."""
    for name, data in files.items():
        if _DAILY_LOG.fullmatch(name):
            files[name] = _with_ids_in_order(data)
    queue = files.get("memory/review.jsonl")
    if queue is not None:
        rows = [json.loads(line) for line in queue.decode().splitlines()]
        for row in rows:
            row.pop("by", None)
        files["memory/review.jsonl"] = json.dumps(rows, sort_keys=True).encode()
    return files


_DAILY_LOG = re.compile(r"memory/\d{4}-\d{2}-\d{2}\.md")
_ENTRY_ID = re.compile(rb"<!-- id:([0-9a-f]{6,16}) -->")


def _with_ids_in_order(log: bytes) -> bytes:
    """A daily log with each entry id (random: vault/entry_ids.py) replaced by its rank of first
    appearance, `<!-- id:1 -->`: the ids' presence, place and distinctness still compared."""
    ranks: dict[bytes, int] = {}

    def rank(found: re.Match[bytes]) -> bytes:
        return b"<!-- id:%d -->" % ranks.setdefault(found.group(1), len(ranks) + 1)

    return _ENTRY_ID.sub(rank, log)


def _subject(root: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "log", "-1", "--format=%s"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.strip()
