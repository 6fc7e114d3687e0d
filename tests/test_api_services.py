"""The commands about hosts and processes through the Python API and through the CLI agree:
`doctor`, `install`, `trust`, `hook`, `mcp --config` and `serve --status`, each one `Session`
method (cardvault/app/services.py) on a real vault in a temporary HOME. What one front end
writes, the other sees; what one answers, the other answers."""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from cardvault import open_vault
from tests.support.cli import git_log, run_cli

if TYPE_CHECKING:
    from cardvault.trust.settings import Asked

NOW = "2026-11-30T18:05"
JUDGE = "my-judge --strict"


def cli(vault: Path, *args: str, stdin: str | None = None, code: int = 0) -> str:
    done = run_cli(["--vault", str(vault), *args], input=stdin, env={"CARDVAULT_NOW": NOW})
    assert done.exit_code == code, done.output
    return str(done.stdout)


def test_doctor(vault_path: Path) -> None:
    report = open_vault(vault_path).doctor(model=False)
    shown = json.loads(cli(vault_path, "doctor", "--no-model", "--json"))
    assert shown["ok"] is report.ok is True
    assert [(c["name"], c["status"]) for c in shown["checks"]] == [
        (check.name, check.status) for check in report.checks
    ]


def test_install_and_uninstall(vault_path: Path) -> None:
    """The API installs what the CLI then finds installed; the CLI uninstalls what the API then
    finds gone; a "no" from `confirm` writes nothing, as `--dry-run` does."""
    home = Path(os.environ["HOME"])
    asked = open_vault(vault_path).install("codex", confirm=lambda diffs: False)
    assert not asked.written and asked.diffs and not (home / ".codex").exists()
    dry = cli(vault_path, "install", "codex", "--dry-run")
    assert all(line in dry for diff in asked.diffs for line in diff.splitlines())

    done = open_vault(vault_path).install("codex")
    assert done.written and done.files == "~/.codex/config.toml, ~/.codex/hooks.json"
    assert str(vault_path) in (home / ".codex" / "config.toml").read_text()
    assert "already installed" in cli(vault_path, "install", "codex")

    cli(vault_path, "install", "codex", "--uninstall", "--yes")
    assert not open_vault(vault_path).install("codex", uninstall=True).plan.changed


def test_trust_approve_list_revoke(vault_path: Path) -> None:
    config = vault_path / "cardvault.toml"
    config.write_text(config.read_text().replace('judge = ""', f"judge = {json.dumps(JUDGE)}"))
    seen: list[str] = []

    def confirm(waiting: list[Asked]) -> bool:
        seen.extend(item.value for item in waiting)
        return True

    done = open_vault(vault_path).trust(confirm)
    assert (seen, done.approved, done.already) == ([JUDGE], ("maintain.judge",), ())

    again = json.loads(cli(vault_path, "trust", "--json"))
    assert again == {"vault": str(done.root), "approved": [], "already": ["maintain.judge"]}
    listed = json.loads(cli(vault_path, "trust", "--list", "--json"))
    assert listed == [asdict(a) for a in open_vault(vault_path).trust_list()]
    assert [a["value"] for a in listed] == [JUDGE]

    revoked = json.loads(cli(vault_path, "trust", "--revoke", "--json"))
    assert [a["value"] for a in revoked["revoked"]] == [JUDGE]
    assert open_vault(vault_path).trust_revoke() == (done.root, [])


def _transcript(folder: Path, text: str) -> Path:
    path = folder / "session.jsonl"
    message = {"role": "assistant", "content": [{"type": "text", "text": text}]}
    path.write_text(json.dumps({"type": "assistant", "message": message}) + "\n")
    return path


def test_hook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same hook input through both front ends: the same stdout, the same entry logged."""
    from cardvault.app.vaults import init_vault

    monkeypatch.setenv("CARDVAULT_NOW", NOW)
    said = "Lesson: the staging database resets every night at 02:00 UTC."
    outputs, logs = [], []
    for name, through_api in (("api", True), ("cli", False)):
        vault = tmp_path / name
        init_vault(vault)
        data = {"session_id": "feedc0de-1", "cwd": str(vault)}
        data["transcript_path"] = str(_transcript(tmp_path / name, said))
        payload = json.dumps(data)
        if through_api:
            start = open_vault(vault).hook("session-start", "cursor", payload.encode()).output
            captured = open_vault(vault).hook("stop", "cursor", payload.encode()).captured
            assert captured is not None and len(captured.logged) == 1
        else:
            start = cli(vault, "hook", "session-start", "--host", "cursor", stdin=payload)
            assert cli(vault, "hook", "stop", "--host", "cursor", stdin=payload) == "{}\n"
        outputs.append(json.loads(start)["additional_context"].replace(str(vault), "VAULT"))
        log = (vault / "memory" / "2026-11-30.md").read_text()
        logs.append((re.sub(r"<!-- id:\w+ -->", "", log), git_log(vault)[0]))  # ids are random
    assert outputs[0] == outputs[1] and "MEMORY.md" in outputs[0]
    assert logs[0] == logs[1] and "staging database" in logs[0][0]


def test_mcp_config(vault_path: Path) -> None:
    text, where = open_vault(vault_path).mcp_registration("codex")
    assert cli(vault_path, "mcp", "--config", "codex") == text
    assert str(vault_path) in text and "config.toml" in where


def test_serve_status_without_a_server(vault_path: Path) -> None:
    serving = open_vault(vault_path).serve_status()
    shown = json.loads(cli(vault_path, "serve", "--status", "--json", code=1))
    assert serving.running is None and serving.holder is None
    assert shown == {"running": False, "vault": str(serving.vault.root), "auto": serving.auto}


def test_a_resident_request_runs_in_a_lent_app_session(vault_path: Path) -> None:
    """`serve` answers each request in an app `Session` lent the server's warm handles, with the
    caller's environment (its clock here), never the server's."""
    with open_vault(vault_path) as server:
        lent = server.lend({"CARDVAULT_NOW": "2027-01-02T03:04"})
        assert type(lent) is type(server) and lent.served and not server.served
        assert lent.handles is server.handles and lent.root == server.root
        assert lent.now().isoformat() == "2027-01-02T03:04:00"
        written = lent.log("Fix: restart the worker after a config change.")
        assert written.path.name == "2027-01-02.md"
