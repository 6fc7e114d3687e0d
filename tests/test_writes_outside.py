"""Nothing is written outside the vault and cardvault's cache directory.

Every command that reads, writes, searches (the model, onnxruntime) or runs another command
runs as a real process with HOME, the XDG folders and TMPDIR pointed at empty temporary
folders; afterwards those folders, and the folder around the vault, hold nothing new. The model
cache (CARDVAULT_CACHE) and the global vault (CARDVAULT_HOME, a vault too) are the only places
outside the project vault cardvault may write.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.machine import scaled

PY = sys.executable


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


@pytest.mark.slow
def test_no_command_writes_outside_the_vault_and_the_cache(tmp_path: Path) -> None:
    home, temp, around = tmp_path / "home", tmp_path / "tmp", tmp_path / "work"
    for folder in (home, temp, around):
        folder.mkdir()
    vault = around / "vault"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "ORT_"))},
        "HOME": str(home),
        "TMPDIR": str(temp),
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "CARDVAULT_NOW": "2026-11-30T10:15",
        "CARDVAULT_HOME": str(around / "global"),
    }

    def cardvault(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        command = [PY, "-m", "cardvault", "--vault", str(vault), *args]
        return subprocess.run(
            command,
            env=env,
            cwd=around,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=scaled(300),
        )

    assert (
        subprocess.run(
            [PY, "-m", "cardvault", "init", str(vault)], env=env, cwd=around, capture_output=True
        ).returncode
        == 0
    )
    export = around / "exports" / "export.json"  # where the user asked (never inside the vault)
    export.parent.mkdir()
    steps = [
        ("new", "Docker buildx platform", "-c", "tools", "-t", "docker", "-b", "Use --platform."),
        ("log", "Lesson: pin the base image digest in Dockerfiles"),
        ("remember", "nginx needs client_max_body_size for big uploads"),
        ("remember", "--global", "pin tool versions in every project"),
        ("capture", "--", PY, "-c", "raise SystemExit('config file missing')"),
        ("index",),
        ("search", "docker platform"),
        ("search", "--logs", "nginx uploads"),
        ("context", "--task", "build the docker image"),
        ("check",),
        ("list",),
        ("stats",),
        ("graph",),
        ("show", "docker-buildx-platform"),
        ("maintain",),
        ("export", str(export)),
        ("import", "--dry-run", str(export)),
        ("promote", "docker-buildx-platform"),
        ("demote", "docker-buildx-platform"),
        ("archive", "docker-buildx-platform"),
        ("forget", "--yes", "docker-buildx-platform"),
    ]
    for args in steps:
        done = cardvault(*args)
        assert "Traceback" not in done.stderr, (args, done.stderr[-2000:])
        assert done.returncode in (0, 1) or args[0] == "capture", (args, done.stderr[-2000:])
    export.unlink()
    export.parent.rmdir()
    assert files_under(home) == set(), "written under HOME"
    assert files_under(temp) == set(), "temporary files left behind"
    assert {p.split("/")[0] for p in files_under(around)} == {"vault", "global"}
    status = subprocess.run(
        ["git", "-C", str(vault), "status", "--porcelain"], env=env, capture_output=True, text=True
    )
    assert status.stdout == "", "everything cardvault wrote is committed or in .cardvault/"
    assert json.loads(cardvault("stats", "--json").stdout)["cards"] >= 0
