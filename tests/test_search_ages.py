"""A search hit's age (`age`, `age_days`, `stale`) is told from the index's row of its card,
in the words `context` uses for the same card: a real vault made by `cardvault init`, cards
written on disk with every kind of dated frontmatter, searched by keyword through the CLI and
the MCP tool."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import anyio
import pytest

from cardvault.context.value import card_age
from cardvault.vault.read import read_card
from tests.support import mcp
from tests.support.cli import cli_at

NOW = "2026-12-01T10:00"
#: slug -> (the frontmatter's dated lines, what its hit says of its age)
CARDS: dict[str, tuple[str, dict[str, object]]] = {
    "used": (
        "created: 2026-10-01\nupdated: 2026-11-21\nlast_used: 2026-11-30\n",
        {"age": "updated 10 days ago, last used yesterday", "age_days": 10},
    ),
    "marked": (
        "created: 2026-11-01\nstale:\n  date: 2026-11-29\n  reason: |\n    `src/a.py`   gone\n",
        {"age": "updated 30 days ago; STALE since 2026-11-29: `src/a.py` gone",
         "age_days": 30, "stale": True},
    ),
    "undated-mark": (
        "updated: 2026-12-01 08:30:00\nstale: {reason: renamed}\n",
        {"age": "updated today; STALE since ?: renamed", "age_days": 0, "stale": True},
    ),
    "future": (
        "updated: 2027-01-05\nlast_used: not a day\n", {"age": "updated today", "age_days": 0}
    ),
    "undated": ("", {"age": "never dated"}),
}  # fmt: skip


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    cli_at(tmp_path, "init", str(root), now=NOW)
    for slug, (dated, _) in CARDS.items():
        (root / "memory" / "cards" / f"{slug}.md").write_text(
            f"---\ntopic: Kettle {slug}\ncategory: tools\ntags: [kettle]\n{dated}---\n"
            f"Descale the kettle ({slug}).\n",
            encoding="utf-8",
        )
    (root / "memory" / "2026-11-30.md").write_text(
        "# 2026-11-30\n\n## 09:00 — Kettle\nThe kettle was descaled.\n", encoding="utf-8"
    )
    return root


def test_each_hit_tells_its_cards_age_as_context_does(vault: Path) -> None:
    found = cli_at(vault, "search", "kettle", "--mode", "keyword", "--logs", "--json", now=NOW)
    rows = {row["slug"]: row for row in json.loads(found)}
    today = dt.date(2026, 12, 1)
    for slug, (_, facts) in CARDS.items():
        told = {key: rows[slug][key] for key in ("age", "age_days", "stale") if key in rows[slug]}
        assert told == facts, slug
        card = read_card(vault / "memory" / "cards" / f"{slug}.md", vault)
        assert card_age(card, today) == facts["age"]
    logs = [row for row in rows.values() if row["kind"] == "log"]
    assert logs and all("age" not in row and "age_days" not in row for row in logs)


def test_an_edited_card_tells_its_new_age_from_the_next_search(vault: Path) -> None:
    cli_at(vault, "search", "kettle", "--mode", "keyword", now=NOW)
    card = vault / "memory" / "cards" / "undated.md"
    card.write_text(card.read_text().replace("tags:", "updated: 2026-11-28\ntags:"))
    found = json.loads(cli_at(vault, "search", "kettle", "--mode", "keyword", "--json", now=NOW))
    row = next(row for row in found if row["slug"] == "undated")
    assert (row["age"], row["age_days"]) == ("updated 3 days ago", 3)


def test_the_mcp_tool_tells_the_ages_the_cli_does(vault: Path) -> None:
    async def scenario() -> list[dict[str, object]]:
        async with mcp.connected(vault) as client:
            asked = {"query": "kettle", "mode": "keyword", "include_logs": True}
            return list(json.loads(mcp.text_of(await client.call_tool("search", asked)))["results"])

    said = cli_at(vault, "search", "kettle", "--mode", "keyword", "--logs", "--json", now=mcp.NOW)
    ages = ("age", "age_days", "stale")
    cli = {row["slug"]: {key: row.get(key) for key in ages} for row in json.loads(said)}
    served = {row["slug"]: {key: row.get(key) for key in ages} for row in anyio.run(scenario)}
    assert served == cli and served["marked"]["stale"] is True
