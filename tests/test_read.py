"""The one read path on a vault built to trip readers that disagree (tests/fixtures/tricky-vault):
a rule with a continuation line and comments in AGENTS.md's rules section, a link in
frontmatter to no card, an alias, a link to an archived card, a broken card, a CRLF card, a
card in a sub-folder, a `##` inside a code block. Every command counts the same things alike.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cardvault import history
from cardvault.vault.layout import open_vault_at
from cardvault.vault.read import read_vault
from cardvault.vault.rules import parse_rules
from tests.support.cli import run_cli

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "tricky-vault"
CRLF_CARD = (
    "---\r\ntopic: Written on Windows\r\ncategory: tools\r\ntags: [windows]\r\n"
    "created: 2026-07-01\r\nupdated: 2026-11-01\r\n---\r\nCRLF endings, read like any other.\r\n"
)
LIVE, ARCHIVED, BROKEN, RULES, ENTRIES = 4, 1, 1, 2, 3


@pytest.fixture
def tricky(tmp_path: Path) -> Path:
    root = tmp_path / "tricky"
    shutil.copytree(FIXTURE, root)
    (root / "memory" / "cards" / "windows-card.md").write_bytes(CRLF_CARD.encode())
    history.init_repo(root)
    history.commit(open_vault_at(root), "tricky vault")
    return root


def cli(root: Path, *args: str) -> Any:
    result = run_cli(["--vault", str(root), *args])
    assert result.exit_code in (0, 1), result.output
    return result


def cli_json(root: Path, *args: str) -> Any:
    return json.loads(cli(root, *args).stdout)


def test_the_snapshot_sees_the_tricky_vault_as_designed(tricky: Path) -> None:
    snapshot = read_vault(open_vault_at(tricky))
    assert len(snapshot.live) == LIVE and len(snapshot.archived) == ARCHIVED
    assert [(p.path, p.code) for p in snapshot.problems] == [
        ("memory/cards/broken-card.md", "unreadable")
    ]
    assert len(snapshot.entries) == ENTRIES
    assert [rule.line for rule in snapshot.rules] == [6, 8]
    assert snapshot.rules[0].text.endswith("\n  and say in the PR that it passed.")
    assert snapshot.card("s3-listing-limit").slug == "s3-pagination"  # type: ignore[union-attr]
    assert snapshot.card("sub/nested-card.md") is not None
    windows = snapshot.card("windows-card")
    assert windows is not None and windows.card.newline == "\r\n"
    release = snapshot.card("release-checklist")
    assert release is not None
    assert [(link.target, link.line) for link in release.links] == [
        ("ghost", 7),
        ("s3-listing-limit", 9),
        ("archived-runbook", 10),
    ]


def test_every_command_counts_alike(tricky: Path) -> None:
    stats = cli_json(tricky, "stats", "--json")
    listing = cli_json(tricky, "list", "--json")
    graph = cli_json(tricky, "graph", "--format", "json")
    graph_all = cli_json(tricky, "graph", "--format", "json", "--archived")
    findings = cli_json(tricky, "check", "--json")
    pack = cli_json(tricky, "context", "--format", "json", "--budget", "4000")
    exported = cli_json(tricky, "export", "-")
    dry = cli_json(tricky, "maintain", "--dry-run", "--json", "--only", "promote,index")

    assert stats["cards"] == len(listing) == len(graph["nodes"]) == LIVE
    assert len(graph_all["nodes"]) == len(exported["cards"]) == LIVE + ARCHIVED
    assert stats["archived"] == ARCHIVED
    rules_in_pack = [item for item in pack["included"] if item["kind"] == "rule"]
    assert stats["rules"] == len(exported["rules"]) == len(rules_in_pack) == RULES
    broken = [f for f in findings if f["code"] == "unreadable"]
    assert len(broken) == len(stats["problems"]) == len(dry["problems"]) == BROKEN
    assert stats["logs"]["entries"] == ENTRIES
    card_links = [f for f in findings if f["code"] == "broken-link" and "[[" in f["message"]]
    assert [(f["path"], f["line"]) for f in card_links] == [
        ("memory/cards/release-checklist.md", 7)
    ]
    assert [link["text"] for link in graph["unresolved"]] == ["ghost"]
    assert [link["text"] for link in graph_all["unresolved"]] == ["ghost"]
    log_links = [f for f in findings if f["code"] == "broken-link" and "→ card" in f["message"]]
    assert [(f["path"], f["line"]) for f in log_links] == [("memory/2026-11-03.md", 5)]


def test_links_resolve_through_aliases_and_skip_undrawn_archived_cards(tricky: Path) -> None:
    graph = cli_json(tricky, "graph", "--format", "json")
    links = {(link["source"], link["target"]) for link in graph["links"]}
    assert ("release-checklist", "s3-pagination") in links  # through the alias
    assert not any(target == "archived-runbook" for _, target in links)
    graph_all = cli_json(tricky, "graph", "--format", "json", "--archived")
    drawn = {(link["source"], link["target"]) for link in graph_all["links"]}
    assert ("release-checklist", "archived-runbook") in drawn


def test_export_rules_are_single_lines_and_the_broken_card_is_named(tricky: Path) -> None:
    result = cli(tricky, "export", str(tricky.parent / "out.json"))
    assert result.exit_code == 0
    data = json.loads((tricky.parent / "out.json").read_text())
    assert data["rules"][0] == (
        "- Always run the migration linter before merging a schema change, and say in the PR "
        "that it passed."
    )
    assert "broken-card.md" in result.output


def test_rules_parse_continuations_and_skip_comments() -> None:
    section = (
        "<!-- one -->\n- a\n  more of a\n\n<!--\nmulti\n-->\n  stray indent joins a\n"
        "- b (memory/cards/b.md)"
    )
    rules = parse_rules(section, first_line=10)
    assert [(r.text, r.line) for r in rules] == [
        ("- a\n  more of a\n  stray indent joins a", 11),
        ("- b (memory/cards/b.md)", 18),
    ]
    assert [r.generated for r in rules] == [False, True]
    assert rules[1].cites == ("memory/cards/b.md",)
