"""Bounded at every door: `[write] max_entry_bytes` on every write, the 1 MB a vault file may
hold, import reading at most its limit from anything, export never writing inside the vault,
and a log already too big degrading to its first entries instead of vanishing.

Real vaults and git, the real CLI (typer's runner; subprocesses where a device, a pipe or peak
memory is the point), the real MCP server over stdio.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import pytest

from cardvault.errors import ConfigError
from cardvault.vault.config import parse_config
from tests.support.cli import git_log, run_cli
from tests.support.machine import scaled
from tests.support.mcp import peak_mb

NOW = "2026-11-30T09:00"
LOG = "memory/2026-11-30.md"
PY = sys.executable
SETTING = "[write] max_entry_bytes"


def cli(root: Path, *args: str, stdin: str | None = None):  # type: ignore[no-untyped-def]
    return run_cli(["--vault", str(root), *args], input=stdin, env={"CARDVAULT_NOW": NOW})


def refused_once(result) -> str:  # type: ignore[no-untyped-def]
    """The one error line of a refused command."""
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_one_huge_log_is_refused_and_the_day_goes_on(vault_path: Path) -> None:
    before = git_log(vault_path)
    message = refused_once(cli(vault_path, "log", "-", stdin="x" * 1_500_000))
    assert "over the limit of 65,536 bytes" in message and SETTING in message
    assert not (vault_path / LOG).exists() and git_log(vault_path) == before
    assert cli(vault_path, "log", "the next note").exit_code == 0
    assert cli(vault_path, "remember", "and a lesson").exit_code == 0
    assert len(git_log(vault_path)) == len(before) + 2


@pytest.mark.parametrize(
    "args",
    [
        ("remember", "y" * 70_000),
        ("log", "z" * 70_000),
        ("log", "--title", "t" * 70_000, "short"),
        ("new", "Big card", "-c", "tools", "--body", "w" * 70_000),
        ("new", "Big card", "-c", "tools", "--body", "-"),
    ],
)
def test_every_writing_command_refuses_text_over_the_limit(
    vault_path: Path, args: tuple[str, ...]
) -> None:
    before = git_log(vault_path)
    message = refused_once(cli(vault_path, *args, stdin="v" * 70_000))
    assert "65,536" in message and SETTING in message
    assert git_log(vault_path) == before


def test_the_limit_is_a_setting_with_a_ceiling(vault_path: Path) -> None:
    config = vault_path / "cardvault.toml"
    config.write_text(
        config.read_text().replace("max_entry_bytes = 65536", "max_entry_bytes = 100")
    )
    assert "over the limit of 100 bytes" in refused_once(cli(vault_path, "log", "n" * 101))
    assert cli(vault_path, "log", "n" * 90).exit_code == 0
    for bad in (0, -1, 2_000_000):
        with pytest.raises(ConfigError, match="max_entry_bytes"):
            parse_config({"write": {"max_entry_bytes": bad}})


def test_a_capture_of_a_huge_failure_is_cut_to_fit_and_logged(vault_path: Path) -> None:
    script = "import sys; sys.stderr.write('E' * 300000 + '\\nError: boom\\n'); sys.exit(2)"
    done = subprocess.run(
        [PY, "-m", "cardvault", "--vault", str(vault_path), "capture", "--", PY, "-c", script],
        capture_output=True, text=True, env={**os.environ, "CARDVAULT_NOW": NOW},
        timeout=scaled(120),
    )  # fmt: skip
    assert done.returncode == 2 and "failure logged" in done.stderr
    text = (vault_path / LOG).read_text()
    assert len(text.encode()) < 65_536 and "characters cut)" in text


def test_mcp_writes_over_the_limit_are_tool_errors(vault_path: Path) -> None:
    from tests.support.mcp import connected, text_of

    before = git_log(vault_path)

    async def scenario() -> None:
        async with connected(vault_path) as client:
            for tool, args in (
                ("remember", {"text": "r" * 70_000}),
                ("log", {"text": "l" * 70_000}),
                ("new_card", {"topic": "Big", "category": "tools", "body": "b" * 70_000}),
            ):
                result = await client.call_tool(tool, args)
                assert result.is_error and SETTING in text_of(result), tool
            assert not (await client.call_tool("remember", {"text": "small"})).is_error

    anyio.run(scenario)
    assert len(git_log(vault_path)) == len(before) + 1


def test_a_log_too_big_to_read_keeps_its_first_entries(vault_path: Path) -> None:
    early = "# 2026-11-29\n\n## 08:00 — Early\nLesson: rotate the deploy keys quarterly\n\n"
    huge = "## 09:00 — Dump\n" + ("filler line of a pasted dump\n" * 40_000)
    (vault_path / "memory" / "2026-11-29.md").write_text(early + huge + "## 10:00 — Late\nx\n")
    found = json.loads(cli(vault_path, "check", "--json").stdout)
    big = [f for f in found if f["code"] == "too-big"]
    assert len(big) == 1 and big[0]["path"] == "memory/2026-11-29.md" and big[0]["line"] == 6
    hits = cli(vault_path, "search", "--mode", "keyword", "--logs", "--json", "deploy keys")
    assert "memory/2026-11-29.md" in hits.stdout
    assert "rotate-the-deploy-keys-quarterly" in cli(vault_path, "maintain", "--dry-run").stdout
    exported = cli(vault_path, "export", "-", "--logs")
    assert "2026-11-29" not in json.dumps(json.loads(exported.stdout)["logs"])
    assert "not exported: memory/2026-11-29.md" in exported.stderr


def test_no_write_makes_a_file_the_reader_would_refuse(vault_path: Path) -> None:
    body = "## 08:00 — Notes\n" + "a line of notes\n" * 62_000  # ~ 990 KB
    (vault_path / LOG).write_text("# 2026-11-30\n\n" + body)
    before = (vault_path / LOG).read_bytes()
    message = refused_once(cli(vault_path, "log", "q" * 20_000))
    assert LOG in message and "over the 1,000,000 bytes a vault file may hold" in message
    assert (vault_path / LOG).read_bytes() == before


def wait_with_peak(proc: subprocess.Popen[bytes], timeout: float) -> tuple[int, float]:
    """The exit code of `proc` and its peak memory in MB, from its VmHWM in /proc read until it
    ends (rusage would count the parent's pages the child held between fork and exec)."""
    deadline, peak = time.monotonic() + timeout, 0.0
    while proc.poll() is None:
        peak = max(peak, peak_mb(proc.pid))
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"still running after {timeout} s")
        time.sleep(0.01)
    return proc.returncode, peak


