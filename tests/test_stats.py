"""`cardvault stats` on the sample vault, checked against counts made independently here."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from cardvault.insight.stats import vault_stats
from cardvault.vault.layout import open_vault_at
from cardvault.vault.tokens import count_tokens
from tests.support.cli import run_cli
from tests.support.insight import card_files, frontmatter, git, has_signal, log_entries, log_files

FACTS = Path(__file__).parent / "fixtures" / "sample-vault-facts.json"


def stats_json(root: Path) -> dict:
    result = run_cli(["--vault", str(root), "stats", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_card_counts_match_the_files(sample_vault: Path) -> None:
    data = stats_json(sample_vault)
    metas = [frontmatter(p) for p in card_files(sample_vault)]
    assert data["cards"] == len(metas) > 0
    assert data["by_category"] == dict(Counter(m["category"] for m in metas))
    assert data["by_status"] == dict(Counter(m.get("status", "active") for m in metas))
    assert data["tags"] == dict(Counter(t for m in metas for t in m["tags"]))
    assert data["promoted"] == sum(1 for m in metas if m.get("status") == "promoted")
    assert data["archived"] == len(card_files(sample_vault, "archive"))


def test_tokens_and_budgets(sample_vault: Path) -> None:
    data = stats_json(sample_vault)
    texts = {p.stem: p.read_text(encoding="utf-8") for p in card_files(sample_vault)}
    expected = {slug: count_tokens(text) for slug, text in texts.items()}
    assert {c["slug"]: c["tokens"] for c in data["card_sizes"]} == expected
    assert data["total_tokens"] == sum(expected.values())
    assert [c["tokens"] for c in data["card_sizes"]] == sorted(expected.values(), reverse=True)
    assert data["card_token_budget"] == 350
    assert data["over_budget"] == sorted(s for s, t in expected.items() if t > 350)
    assert data["memory_md_bytes"] == (sample_vault / "MEMORY.md").stat().st_size
    assert data["memory_byte_budget"] == 2048


def test_over_budget_card_is_listed(sample_vault: Path) -> None:
    path = card_files(sample_vault)[0]
    path.write_text(path.read_text(encoding="utf-8") + "\nword " * 400, encoding="utf-8")
    data = stats_json(sample_vault)
    assert path.stem in data["over_budget"]
    assert data["card_sizes"][0]["slug"] == path.stem


def test_logs_and_undistilled_entries(sample_vault: Path) -> None:
    data = stats_json(sample_vault)
    entries = [e for path in log_files(sample_vault) for e in log_entries(path)]
    cited: set[str] = set()
    for folder in ("cards", "archive"):
        for path in card_files(sample_vault, folder):
            cited.update(frontmatter(path).get("sources") or [])
    signalled = [e for e in entries if has_signal(e["lines"])]
    assert data["logs"]["days"] == len(log_files(sample_vault))
    assert data["logs"]["entries"] == len(entries)
    assert data["logs"]["signal_entries"] == len(signalled)
    assert data["logs"]["undistilled"] == [e["ref"] for e in signalled if e["ref"] not in cited]
    assert data["logs"]["undistilled"], "the sample vault has lessons waiting for maintenance"


def test_citing_an_entry_makes_it_distilled(sample_vault: Path) -> None:
    first = stats_json(sample_vault)["logs"]["undistilled"][0]
    card = card_files(sample_vault)[0]
    text = card.read_text(encoding="utf-8")
    card.write_text(text.replace("\n---\n", f"\nsources: ['{first}']\n---\n", 1), encoding="utf-8")
    assert first not in stats_json(sample_vault)["logs"]["undistilled"]


def test_rules_count_is_the_managed_section(sample_vault: Path) -> None:
    text = (sample_vault / "AGENTS.md").read_text(encoding="utf-8")
    section = re.search(r"cardvault:begin rules -->\n(.*?)<!-- cardvault:end rules", text, re.S)
    expected = (
        len([line for line in section.group(1).splitlines() if line.strip()]) if section else 0
    )
    assert stats_json(sample_vault)["rules"] == expected


def test_last_maintenance_run_comes_from_git(sample_vault: Path) -> None:
    assert stats_json(sample_vault)["last_maintenance"] is None
    memory_md = sample_vault / "MEMORY.md"
    memory_md.write_text(memory_md.read_text(encoding="utf-8") + "one\n", encoding="utf-8")
    git(sample_vault, "commit", "-qam", "maintain: 2 distilled, 1 merged")
    sha = git(sample_vault, "rev-parse", "HEAD").strip()
    memory_md.write_text(memory_md.read_text(encoding="utf-8") + "two\n", encoding="utf-8")
    git(sample_vault, "commit", "-qam", "card: add x\n\nmaintain: not a subject")
    run = stats_json(sample_vault)["last_maintenance"]
    assert run["sha"] == sha
    assert run["subject"] == "maintain: 2 distilled, 1 merged"


def test_index_freshness_counts_changes_since_the_index(sample_vault: Path) -> None:
    from cardvault.search.index import open_index
    from cardvault.search.sync import sync_index

    vault = open_vault_at(sample_vault)
    assert stats_json(sample_vault)["index"]["exists"] is False
    index = open_index(vault.cache_dir)
    sync_index(vault, index, None)
    index.close()
    fresh = stats_json(sample_vault)["index"]
    assert fresh["fresh"] is True and fresh["indexed"] == len(card_files(sample_vault)) + len(
        card_files(sample_vault, "archive")
    ) + len(log_files(sample_vault))
    cards = card_files(sample_vault)
    cards[0].write_text(cards[0].read_text(encoding="utf-8") + "More.\n", encoding="utf-8")
    cards[1].unlink()
    os.utime(cards[2])  # touched, bytes unchanged: not a change
    (sample_vault / "memory" / "cards" / "brand-new.md").write_text(
        "---\ntopic: New\ncategory: tools\ntags: [x]\n"
        "created: 2026-01-01\nupdated: 2026-01-01\n---\nBody.\n"
    )
    behind = stats_json(sample_vault)["index"]
    assert (behind["added"], behind["changed"], behind["removed"], behind["fresh"]) == (
        1,
        1,
        1,
        False,
    )


def test_stats_service_reports_unreadable_cards(sample_vault: Path) -> None:
    (sample_vault / "memory" / "cards" / "broken.md").write_text("no frontmatter\n")
    result = vault_stats(open_vault_at(sample_vault))
    assert result.cards == len(card_files(sample_vault)) - 1
    assert any("broken.md" in problem for problem in result.problems)


def test_dashboard_shows_the_figures(
    sample_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cardvault.cli.stats import _dashboard

    result = vault_stats(open_vault_at(sample_vault))
    _dashboard(result)
    out = capsys.readouterr().out
    assert f"{result.cards} cards" in out
    assert f"MEMORY.md: {result.memory_md_bytes} of 2048 bytes" in out
    assert f"{len(result.logs.undistilled)} undistilled" in out
    assert "Search index: not built" in out


def test_matches_the_sample_vault_facts(sample_vault: Path) -> None:
    facts = json.loads(FACTS.read_text(encoding="utf-8"))
    data = stats_json(sample_vault)
    assert data["cards"] == facts["card_count"]
    assert data["archived"] == facts["archived_count"]
    assert data["by_category"] == facts["cards_by_category"]
    assert (data["logs"]["days"], data["logs"]["entries"]) == (
        facts["log_days"],
        facts["log_entries"],
    )
    when = {  # "memory/2026-11-02.md#2f8da9" -> "2026-11-02 11:30", as the facts name entries
        e["ref"]: f"{path.stem} {e['time']}"
        for path in log_files(sample_vault)
        for e in log_entries(path)
    }
    undistilled = [when[ref] for ref in data["logs"]["undistilled"]]
    assert undistilled == facts["undistilled_signal_entries"]
    assert data["promoted"] == 1 and data["rules"] == 1
    assert data["by_status"].get("promoted") == 1
    promoted = json.loads(
        run_cli(["--vault", str(sample_vault), "list", "--status", "promoted", "--json"]).stdout
    )
    assert [row["slug"] for row in promoted] == [facts["promoted_card"]]
