"""The reads that show the vault give the same answer through the CLI (`--json`) and the Python
API (`open_vault(root).<method>`): show, list, stats, graph, history, diff, agents, scope, view
and verify; and the two writes among them (`verify`, `hot`) leave the same files and commits.

One table of reads, run through both front ends on the same copy of the sample vault (with a
global vault beside it, so `--scope all` covers two vaults); each write runs through each front
end on its own copy, and the copies must end up alike.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cardvault import open_vault
from cardvault.app import Session
from cardvault.errors import CardvaultError
from tests.support.cli import git_log, run_cli, snapshot

NOW = "2026-11-30T09:15"
CARD = "docker-buildkit-cache-mounts"


def _each(found: Any, scoped: bool = False) -> Any:
    data = [{**each.result.to_dict(), "vault": each.name} for each in found.each]
    return data if scoped else data[0]


def _rows(found: Any) -> list[dict[str, Any]]:
    return [{**row.to_dict(), "vault": each.name} for each in found.each for row in each.result]


#: (name, the CLI's arguments after `--vault ROOT`, the same read through the API)
READS: list[tuple[str, list[str], Callable[[Session], Any]]] = [
    ("show", ["show", CARD, "--json"], lambda s: s.show(CARD).to_dict()),
    ("list", ["list", "--json"], lambda s: _rows(s.list_cards())),
    (
        "list, one category, both vaults",
        ["list", "--category", "infrastructure", "--scope", "all", "--json"],
        lambda s: _rows(s.list_cards(category="infrastructure", scope="all")),
    ),
    ("stats", ["stats", "--json"], lambda s: _each(s.stats())),
    ("stats, both vaults", ["stats", "--scope", "all", "--json"],
     lambda s: _each(s.stats("all"), scoped=True)),
    ("graph", ["graph", "--json"], lambda s: _each(s.graph())),
    ("graph, archived, both vaults", ["graph", "--archived", "--scope", "all", "--json"],
     lambda s: _each(s.graph(archived=True, scope="all"), scoped=True)),
    ("history", ["history", "--json"], lambda s: [c.to_dict() for c in s.history()]),
    ("history of a card", ["history", CARD, "--limit", "1", "--json"],
     lambda s: [c.to_dict() for c in s.history(CARD, limit=1)]),
    ("diff", ["diff", "--json"], lambda s: s.diff().to_dict()),  # type: ignore[union-attr]
    ("agents", ["agents", "--json"], lambda s: [a.to_dict() for a in s.agents()]),
    ("agents of the global vault", ["agents", "--global", "--json"],
     lambda s: [a.to_dict() for a in s.agents(from_global=True)]),
    ("scope", ["scope", "--json"], lambda s: s.scope_info().to_dict()),
]  # fmt: skip


@pytest.fixture
def vaults(
    sample_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[str], Path]:
    """Copies of the sample vault (with an agent's hot memory committed), each on the same
    global vault; the clock pinned."""
    from cardvault.app.vaults import init_vault

    shared = tmp_path / "global"
    init_vault(shared)
    monkeypatch.setenv("CARDVAULT_HOME", str(shared))
    monkeypatch.setenv("CARDVAULT_NOW", NOW)
    hot = run_cli(["--vault", str(sample_vault), "--agent", "builder", "hot", "arm64 only"])
    assert hot.exit_code == 0, hot.output

    def copy(name: str) -> Path:
        return Path(shutil.copytree(sample_vault, tmp_path / name, symlinks=True))

    return copy


def _cli_json(root: Path, argv: list[str]) -> Any:
    done = run_cli(["--vault", str(root), *argv])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


@pytest.mark.parametrize(("name", "argv", "api"), READS, ids=[r[0] for r in READS])
def test_a_read_answers_the_same_through_the_cli_and_the_api(
    vaults: Callable[[str], Path], name: str, argv: list[str], api: Callable[[Session], Any]
) -> None:
    root = vaults("vault")
    with open_vault(root) as session:
        assert _cli_json(root, argv) == json.loads(json.dumps(api(session), default=str)), name


def test_an_unknown_filter_is_refused_by_both(vaults: Callable[[str], Path]) -> None:
    root = vaults("vault")
    done = run_cli(["--vault", str(root), "list", "--category", "bogus"])
    assert done.exit_code == 1
    with open_vault(root) as session:
        for read in (
            lambda: session.list_cards(category="bogus"),
            lambda: session.search_hits("x", mode="keyword", status="gone"),
        ):
            with pytest.raises(CardvaultError, match=r"unknown (category 'bogus'|status 'gone')"):
                read()
    assert "unknown category 'bogus'" in done.stderr


def test_view_writes_the_same_page(vaults: Callable[[str], Path], tmp_path: Path) -> None:
    root = vaults("vault")
    by_cli = _cli_json(root, ["view", "--out", str(tmp_path / "cli.html"), "--json"])
    with open_vault(root) as session:
        by_api = session.view(tmp_path / "api.html").to_dict()
        with pytest.raises(CardvaultError, match="--out and --open"):
            session.view(tmp_path / "x.html", temporary=True)
    assert {**by_cli, "path": ""} == {**by_api, "path": ""}
    assert (tmp_path / "cli.html").read_bytes() == (tmp_path / "api.html").read_bytes()


def _same_write(cli_root: Path, api_root: Path) -> None:
    assert snapshot(cli_root) == snapshot(api_root)
    assert git_log(cli_root) == git_log(api_root)


def test_verify_marks_the_same_cards_in_the_same_commit(
    vaults: Callable[[str], Path], tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    cli_root, api_root = vaults("by-cli"), vaults("by-api")
    done = run_cli(["--vault", str(cli_root), "verify", "--project", str(project), "--json"])
    assert done.exit_code == 1, done.output  # stale cards
    by_cli = json.loads(done.stdout)
    with open_vault(api_root) as session:
        by_api = json.loads(json.dumps(session.verify(project).to_dict(), default=str))
    assert by_cli["marked"] and by_cli["marked"] == by_api["marked"]
    assert by_cli["asked"] == by_api["asked"]
    _same_write(cli_root, api_root)


def test_hot_writes_the_same_fragment(vaults: Callable[[str], Path]) -> None:
    cli_root, api_root = vaults("by-cli"), vaults("by-api")
    argv = ["--vault", str(cli_root), "--agent", "builder", "hot", "the cache lives on /mnt"]
    assert run_cli(argv).exit_code == 0
    with open_vault(api_root) as session:
        session.with_options(agent="builder").hot("the cache lives on /mnt")
    _same_write(cli_root, api_root)
    assert "the cache lives on /mnt" in (api_root / "memory/agents/builder.md").read_text()
