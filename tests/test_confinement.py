"""Every read and write stays inside the vault, on real files only (vault/confine.py).

A real vault (real git) is planted with what a hostile clone may hold: today's log a symlink to
`../.git/config` (whose remote URL carries a planted credential), a card and a log that are
symlinks to files outside, a card folder that is a symlink outside and one that loops back on
itself, an archived card linked to `.git/config`, a hot memory linked outside, a FIFO named like
a card. Then every read command, the writers, the Python API and the MCP tools run on it: none
shows, indexes, exports, commits or appends to what lies behind a symlink, every read command
still works, and `check` names each refused path at `path:line`.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

from cardvault.edits.apply import apply_changes
from cardvault.edits.changes import WriteFile
from cardvault.errors import UnsafePathError
from cardvault.vault.files import ABSENT
from cardvault.vault.layout import open_vault_at
from tests.support.cli import run_cli
from tests.support.hostile import hang_guard

NOW = "2026-11-30T09:00"
TODAY = "memory/2026-11-30.md"
#: Planted in the clone's .git/config (a basic-auth remote URL, as `git clone` of such a URL
#: leaves it); must never be read, shown, indexed or committed.
CREDENTIAL = "alice:canary-token-7f3a91"
#: In every file outside the vault a symlink points at.
OUTSIDE = "outside-canary-5d1e"
CARD = (
    "---\ntopic: {topic}\ncategory: tools\ntags: [x]\ncreated: 2026-01-01\nupdated: 2026-01-01\n"
    "---\n{body}\n"
)


@dataclass(frozen=True)
class Planted:
    root: Path
    outside: Path

    def cli(self, *args: str, stdin: str | None = None):  # type: ignore[no-untyped-def]
        with hang_guard():
            return run_cli(
                ["--vault", str(self.root), *args], input=stdin, env={"CARDVAULT_NOW": NOW}
            )


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    ).stdout


def plant(tmp_path: Path) -> Planted:
    """A vault with a good card and a good log, and every symlink trap beside them."""
    from cardvault.app.vaults import init_vault

    root = tmp_path / "vault"
    init_vault(root)
    git(root, "remote", "add", "origin", f"https://{CREDENTIAL}@git.example.com/team/vault.git")
    outside = tmp_path / "outside"
    (outside / "notes").mkdir(parents=True)
    secret_card = CARD.format(topic="Leaked notes", body=f"Lesson: {OUTSIDE} in a card")
    (outside / "secret.md").write_text(secret_card)
    (outside / "notes" / "far.md").write_text(secret_card)
    (outside / "log.md").write_text(f"# 2026-11-29\n\n## 10:00 — Lesson: {OUTSIDE}\nLesson: x\n")
    cards, memory = root / "memory" / "cards", root / "memory"
    (cards / "good-card.md").write_text(CARD.format(topic="Good card", body="Pin base images."))
    (memory / "2026-11-28.md").write_text("# 2026-11-28\n\n## 10:00 — Real\nLesson: keep me\n")
    (memory / "2026-11-30.md").symlink_to("../.git/config")
    (memory / "2026-11-29.md").symlink_to(outside / "log.md")
    (cards / "leak.md").symlink_to(outside / "secret.md")
    (cards / "ext").symlink_to(outside / "notes", target_is_directory=True)
    (cards / "loop").symlink_to("../cards", target_is_directory=True)
    (cards / "alias.md").symlink_to("good-card.md")
    (root / "memory" / "archive").mkdir(exist_ok=True)
    (root / "memory" / "archive" / "old.md").symlink_to("../../.git/config")
    (root / "memory" / "agents").mkdir()
    (root / "memory" / "agents" / "bob.md").symlink_to(outside / "secret.md")
    git(root, "add", "-A")
    git(root, "-c", "user.name=Mallory", "-c", "user.email=m@example.com", "commit", "-qm", "hi")
    os.mkfifo(cards / "fifo.md")  # git keeps no FIFO: one made after the clone
    return Planted(root, outside)


@pytest.fixture
def planted(tmp_path: Path) -> Planted:
    return plant(tmp_path)


def leaks(text: str) -> list[str]:
    return [canary for canary in (CREDENTIAL, "canary-token-7f3a91", OUTSIDE) if canary in text]


READS = (
    ("check",),
    ("check", "--json"),
    ("list",),
    ("list", "--json"),
    ("list", "--archived"),
    ("stats",),
    ("graph",),
    ("search", "--mode", "keyword", "canary"),
    ("search", "--mode", "keyword", "--logs", "canary lesson"),
    ("context",),
    ("context", "--task", "leaked notes canary", "--format", "json"),
    ("context", "--agent", "bob"),
    ("export", "-", "--logs"),
    ("show", "good-card"),
    ("show", "leak"),
    ("show", "alias"),
    ("maintain", "--dry-run"),
)


def test_every_read_command_works_and_reads_nothing_behind_a_symlink(planted: Planted) -> None:
    for args in READS:
        result = planted.cli(*args)
        shown = result.output
        assert result.exit_code in (0, 1), (args, shown)
        assert result.exception is None or isinstance(result.exception, SystemExit), (args, shown)
        assert leaks(shown) == [], (args, shown)
    listed = json.loads(planted.cli("list", "--json").stdout)
    assert [card["slug"] for card in listed] == ["good-card"]


def test_check_names_each_refused_path_at_its_line(planted: Planted) -> None:
    result = planted.cli("check", "--json")
    found = {f["path"]: f for f in json.loads(result.stdout)}
    outside = {"memory/2026-11-30.md", "memory/2026-11-29.md", "memory/cards/leak.md",
               "memory/cards/ext", "memory/archive/old.md", "memory/agents/bob.md"}  # fmt: skip
    for rel in outside:
        assert found[rel]["code"] == "outside-vault" and found[rel]["line"] == 1, rel
        assert "symlink" in found[rel]["message"]
    assert found["memory/cards/loop"]["code"] == "symlink"
    assert found["memory/cards/alias.md"]["code"] == "symlink"
    assert found["memory/cards/fifo.md"]["code"] == "not-a-file"
    text = planted.cli("check").stdout
    assert "memory/2026-11-30.md:1: error: is a symlink (to ../.git/config, outside the vault)" in (
        text
    )


def test_remember_and_log_refuse_a_log_linked_to_git_config(planted: Planted) -> None:
    config = (planted.root / ".git" / "config").read_bytes()
    head = git(planted.root, "rev-parse", "HEAD")
    for args in (("remember", "pin the base image"), ("log", "a note"), ("log", "-")):
        result = planted.cli(*args, stdin="piped note\n")
        assert result.exit_code == 1, (args, result.output)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and TODAY in lines[0] and "symlink" in lines[0], lines
        assert leaks(result.output) == []
    assert (planted.root / ".git" / "config").read_bytes() == config
    assert (planted.root / TODAY).is_symlink()
    assert git(planted.root, "rev-parse", "HEAD") == head
    assert leaks(git(planted.root, "log", "-p", "--all")) == []


def test_writers_that_succeed_commit_nothing_from_outside(planted: Planted) -> None:
    assert planted.cli("new", "Fresh card", "-c", "tools", "--body", "A real note.").exit_code == 0
    assert planted.cli("maintain").exit_code in (0, 1)
    planted.cli("forget", "--yes", "leaked notes")
    planted.cli("check", "--fix")
    history = git(planted.root, "log", "-p", "--all")
    assert leaks(history) == [] and "Fresh card" in history
    assert (planted.outside / "secret.md").read_text().count(OUTSIDE) == 1
    assert sorted(p.name for p in (planted.outside / "notes").iterdir()) == ["far.md"]
    for path in (planted.root / ".cardvault").rglob("*"):
        if path.is_file():
            assert leaks(path.read_bytes().decode("utf-8", "replace")) == [], path


def test_the_search_index_and_the_api_hold_nothing_from_outside(planted: Planted) -> None:
    from cardvault import open_vault

    with open_vault(planted.root) as handle:
        handle.index()
        hits = handle.search("canary leaked notes lesson", mode="keyword", logs=True, archived=True)
    assert {hit.path for hit in hits} <= {"memory/cards/good-card.md", "memory/2026-11-28.md"}
    assert all(leaks(json.dumps(hit.to_dict())) == [] for hit in hits)


def test_a_write_through_a_symlinked_folder_or_into_git_is_refused(planted: Planted) -> None:
    vault = open_vault_at(planted.root)
    targets = (
        planted.root / "memory" / "cards" / "ext" / "new.md",  # folder linked outside
        planted.root / "memory" / "cards" / "loop" / "new.md",  # folder linked back inside
        planted.root / ".git" / "hooks" / "post-commit",
        planted.root / ".GIT" / "config",
        planted.root / "memory" / ".." / ".git" / "config",
        planted.root / "memory" / "cards" / "alias.md",  # a symlink to a card
    )
    for target in targets:
        with pytest.raises(UnsafePathError):
            apply_changes(vault, [WriteFile(target, "planted\n", ABSENT, "escape")])
    assert not (planted.root / ".git" / "hooks" / "post-commit").exists()
    assert sorted(p.name for p in (planted.outside / "notes").iterdir()) == ["far.md"]


def test_new_refuses_a_cards_folder_that_is_a_symlink(tmp_path: Path) -> None:
    from cardvault.app.vaults import init_vault

    root = tmp_path / "vault"
    init_vault(root)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cards = root / "memory" / "cards"
    for child in cards.iterdir():
        child.unlink()
    cards.rmdir()
    cards.symlink_to(elsewhere, target_is_directory=True)
    result = run_cli(["--vault", str(root), "new", "Card", "-c", "tools", "--body", "text"])
    assert result.exit_code == 1 and "symlink" in result.stderr
    assert list(elsewhere.iterdir()) == []


def test_a_loop_and_a_fifo_never_stop_the_other_files(tmp_path: Path) -> None:
    from cardvault.app.vaults import init_vault

    root = tmp_path / "vault"
    init_vault(root)
    cards = root / "memory" / "cards"
    (cards / "kept.md").write_text(CARD.format(topic="Kept", body="Still here."))
    (cards / "sub").symlink_to("../cards", target_is_directory=True)
    (cards / "deeper").mkdir()
    (cards / "deeper" / "back").symlink_to("..", target_is_directory=True)
    os.mkfifo(root / "memory" / "2026-11-30.md")

    def cli(*args: str):  # type: ignore[no-untyped-def]
        with hang_guard():
            return run_cli(["--vault", str(root), *args], env={"CARDVAULT_NOW": NOW})

    assert [c["slug"] for c in json.loads(cli("list", "--json").stdout)] == ["kept"]
    found = {(f["path"], f["code"]) for f in json.loads(cli("check", "--json").stdout)}
    assert {("memory/cards/sub", "symlink"), ("memory/cards/deeper/back", "symlink")} <= found
    assert ("memory/2026-11-30.md", "not-a-file") in found
    assert "Still here." in cli("context").stdout
    assert cli("stats").exit_code == 0
    with hang_guard():
        logged = run_cli(["--vault", str(root), "log", "note"], env={"CARDVAULT_NOW": NOW})
    assert logged.exit_code == 1 and "not a regular file" in logged.stderr


@pytest.mark.permissions
def test_an_unreadable_folder_is_reported_and_skipped(tmp_path: Path) -> None:
    from cardvault.app.vaults import init_vault

    root = tmp_path / "vault"
    init_vault(root)
    cards = root / "memory" / "cards"
    (cards / "kept.md").write_text(CARD.format(topic="Kept", body="Still here."))
    (cards / "locked").mkdir()
    (cards / "locked").chmod(0)
    try:
        found = json.loads(run_cli(["--vault", str(root), "check", "--json"]).stdout)
        listed = json.loads(run_cli(["--vault", str(root), "list", "--json"]).stdout)
    finally:
        (cards / "locked").chmod(0o755)
    assert any(f["path"] == "memory/cards/locked" and f["code"] == "unreadable" for f in found)
    assert [card["slug"] for card in listed] == ["kept"]


def test_mcp_tools_read_and_write_nothing_behind_a_symlink(planted: Planted) -> None:
    from mcp.shared.exceptions import MCPError

    from tests.support.mcp import connected, text_of

    head = git(planted.root, "rev-parse", "HEAD")

    async def scenario() -> None:
        async with connected(planted.root) as client:
            for name in ("leak", "memory/cards/leak.md", "alias", "today", "2026-11-29", "old"):
                result = await client.call_tool("read", {"name": name})
                assert result.is_error, name
                assert leaks(text_of(result)) == [], name
            for tool, args in (("remember", {"text": "x"}), ("log", {"text": "y"})):
                result = await client.call_tool(tool, args)
                assert result.is_error and "symlink" in text_of(result)
            pack = await client.call_tool("context", {"task": "leaked notes", "scope": "project"})
            assert leaks(text_of(pack)) == [] and "good-card" in text_of(pack)
            found = await client.call_tool(
                "search", {"query": "canary", "mode": "keyword", "include_logs": True}
            )
            assert leaks(json.dumps(found.structured_content)) == []
            for uri in ("cardvault://logs/2026-11-30", "cardvault://cards/leak"):
                with pytest.raises(MCPError) as refused:
                    await client.read_resource(uri)
                assert leaks(str(refused.value)) == []

    anyio.run(scenario)
    assert git(planted.root, "rev-parse", "HEAD") == head
