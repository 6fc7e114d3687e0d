"""Commands that do not search never import the model stack (torch, sentence-transformers, ...);
readers, `--help` and the everyday commit never import a git library (GitPython)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.machine import scaled

HEAVY = ("torch", "sentence_transformers", "transformers", "onnxruntime", "sklearn", "scipy", "mcp")
#: GitPython and the object database under it.
GIT_LIBRARY = ("git", "gitdb", "smmap")

PROBE = """
import json, sys
from cardvault.cli.app import app
try:
    app(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
heavy = sorted({m.split('.')[0] for m in sys.modules} & set(json.loads(%r)))
sys.__stdout__.write("\\nHEAVY=" + json.dumps(heavy) + "\\n")
"""


def loaded_heavy_modules(args: list[str], cwd: Path, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    """Run the CLI in a fresh interpreter and list which of the `heavy` packages it imported."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE % json.dumps(heavy), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={
            "CARDVAULT_NOW": "2026-03-19T10:00",
            "PATH": "/usr/bin:/bin",
            "HOME": str(cwd),
            "CARDVAULT_NO_AUTOSERVE": "1",  # a search here must not leave a server behind
        },
        timeout=scaled(120),
    )
    marker = [line for line in out.stdout.splitlines() if line.startswith("HEAVY=")]
    assert marker, out.stdout + out.stderr
    return json.loads(marker[-1].removeprefix("HEAVY="))


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["new", "Startup Probe", "-c", "tools", "--body", "plain words"],
        ["log", "a plain note"],
        ["list", "--json"],
        ["check", "--json"],
        ["show", "startup-probe"],
        ["serve", "--status"],
        ["mcp", "--config", "codex"],
        ["install", "claude-code", "--project", "--dry-run"],
        ["hook", "session-start"],
        ["hook", "stop"],
        ["doctor", "--no-model"],
    ],
)
def test_light_commands_do_not_import_the_model_stack(vault_path: Path, args: list[str]) -> None:
    if args[0] == "show":
        loaded_heavy_modules(["new", "Startup Probe", "-c", "tools", "--body", "x"], vault_path)
    assert loaded_heavy_modules(args, vault_path) == []


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["list", "--json"],
        ["show", "startup-probe"],
        ["search", "-m", "keyword", "probe"],
        ["context"],
        ["check", "--json"],
        ["stats", "--json"],
        ["graph", "--format", "json"],
        ["view", "--out", "page.html"],
        ["new", "Startup Probe Two", "-c", "tools", "--body", "plain words"],
        ["log", "a plain note"],
    ],
)
def test_readers_and_the_everyday_commit_do_not_import_gitpython(
    vault_path: Path, args: list[str]
) -> None:
    """GitPython is for sync, review branches, the drivers' set-up... (cardvault/history/):
    a reader never loads it, nor does a `new` or a `log` in a clone set up (the first write of
    a clone writes the merge drivers into its config through it; init did here)."""
    if args[0] == "show":
        loaded_heavy_modules(["new", "Startup Probe", "-c", "tools", "--body", "x"], vault_path)
    if args[0] in ("new", "log"):
        # set up for the installation the probe runs: the fixture's init ran in this process,
        # which may import cardvault from the checkout while the probe imports the installed
        # copy (`pip install .`), and the drivers name the installation they run
        loaded_heavy_modules(["log", "the clone set up for this installation"], vault_path)
    assert loaded_heavy_modules(args, vault_path, GIT_LIBRARY) == []


def test_sync_imports_gitpython(vault_path: Path) -> None:
    """The probe sees GitPython where it is used: sync reads the branch and remotes with it
    (and refuses here, the vault having no remote)."""
    assert "git" in loaded_heavy_modules(["sync"], vault_path, GIT_LIBRARY)
