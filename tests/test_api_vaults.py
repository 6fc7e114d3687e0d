"""The vault commands through the Python API and through the CLI agree: `init`, `check --fix`,
`rename`, `capture`, `sync`, `forget`, `export` and `import` (an export file, a folder of notes)
each run once as a `Session` method and once as `cardvault ...` on twin vaults (made the same
way, at the same pinned moment), and write the same files, the same commits and the same
answer."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cardvault import open_vault
from cardvault.app import Session
from tests.support.cli import git_log, run_cli, snapshot
from tests.support.serve import NOW as TERMINAL_NOW
from tests.support.serve import run_in_terminal
from tests.support.writers import git

NOW = "2026-11-30T09:15"
CARD = (
    "---\ntopic: Quokka Facts\ncategory: tools\ntags: [Quokka,  facts]\ncreated: 2026-03-19\n"
    "updated: 2026-03-19\n---\nQuokkas live on Rottnest Island.\r\n"
)
#: The card as `check --fix` leaves it.
CLEAN = CARD.replace("Quokka,  facts", "quokka, facts").replace("\r", "")


ENTRY_ID = re.compile(rb"<!-- id:[0-9a-f]+ -->")
FORGET_RECORD = re.compile(r"(memory/forgotten/[0-9-]+)-[0-9a-f]+\.txt")


@pytest.fixture(autouse=True)
def pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """One moment for both ways in: the session reads its clock from the same environment."""
    monkeypatch.setenv("CARDVAULT_NOW", NOW)


def cli(root: Path, *args: str, code: int = 0) -> str:
    """`cardvault --vault ROOT ARGS`: its stdout, the exit code checked."""
    result = run_cli(["--vault", str(root), *args])
    assert result.exit_code == code, f"{args}: {result.output}"
    return str(result.stdout)


def twins(tmp_path: Path, card: str = CARD) -> tuple[Path, Path]:
    """A vault with a card and a log entry, committed, and a copy of it (git history too)."""
    root = tmp_path / "api" / "vault"
    Session().init(root)
    (root / "memory/cards/quokka-facts.md").write_text(card, encoding="utf-8", newline="")
    with open_vault(root) as vault:
        vault.log("Saw a quokka at the ferry. Lesson: quokkas bite when fed.", "Quokka")
    twin = tmp_path / "cli" / "vault"
    shutil.copytree(root, twin, symlinks=True)
    return root, twin


def files(root: Path) -> dict[str, bytes]:
    """The vault's files, the ids unique to each write (a new log entry's, a forget record's)
    left out."""
    return {
        FORGET_RECORD.sub(r"\1.txt", rel): ENTRY_ID.sub(b"<!-- id -->", data)
        for rel, data in snapshot(root).items()
    }


def assert_same(api: Path, by_cli: Path) -> None:
    assert files(api) == files(by_cli)
    assert git_log(api) == git_log(by_cli)


def test_init(tmp_path: Path) -> None:
    done = Session().init(tmp_path / "api" / "vault")
    said = cli(tmp_path, "init", str(tmp_path / "cli" / "vault"))
    assert_same(tmp_path / "api" / "vault", tmp_path / "cli" / "vault")
    assert done.made.written and done.registered is not None and done.unregistered is None
    assert f"vault ready at {tmp_path / 'cli' / 'vault'}" in said


def test_init_imports_the_notes_it_found_as_import_notes_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a terminal, `init` offers to import the notes the folder holds; a yes imports them as
    `Session.import_notes` does."""
    monkeypatch.setenv("CARDVAULT_NOW", TERMINAL_NOW)
    api, by_cli = tmp_path / "api" / "notes", tmp_path / "cli" / "notes"
    for root in (api, by_cli):
        root.mkdir(parents=True)
        (root / "Ferry.md").write_text("# Ferry\nThe ferry leaves at 9. See [[Quokkas]].\n")
        (root / "Quokkas.md").write_text("# Quokkas\nThey live on Rottnest Island.\n")
    command = [sys.executable, "-m", "cardvault", "init", str(by_cli)]
    code, shown = run_in_terminal(command, tmp_path, typed=b"y\n")
    assert code == 0 and b"Import them as cards now?" in shown, shown.decode()
    Session().init(api)
    with open_vault(api) as vault:
        done = vault.import_notes(api)
    assert done.commit is not None and done.folder.plan.counts()["new"] == 2
    assert_same(api, by_cli)


def test_check_with_fix(tmp_path: Path) -> None:
    api, by_cli = twins(tmp_path)
    with open_vault(api) as vault:
        done = vault.check(fix=True)
    findings = json.loads(cli(by_cli, "check", "--fix", "--json"))
    assert [f.to_dict() for f in done.findings] == findings
    assert [f.what for f in done.fixed] and done.commit is not None
    assert_same(api, by_cli)


