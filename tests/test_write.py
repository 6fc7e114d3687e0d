"""The writing commands through the real CLI: one commit each, atomic, safe without git."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from cardvault.edits.atomic import atomic_write
from cardvault.errors import ConcurrentEditError
from cardvault.vault.files import read_text
from tests.support.cli import git_log, run_cli, snapshot


def cli(vault: Path, *args: str, stdin: str | None = None, now: str = "2026-03-19T14:30") -> object:
    return run_cli(["--vault", str(vault), *args], input=stdin, env={"CARDVAULT_NOW": now})


def test_init_makes_a_vault_with_one_commit_and_ignored_cache(tmp_path: Path) -> None:
    result = run_cli(["init", str(tmp_path / "v")])
    assert result.exit_code == 0, result.output
    root = tmp_path / "v"
    assert git_log(root) == ["vault: init"]
    assert ".cardvault/" in (root / ".gitignore").read_text()
    for name in ("cardvault.toml", "MEMORY.md", "AGENTS.md"):
        assert (root / name).is_file()
    again = run_cli(["init", str(root)])
    assert again.exit_code == 1 and "already a vault" in again.stderr


def test_init_keeps_existing_files(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("# mine\n")
    result = run_cli(["init", str(tmp_path)])
    assert result.exit_code == 0
    assert (tmp_path / "AGENTS.md").read_text() == "# mine\n"


def test_each_writing_command_adds_exactly_one_commit(vault_path: Path) -> None:
    steps = [
        (
            (
                "new",
                "Cortex CSRF Automation",
                "-c",
                "infrastructure",
                "-t",
                "Cortex,csrf",
                "--body",
                "Cookie CORTEX-XSRF-TOKEN.",
            ),
            "card: add cortex-csrf-automation",
        ),
        (
            ("log", "Spent an hour. Lesson: send the token twice.", "--title", "Cortex CSRF"),
            "log: 2026-03-19 14:30 Cortex CSRF",
        ),
        (
            ("remember", "Bearer tokens bypass CSRF"),
            "log: 2026-03-19 14:30 Bearer tokens bypass CSRF",
        ),
    ]
    for args, subject in steps:
        before = len(git_log(vault_path))
        result = cli(vault_path, *args)
        assert result.exit_code == 0, result.output
        log = git_log(vault_path)
        assert len(log) == before + 1 and log[0] == subject
    card = (vault_path / "memory/cards/cortex-csrf-automation.md").read_text()
    assert "tags: [cortex, csrf]" in card and "created: 2026-03-19" in card
    day = (vault_path / "memory/2026-03-19.md").read_text()
    assert re.match(r"# 2026-03-19\n\n## 14:30 — Cortex CSRF <!-- id:[0-9a-f]{6} -->\n", day)
    assert "Lesson: Bearer tokens bypass CSRF" in day


def test_new_never_overwrites_a_card_with_the_same_slug(vault_path: Path) -> None:
    for body in ("first", "second"):
        assert cli(vault_path, "new", "Same Topic", "-c", "tools", "--body", body).exit_code == 0
    cards = vault_path / "memory" / "cards"
    assert "first" in (cards / "same-topic.md").read_text()
    assert "second" in (cards / "same-topic-2.md").read_text()


def test_new_reads_the_body_from_stdin(vault_path: Path) -> None:
    result = cli(vault_path, "new", "From Stdin", "-c", "tools", stdin="piped body\n")
    assert result.exit_code == 0
    assert "piped body" in (vault_path / "memory/cards/from-stdin.md").read_text()


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("new", "X", "-c", "snacks", "--body", "b"), "unknown category 'snacks'"),
        (("new", "X", "-c", "tools", "--body", "  "), "needs a body"),
        (("log", "  "), "nothing to log"),
    ],
)
def test_bad_writes_fail_clearly_and_change_nothing(
    vault_path: Path, args: tuple[str, ...], fragment: str
) -> None:
    before, log = snapshot(vault_path), git_log(vault_path)
    result = cli(vault_path, *args)
    assert result.exit_code == 1 and fragment in result.stderr
    assert snapshot(vault_path) == before and git_log(vault_path) == log


def test_appending_keeps_the_log_prefix_byte_identical(vault_path: Path) -> None:
    cli(vault_path, "log", "first", now="2026-03-19T09:00")
    path = vault_path / "memory/2026-03-19.md"
    first = path.read_bytes()
    cli(vault_path, "log", "second", now="2026-03-19T10:00")
    assert path.read_bytes().startswith(first)


def test_concurrent_edit_between_read_and_write_is_refused(vault_path: Path) -> None:
    path = vault_path / "MEMORY.md"
    seen = read_text(path, vault_path)
    path.write_text(seen.text + "edited in an editor meanwhile\n")
    with pytest.raises(ConcurrentEditError):
        atomic_write(path, "cardvault's version\n", seen.digest)
    assert path.read_text().endswith("edited in an editor meanwhile\n")
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_vault_without_git_still_works(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    assert run_cli(["init", str(root)]).exit_code == 0
    subprocess.run(["rm", "-rf", str(root / ".git")], check=True)
    result = cli(root, "new", "No Git", "-c", "tools", "--body", "still written")
    assert result.exit_code == 0
    assert "not a git repository" in result.stderr
    assert (root / "memory/cards/no-git.md").is_file()


def test_commits_use_a_default_identity_when_git_has_none(vault_path: Path) -> None:
    cli(vault_path, "log", "hello")
    author = subprocess.run(
        ["git", "-C", str(vault_path), "log", "-1", "--format=%an <%ae>"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert author == "cardvault <cardvault@localhost>"


def test_check_fix_repairs_mechanical_problems_in_one_commit(vault_path: Path) -> None:
    card = vault_path / "memory/cards/messy.md"
    card.write_bytes(
        b"---\r\ntopic: Messy\r\ncategory: tools\r\ntags: [Big Tag, ok]\r\ncreated: 2026-01-01\r\n"
        b"updated: 2026-01-01\r\n---\r\nbody"
    )
    subprocess.run(["git", "-C", str(vault_path), "add", "-A"], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(vault_path),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "hand",
        ],
        check=True,
    )
    result = cli(vault_path, "check", "--fix")
    assert result.exit_code == 0, result.output
    assert card.read_bytes() == (
        b"---\ntopic: Messy\ncategory: tools\ntags: [big-tag, ok]\ncreated: 2026-01-01\n"
        b"updated: 2026-01-01\n---\nbody\n"
    )
    assert git_log(vault_path)[0] == "check: fix 1 file(s)"


def test_list_filters_and_json(vault_path: Path) -> None:
    cli(vault_path, "new", "Alpha", "-c", "tools", "-t", "x", "--body", "a")
    cli(vault_path, "new", "Beta", "-c", "security", "-t", "y", "--body", "b")
    import json

    rows = json.loads(cli(vault_path, "list", "--json", "--category", "security").stdout)
    assert [r["slug"] for r in rows] == ["beta"]
    rows = json.loads(cli(vault_path, "list", "--tag", "x").stdout)
    assert [r["slug"] for r in rows] == ["alpha"]


def test_discovery_walks_up_and_honours_the_env_var(vault_path: Path, tmp_path: Path) -> None:
    from cardvault.errors import VaultNotFoundError
    from cardvault.vault.layout import find_vault

    deep = vault_path / "memory" / "cards"
    assert find_vault(cwd=deep, env={}).root == vault_path.resolve()
    assert (
        find_vault(env={"CARDVAULT_VAULT": str(vault_path)}, cwd=tmp_path).root
        == vault_path.resolve()
    )
    with pytest.raises(VaultNotFoundError):
        find_vault(env={}, cwd=tmp_path)


def test_init_sets_up_the_merge_drivers_and_an_old_vault_gets_them(tmp_path: Path) -> None:
    root = tmp_path / "v"
    assert run_cli(["init", str(root)]).exit_code == 0
    assert "merge=cardvault-log" in (root / ".gitattributes").read_text(encoding="utf-8")
    config = subprocess.run(["git", "-C", str(root), "config", "--get-regexp", "merge"],
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "cardvault.sync.driver card %O %A %B %P" in config
    (root / ".gitattributes").unlink()  # an older vault, without them
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-qam", "old"], check=True)  # fmt: skip
    assert cli(root, "log", "a note").exit_code == 0  # type: ignore[attr-defined]
    assert git_log(root)[:2] == [
        "log: 2026-03-19 14:30 a note",
        "vault: merge cardvault's files with its git merge drivers",
    ]


def test_commits_use_the_configured_identity_and_never_a_guessed_one(vault_path: Path) -> None:
    subprocess.run(["git", "-C", str(vault_path), "config", "user.name", "Ada"], check=True)
    assert cli(vault_path, "log", "by Ada").exit_code == 0  # type: ignore[attr-defined]
    author = subprocess.run(
        ["git", "-C", str(vault_path), "log", "-1", "--format=%an <%ae>"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert author == "Ada <cardvault@localhost>"  # the name set, the missing email cardvault's