def test_import_reads_at_most_its_limit_from_a_device_or_a_pipe(vault_path: Path) -> None:
    command = [PY, "-m", "cardvault", "--vault", str(vault_path), "import"]
    zero = subprocess.run(
        [*command, "/dev/zero"], capture_output=True, text=True, timeout=scaled(120)
    )
    assert zero.returncode == 1
    assert zero.stderr.strip() == "error: /dev/zero:1: not an export: binary data (NUL byte)"
    piped = subprocess.Popen(
        [*command, "/dev/stdin"], stdin=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert piped.stdin is not None and piped.stderr is not None

    def feed() -> None:
        try:
            while True:
                piped.stdin.write(b"[" * (1 << 20))  # endless, never NUL: only the limit stops it
        except (BrokenPipeError, ValueError, OSError):
            pass

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    code, peak = wait_with_peak(piped, scaled(300))
    feeder.join(timeout=scaled(60))
    piped.stdin.close()
    with piped.stderr:
        said = piped.stderr.read()
    assert code == 1
    assert b"over the 128,000,000-byte limit (stopped reading)" in said
    assert peak < 500  # a correctness bound: the stream is never kept whole


def test_import_refuses_cards_over_the_limit(vault_path: Path, tmp_path: Path) -> None:
    card = (
        "---\ntopic: Big\ncategory: tools\ntags: [x]\ncreated: 2026-01-01\nupdated: 2026-01-01\n"
        "---\n" + "b" * 70_000 + "\n"
    )
    export = tmp_path / "export.json"
    export.write_text(
        json.dumps({"format": "cardvault-export", "version": 1, "exported": "2026-11-30",
                    "cards": [{"path": "memory/cards/big.md", "text": card}], "rules": []})
    )  # fmt: skip
    result = cli(vault_path, "import", str(export))
    assert result.exit_code == 1 and SETTING in result.stderr
    assert not (vault_path / "memory" / "cards" / "big.md").exists()


def test_export_never_writes_inside_the_vault(vault_path: Path, tmp_path: Path) -> None:
    assert cli(vault_path, "new", "Keep me", "-c", "tools", "--body", "Precious.").exit_code == 0
    card = vault_path / "memory" / "cards" / "keep-me.md"
    before = card.read_bytes()
    link = tmp_path / "looks-outside.json"
    link.symlink_to(card)
    for target in (card, vault_path / "export.json", vault_path / "memory" / "x.json", link):
        message = refused_once(cli(vault_path, "export", "--force", str(target)))
        assert "inside the vault" in message, target
    assert card.read_bytes() == before and not (vault_path / "export.json").exists()
    assert cli(vault_path, "export", str(tmp_path / "out.json")).exit_code == 0


def test_a_hand_edit_is_screened_reading_at_most_what_the_reader_takes(vault_path: Path) -> None:
    """`commit_hand_edits` (sync, maintain --commit-pending) reads each hand-edited file as the
    reader does: a 40 MB card is refused in one line (never committed unscreened) with the
    screen's allocations far below the file's size, and a hand-edited symlink is not followed."""
    import tracemalloc

    from cardvault import history
    from cardvault.edits.door import _commit_dirty
    from cardvault.errors import CardFormatError, SecretFoundError
    from cardvault.vault.layout import Vault, open_vault_at

    cards = vault_path / "memory" / "cards"
    huge = cards / "huge.md"
    huge.write_bytes(b"x" * 40_000_000 + b"\naws_access_key_id = AKIAQWERTYUIOPASDFGH\n")
    outside = vault_path.parent / "outside-secret.txt"
    outside.write_text("aws_access_key_id = AKIAQWERTYUIOPASDFGH\n", encoding="utf-8")
    (cards / "linked.md").symlink_to(outside)
    vault = open_vault_at(vault_path)
    head = git_log(vault_path)

    def commit_hand_edits(vault: Vault, paths: list[Path]) -> object:
        return _commit_dirty(vault, history.uncommitted(vault, paths))

    tracemalloc.start()
    try:
        with pytest.raises(CardFormatError) as refused:
            commit_hand_edits(vault, [huge])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "over the 1,000,000 bytes a vault file may hold" in str(refused.value)
    assert str(refused.value).startswith(str(huge)) and "\n" not in str(refused.value)
    assert peak < 8_000_000, peak  # the old screen read all 40 MB (and decoded it)
    assert git_log(vault_path) == head
    try:  # the link's target is outside: git records the link's text, the screen reads nothing
        commit_hand_edits(vault, [cards / "linked.md"])
    except SecretFoundError as exc:  # pragma: no cover - the failure this test exists for
        raise AssertionError(f"read through a symlink: {exc}") from exc


def test_the_users_settings_over_the_limit_are_refused_naming_the_file(vault_path: Path) -> None:
    """`config.toml` is read on every opening of a vault: at most the 1 MB a vault file may hold
    (a sparse 64 MB file here), and one line naming it."""
    mine = Path(os.environ["CARDVAULT_CONFIG_DIR"]) / "config.toml"
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text("[serve]\nauto = false\n", encoding="utf-8")
    os.truncate(mine, 64 << 20)
    message = refused_once(cli(vault_path, "search", "anything", "--mode", "keyword"))
    assert str(mine) in message and "over the 1,000,000-byte limit" in message
    mine.write_text("[serve]\nauto = false\n", encoding="utf-8")
    assert cli(vault_path, "search", "anything", "--mode", "keyword").exit_code == 0


def test_gits_attributes_file_over_the_limit_is_refused_naming_it(vault_path: Path) -> None:
    """Every write checks the clone's `info/attributes` (and git config) for cardvault's merge
    drivers: read as a vault file is, a file over the bound is one line naming it, untouched."""
    attributes = vault_path / ".git" / "info" / "attributes"
    os.truncate(attributes, 64 << 20)
    before = git_log(vault_path)
    message = refused_once(cli(vault_path, "log", "a note"))
    assert str(attributes) in message and "over the 1,000,000-byte limit" in message
    assert attributes.stat().st_size == 64 << 20 and git_log(vault_path) == before
    attributes.write_text("", encoding="utf-8")
    assert cli(vault_path, "log", "a note").exit_code == 0
