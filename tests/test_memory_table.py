"""MEMORY.md's categories table follows the cards from the first one: every command that adds,
renames, removes or imports cards leaves the table matching them, in the card change's own
commit, and never touches the file's hand-written parts (edits/derived.py)."""

from __future__ import annotations

import json
from pathlib import Path

from cardvault import history
from cardvault.vault.layout import open_vault_at
from cardvault.vault.memory_table import SECTION
from cardvault.vault.sections import get_section
from tests.support.cli import run_cli
from tests.support.maintain import assert_memory_table_current, git


def table(root: Path) -> str:
    return get_section((root / "MEMORY.md").read_text(encoding="utf-8"), SECTION) or ""


def in_head(root: Path) -> list[str]:
    return git(root, "show", "--name-only", "--format=", "HEAD").split()


def cli(root: Path, *args: str) -> str:
    result = run_cli(["--vault", str(root), *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_first_card_is_in_the_table_in_its_own_commit(vault_path: Path) -> None:
    memory = vault_path / "MEMORY.md"
    text = memory.read_text(encoding="utf-8").replace("## Identity", "## Identity\nI am Ada.")
    memory.write_text(text, encoding="utf-8")
    history.commit(open_vault_at(vault_path), "identity", [memory])
    assert "_No cards yet._" in table(vault_path)
    cli(vault_path, "new", "Cortex CSRF", "-c", "infrastructure", "--body", "Send it twice.")
    assert "[Cortex CSRF](memory/cards/cortex-csrf.md)" in table(vault_path)
    assert sorted(in_head(vault_path)) == ["MEMORY.md", "memory/cards/cortex-csrf.md"]
    assert git(vault_path, "status", "--porcelain") == ""
    after = memory.read_text(encoding="utf-8")
    assert after.split("<!-- cardvault:begin")[0] == text.split("<!-- cardvault:begin")[0]
    assert (
        after.split("<!-- cardvault:end categories -->")[1]
        == (text.split("<!-- cardvault:end categories -->")[1])
    )
    assert_memory_table_current(vault_path)
    # a log entry touches no card: MEMORY.md stays out of its commit
    cli(vault_path, "log", "Nothing about cards.")
    assert "MEMORY.md" not in in_head(vault_path)


def test_an_imported_folder_of_notes_is_in_the_table(vault_path: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    for name in ("deploys", "backups", "on-call"):
        (notes / f"{name}.md").write_text(f"# {name.title()}\n\nWhat we know of {name}.\n")
    cli(vault_path, "import", str(notes))
    for name in ("deploys", "backups", "on-call"):
        assert f"/{name}.md)" in table(vault_path), table(vault_path)
    assert "MEMORY.md" in in_head(vault_path)
    assert git(vault_path, "status", "--porcelain") == ""
    assert_memory_table_current(vault_path)


def test_forget_and_rename_keep_the_table_true(vault_path: Path) -> None:
    for topic in ("Redis Eviction", "Redis Persistence"):
        cli(vault_path, "new", topic, "-c", "infrastructure", "--body", f"{topic} notes.")
    cli(vault_path, "rename", "redis-eviction", "redis-maxmemory")
    assert "memory/cards/redis-maxmemory.md)" in table(vault_path)
    assert "redis-eviction.md" not in table(vault_path)
    assert "MEMORY.md" in in_head(vault_path)
    cli(vault_path, "forget", "redis-persistence", "--yes")
    assert "redis-persistence" not in table(vault_path)
    assert_memory_table_current(vault_path)


def test_maintain_leaves_a_current_table_alone(vault_path: Path) -> None:
    cli(vault_path, "new", "Cortex CSRF", "-c", "infrastructure", "--body", "Send it twice.")
    done = json.loads(cli(vault_path, "maintain", "--json", "--only", "index"))
    assert not done.get("commit"), done
    assert_memory_table_current(vault_path)
