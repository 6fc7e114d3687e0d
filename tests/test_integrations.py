"""The ready integrations, each run for real: shell completion in bash, the pre-commit hook in a
vault repository, and the Claude Code SessionStart hooks from docs/agents.md with the resident
process."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli import REPO, SAMPLE_VAULT
from tests.support.machine import scaled

BIN = Path(sys.executable).parent


def _env(home: Path, **extra: str) -> dict[str, str]:
    path = f"{BIN}{os.pathsep}{os.environ['PATH']}"
    return {**os.environ, "HOME": str(home), "PATH": path, **extra}


def _bash(script: str, env: dict[str, str], cwd: Path | None = None) -> str:
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


COMPLETE = """
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _cardvault_completion cardvault; }
complete_words cardvault se; echo "${COMPREPLY[*]}"
complete_words cardvault search --mo; echo "${COMPREPLY[*]}"
complete_words cardvault search --mode ''; echo "${COMPREPLY[*]}"
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_show_completion_completes_commands_options_and_values(tmp_path: Path) -> None:
    lines = _bash(f'eval "$(cardvault --show-completion)"\n{COMPLETE}', _env(tmp_path))
    assert lines.splitlines() == ["search serve", "--mode", "hybrid semantic keyword"]


#: `--install-completion` installs for the nearest shell among cardvault's parent processes
#: (typer asks shellingham). `bash -c CMD` runs a lone CMD in bash's own process, so the nearest
#: shell would be whichever started pytest (zsh, sh...); a command after it keeps bash the parent.
BASH_IS_THE_PARENT = "\nstatus=$?; exit $status"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_install_completion_sets_up_bash(tmp_path: Path) -> None:
    installed = _bash("cardvault --install-completion" + BASH_IS_THE_PARENT, _env(tmp_path))
    assert "bash completion installed" in installed
    assert ".bash_completions/cardvault.sh" in (tmp_path / ".bashrc").read_text()
    lines = _bash(f"source ~/.bashrc\n{COMPLETE}", _env(tmp_path))
    assert lines.splitlines()[0] == "search serve"


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("pre-commit", path=str(BIN)) is None, reason="needs pre-commit")
@pytest.mark.skipif(not (REPO / ".git").exists(), reason="try-repo needs this repository in git")
def test_the_pre_commit_hook_checks_a_vault_repository(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    _git(vault, "init", "-q")
    _git(vault, "add", "-A")
    env = _env(tmp_path, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    hook = [str(BIN / "pre-commit"), "try-repo", str(REPO), "cardvault-check-system"]
    passed = subprocess.run(hook, cwd=vault, env=env, capture_output=True, text=True)
    assert passed.returncode == 0 and "Passed" in passed.stdout, passed.stdout + passed.stderr
    bad = vault / "memory" / "cards" / "half-written.md"
    bad.write_text("---\ntopic: Half written\n---\nNo category, tags or dates.\n")
    _git(vault, "add", "-A")
    failed = subprocess.run(hook, cwd=vault, env=env, capture_output=True, text=True)
    assert failed.returncode == 1 and "Failed" in failed.stdout
    assert "memory/cards/half-written.md:1: error: missing required key 'category'" in (
        failed.stdout
    )


def _recipe() -> str:
    """The .pre-commit-config.yaml docs/agents.md gives."""
    doc = (REPO / "docs" / "agents.md").read_text()
    block = doc.split("### pre-commit", 1)[1].split("```yaml\n", 1)[1]
    return block.split("```", 1)[0]


@pytest.mark.skipif(shutil.which("pre-commit", path=str(BIN)) is None, reason="needs pre-commit")
@pytest.mark.skipif(not (REPO / ".git").exists(), reason="needs this repository in git")
def test_the_documented_pre_commit_recipe_works_as_written(tmp_path: Path) -> None:
    """The recipe with its `repo:` pointed at this repository (no network): `autoupdate
    --bleeding-edge` pins a commit that exists, and the hook then runs on the vault."""
    import yaml

    recipe = _recipe()
    assert "rev: main" in recipe and yaml.safe_load(recipe)["repos"][0]["hooks"] == [
        {"id": "cardvault-check-system"}
    ]
    vault = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    _git(vault, "init", "-q")
    config = vault / ".pre-commit-config.yaml"
    config.write_text(recipe.replace("https://github.com/<owner>/cardvault", str(REPO)))
    _git(vault, "add", "-A")
    env = _env(tmp_path, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    pre_commit = str(BIN / "pre-commit")
    done = subprocess.run([pre_commit, "autoupdate", "--bleeding-edge"], cwd=vault, env=env,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    rev = yaml.safe_load(config.read_text())["repos"][0]["rev"]
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()  # fmt: skip
    assert rev == head, "rev is now a commit id that exists"
    _git(vault, "add", "-A")
    ran = subprocess.run([pre_commit, "run", "--all-files"], cwd=vault, env=env,
                         capture_output=True, text=True)  # fmt: skip
    assert ran.returncode == 0 and "cardvault check" in ran.stdout and "Passed" in ran.stdout, (
        ran.stdout + ran.stderr
    )


def test_the_hook_definitions_run_cardvault_check() -> None:
    """Both hooks run the same command on the same files; only how cardvault is found differs."""
    import yaml

    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    by_id = {hook["id"]: hook for hook in hooks}
    assert set(by_id) == {"cardvault-check", "cardvault-check-system"}
    assert by_id["cardvault-check"]["language"] == "python"
    assert by_id["cardvault-check-system"]["language"] == "system"
    for hook in hooks:
        assert hook["entry"] == "cardvault check" and hook["pass_filenames"] is False
        assert hook["files"] == by_id["cardvault-check"]["files"]


def _hook(command: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A hook command as Claude Code runs it: a shell, the hook's JSON on stdin."""
    stdin = json.dumps({"session_id": "s1", "hook_event_name": "SessionStart", "cwd": "/"})
    return subprocess.run(
        ["sh", "-c", command], input=stdin, capture_output=True, text=True, env=env
    )


def _session_start_hooks() -> list[str]:
    doc = (REPO / "docs" / "agents.md").read_text()
    block = doc.split("### Claude Code: a SessionStart hook", 1)[1].split("```json\n", 1)[1]
    entry = json.loads(block.split("```", 1)[0])["hooks"]["SessionStart"][0]
    return [hook["command"] for hook in entry["hooks"]]


@pytest.mark.slow
def _served(vault: Path, env: dict[str, str]) -> int:
    """How many commands the vault's server has answered, once it answers `serve --status`."""
    deadline = time.monotonic() + scaled(180)
    while time.monotonic() < deadline:
        done = subprocess.run(["cardvault", "--vault", str(vault), "serve", "--status", "--json"],
                              capture_output=True, text=True, env=env)  # fmt: skip
        if done.returncode == 0:
            return int(json.loads(done.stdout)["requests"])
        time.sleep(0.2)
    raise AssertionError("the server never answered")


def test_session_start_hooks_with_the_resident_process(tmp_path: Path) -> None:
    """The documented hooks: the context pack, then the server started in the background; the
    next `cardvault search` or `context` is answered by it, with the same output."""
    context_hook, serve_hook = _session_start_hooks()
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_VAULT, home / "agent-memory")
    env = _env(home, CARDVAULT_NOW="2026-11-30T09:00")
    first = _hook(context_hook, env)
    assert first.returncode == 0 and "# Learned rules" in first.stdout
    started = _hook(serve_hook, env)
    assert started.returncode == 0 and started.stdout == ""
    vault = home / "agent-memory"
    try:
        # asked through the hooks' own `cardvault`: a server answers only the install that
        # started it, and this process may import another (the source tree, not the venv's)
        assert _served(vault, env) == 0
        # the resident process answers `context`, not `hook`: same pack, from the same code
        again = subprocess.run(
            ["cardvault", "--vault", str(vault), "context"], capture_output=True, text=True, env=env
        )
        assert again.stdout == first.stdout and _served(vault, env) == 1
    finally:
        subprocess.run(["cardvault", "--vault", str(vault), "serve", "--stop"], env=env)
    shutil.rmtree(vault)
    for hook in (context_hook, serve_hook):
        missing = _hook(hook, env)
        # said on stderr; exit 1, which Claude Code takes as a non-blocking error (2 would block)
        assert missing.returncode == 1 and missing.stdout == "", missing
        assert "agent-memory" in missing.stderr
