"""An agent workspace (OpenClaw, Clawdbot) adopted by `init` and read by `import`: its dated
daily logs stay logs wherever it keeps them (memory/, memory/archive/), its notes become cards.
The workspace is tests/fixtures/workspace/ (real logs, see SOURCE.txt there) with agent files
and note folders added around it."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from cardvault import history
from cardvault.vault.card import parse_card
from cardvault.vault.daily import parse_log
from cardvault.vault.layout import open_vault_at
from cardvault.vault.lognames import is_log_path, log_day
from tests.support.cli import REPO, git_log, run_cli

FIXTURE = REPO / "tests" / "fixtures" / "workspace"
NOW = {"CARDVAULT_NOW": "2026-11-30T09:15"}
MEMORY = "# MEMORY.md\n\nThe agent's own long-term memory: the user prefers terse answers.\n"
AGENTS = "# AGENTS.md\n\n## Every session\n\nRead MEMORY.md and today's log first.\n"
OLD_LOG = "# 2026-01-10\n\n## 10:00 — Standup\nThe zebrafish pipeline replays from the outbox.\n"
NOTES = {
    "memory/lessons/pin-images.md": "# Pin base images\n\nPin the base image by digest.\n",
    "decisions/sqlite-index.md": "# Use SQLite for the index\n\nOne file, no server to run.\n",
    "knowledge/cortex.md": "# Cortex CSRF\n\nCortex wants the token as cookie and header.\n",
}
#: An archived card whose slug begins with a date: a card, not a log.
ARCHIVED_CARD = (
    "---\ntopic: Release 2026-05-21\ncategory: projects\ntags: [release]\n"
    "created: 2026-05-21\nupdated: 2026-05-21\nstatus: archived\n---\nShipped 1.4.\n"
)


def workspace(tmp_path: Path) -> Path:
    """The fixture workspace, with its agent files, an old log and notes in memory/lessons/,
    decisions/ and knowledge/."""
    root = Path(shutil.copytree(FIXTURE, tmp_path / "workspace"))
    files = {
        "MEMORY.md": MEMORY,
        "AGENTS.md": AGENTS,
        "HEARTBEAT.md": "# HEARTBEAT.md\n\nCheck the queue every hour.\n",
        "memory/archive/2026-01-10.md": OLD_LOG,
        "memory/archive/2026-05-21-release.md": ARCHIVED_CARD,
        **NOTES,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def cli(root: Path, *args: str) -> Any:
    """`cardvault --vault ROOT ARGS --json`, parsed."""
    result = run_cli(["--vault", str(root), *args, "--json"], env=NOW)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def errors(root: Path) -> list[dict[str, Any]]:
    return [f for f in cli(root, "check") if f["severity"] == "error"]


@pytest.mark.parametrize(
    ("name", "day"),
    [
        ("2026-03-19.md", "2026-03-19"),
        ("2026-03-19-key-development-2.md", "2026-03-19"),
        ("2026-02-15_AUDIT_FINDINGS.md", "2026-02-15"),
        ("documentation-work-2026-03-21.md", "2026-03-21"),
        ("systems_synthesis_20260203.md", "2026-02-03"),
        ("night-synthesis.md", None),
        ("research-2026.md", None),
        ("2026-02-30.md", None),  # shaped like a log (check names it), but no real day
    ],
)
def test_a_log_is_named_by_its_day(name: str, day: str | None) -> None:
    assert log_day(name) == (dt.date.fromisoformat(day) if day else None)


def test_where_a_dated_file_is_a_log() -> None:
    assert is_log_path("memory/2026-02-15_AUDIT_FINDINGS.md")
    assert is_log_path("memory/archive/2026-01/2026-01-10.md", "# 2026-01-10\n")
    assert not is_log_path("memory/archive/2026-05-21-release.md", "---\ntopic: x\n")
    assert not is_log_path("memory/cards/2026-05-21-release.md")
    assert not is_log_path("memory/lessons/2026-05-21.md")
    assert not is_log_path("memory/archive/../2026-05-21.md")


def test_init_adopts_a_workspace(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    result = run_cli(["init", str(root)], env=NOW)
    assert result.exit_code == 0, result.output
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == MEMORY
    assert (root / "AGENTS.md").read_text(encoding="utf-8") == AGENTS
    said = " ".join(result.stderr.split())
    assert "adopted an agent workspace: its 4 daily log(s) (2 in memory/archive/)" in said
    assert (
        "4 Markdown file(s) (an agent workspace's notes) in decisions/, knowledge/, memory/, "
        "memory/lessons/" in said
    )
    command = f"cardvault --vault {root} import {root}"
    assert command in said
    assert git_log(root) == ["vault: init"]

    assert errors(root) == []
    logs = cli(root, "stats")["logs"]
    assert (logs["days"], logs["first_day"], logs["last_day"]) == (4, "2026-01-10", "2026-02-18")
    found = cli(root, "search", "zebrafish", "--logs", "--mode", "keyword")
    assert [(hit["path"], hit["source"]) for hit in found] == [
        ("memory/archive/2026-01-10.md", "memory/archive/2026-01-10.md#10:00")
    ]
    archived = cli(root, "list", "--archived")
    assert [card["path"] for card in archived] == ["memory/archive/2026-05-21-release.md"]

    outcome = cli(root, "import", str(root))  # the command init printed
    made = {card["note"]: card["card"] for card in outcome["cards"]}
    assert sorted(made) == sorted([*NOTES, "memory/SHAKTI_NIGHT_LOG.md"])
    for note, card in made.items():
        source = (root / note).read_text(encoding="utf-8")
        assert parse_card((root / card).read_text(encoding="utf-8"), root / card).body == source
    assert outcome["counts"]["logs"] == 0  # its own logs are the vault's already
    assert errors(root) == []


def test_import_of_a_workspace_keeps_its_logs_as_logs(vault_path: Path, tmp_path: Path) -> None:
    source = workspace(tmp_path)
    (source / "memory" / "2026-03-01.md").write_text(
        "# 2026-03-01\n\n## 08:00 — Deploy\nLesson: pin the base image.\n", encoding="utf-8"
    )
    mine = "# 2026-03-01\n\n## 07:00 — Standup\nThe vault's own entry.\n"
    (vault_path / "memory" / "2026-03-01.md").write_text(mine, encoding="utf-8")
    own_day = "# 2026-02-05\n\n## 09:00 — Mine\nAn entry the vault had.\n"
    (vault_path / "memory" / "2026-02-05.md").write_text(own_day, encoding="utf-8")
    history.commit(open_vault_at(vault_path), "own logs")

    outcome = cli(vault_path, "import", str(source))
    assert outcome["kind"] == "agent-workspace"
    assert outcome["counts"]["logs"] == 5
    for rel in ("memory/2026-02-18.md", "memory/archive/2026-02-06.md", OLD_LOG_REL):
        assert (vault_path / rel).read_bytes() == (source / rel).read_bytes()
    merged = (vault_path / "memory" / "2026-02-05.md").read_text(encoding="utf-8")
    theirs = (source / "memory" / "2026-02-05.md").read_text(encoding="utf-8")
    assert merged.startswith(own_day)  # neither loses a line (an appended entry gets its id)
    kept = {re.sub(r" <!-- id:[0-9a-f]+ -->$", "", line) for line in merged.splitlines()}
    assert [line for line in theirs.splitlines() if line not in kept] == []
    day = vault_path / "memory" / "2026-03-01.md"
    entries = parse_log(day.read_text(encoding="utf-8"), day, ["lesson"])
    assert [(e.time, e.title) for e in entries] == [("07:00", "Standup"), ("08:00", "Deploy")]
    cards = [c["note"] for c in outcome["cards"]]
    assert not [n for n in cards if is_log_path(n, (source / n).read_text(encoding="utf-8"))]
    assert "memory/SHAKTI_NIGHT_LOG.md" in cards
    assert errors(vault_path) == []

    again = cli(vault_path, "import", str(source))
    assert again["commit"] is None and again["counts"]["logs"] == 0


OLD_LOG_REL = "memory/archive/2026-01-10.md"