def test_rename(tmp_path: Path) -> None:
    api, by_cli = twins(tmp_path)
    with open_vault(api) as vault:
        done = vault.rename("quokka-facts", "quokka-notes")
    said = json.loads(cli(by_cli, "rename", "quokka-facts", "quokka-notes", "--json"))
    assert said["changes"] == done.actions and said["path"] == "memory/cards/quokka-notes.md"
    assert_same(api, by_cli)


def test_capture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    api, by_cli = twins(tmp_path)
    monkeypatch.chdir(tmp_path)  # the entry names the directory the command ran in
    command = [sys.executable, "-c", "import sys; sys.exit('quokka bit the ferry')"]
    with open_vault(api) as vault:
        done = vault.capture(command)
    cli(by_cli, "capture", "--", *command, code=1)
    assert done.run.exit_code == 1 and done.recorded is not None and not done.warnings
    assert_same(api, by_cli)


def test_forget(tmp_path: Path) -> None:
    api, by_cli = twins(tmp_path)
    with open_vault(api) as vault:
        plans = vault.forget_plan("quokka")
        assert [name for name, _, _ in plans.plans] == ["project"]
        done = vault.forget(plans)
    cli(by_cli, "forget", "quokka", "--yes")
    assert done[0][2].commit.recorded
    assert not (api / "memory/cards/quokka-facts.md").exists()
    assert_same(api, by_cli)


def test_export_and_import(tmp_path: Path) -> None:
    api, by_cli = twins(tmp_path, CLEAN)
    with open_vault(api) as vault:
        exported = vault.export(tmp_path / "api.json", logs=True)
    cli(by_cli, "export", str(tmp_path / "cli.json"), "--logs")
    assert (tmp_path / "api.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert [card["path"] for card in exported.data["cards"]] == ["memory/cards/quokka-facts.md"]
    into_api, into_cli = tmp_path / "api" / "into", tmp_path / "cli" / "into"
    Session().init(into_api)
    Session().init(into_cli)
    with open_vault(into_api) as vault:
        imported = vault.import_export(tmp_path / "api.json")
    said = json.loads(cli(into_cli, "import", str(tmp_path / "api.json"), "--json"))
    assert said["counts"] == imported.plan.counts() and said["counts"]["new"] == 1
    assert_same(into_api, into_cli)


def test_import_notes(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "Ferry.md").write_text("# Ferry\nThe ferry leaves at 9. See [[Quokkas]].\n")
    (notes / "Quokkas.md").write_text("# Quokkas\nThey live on Rottnest Island.\n")
    api, by_cli = tmp_path / "api" / "vault", tmp_path / "cli" / "vault"
    Session().init(api)
    Session().init(by_cli)
    with open_vault(api) as vault:
        done = vault.import_notes(notes)
    said = json.loads(cli(by_cli, "import", str(notes), "--json"))
    assert said["counts"] == done.folder.plan.counts() and said["counts"]["new"] == 2
    assert said["links"] == [vars(link) for link in done.folder.links]
    assert_same(api, by_cli)


def test_sync(tmp_path: Path) -> None:
    """A clone synced through the API and one through the CLI meet at the same files."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    api = tmp_path / "api"
    Session().init(api)
    git(api, "remote", "add", "origin", str(remote))
    with open_vault(api) as vault:
        assert vault.sync().pushed
    by_cli = tmp_path / "cli"
    subprocess.run(["git", "clone", "-q", str(remote), str(by_cli)], check=True)
    (api / "memory/cards/quokka-facts.md").write_text(CLEAN, encoding="utf-8")
    with open_vault(api) as vault:
        first = vault.sync()  # the hand edit committed, then pushed
    assert first.pending is not None and first.pushed
    with open_vault(by_cli) as vault:
        vault.log("The ferry leaves at nine.", "Ferry")
    said = run_cli(["--vault", str(by_cli), "sync"])
    assert said.exit_code == 0 and "synced with origin/main" in said.output
    with open_vault(api) as vault:
        last = vault.sync()
    assert last.merged == "fast-forward" and not last.conflicts
    assert snapshot(api) == snapshot(by_cli)


def test_log_remember_and_new(tmp_path: Path) -> None:
    """The everyday writes: the same entries, card, MEMORY.md table and commits both ways."""
    api, by_cli = twins(tmp_path)
    with open_vault(api) as vault:
        vault.log("The ferry leaves at nine.", "Ferry")
        vault.remember("quokkas are protected: never feed them")
        vault.new("Ferry times", "tools", "The first ferry leaves at nine.", ["ferry"])
    cli(by_cli, "log", "The ferry leaves at nine.", "--title", "Ferry")
    cli(by_cli, "remember", "quokkas are protected: never feed them")
    cli(by_cli, "new", "Ferry times", "-c", "tools", "-t", "ferry", "--body",
        "The first ferry leaves at nine.")  # fmt: skip
    assert_same(api, by_cli)
    assert "ferry-times.md" in (api / "MEMORY.md").read_text(encoding="utf-8")
