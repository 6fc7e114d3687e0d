"""The tests' one way into the CLI (`run_cli`, `cli_at`) and what they read back from a
vault (`snapshot`, `git_log`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from click.testing import Result

REPO = Path(__file__).resolve().parents[2]
SAMPLE_VAULT = REPO / "sample-vault"


def run_cli(
    argv: Sequence[str], input: str | None = None, env: Mapping[str, str] | None = None
) -> Result:
    """The real `cardvault` CLI, run in-process through typer's runner: the tests' one way in
    (`run_cli(["--vault", str(root), "list", "--json"])`)."""
    from typer.testing import CliRunner

    from cardvault.cli.app import app

    return CliRunner().invoke(app, list(argv), input=input, env=env)


def cli_at(root: Path, *args: str, now: str, code: int | None = 0) -> str:
    """`cardvault --vault ROOT ARGS` at the moment `now` (CARDVAULT_NOW): its output, the exit
    code checked to be `code` (None: not checked)."""
    result = run_cli(["--vault", str(root), *args], env={"CARDVAULT_NOW": now})
    if code is not None:
        assert result.exit_code == code, f"{args}: {result.output}"
    return str(result.output)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file's bytes under `root` (the .git folder and the cache excluded)."""
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith((".git/", ".cardvault/")) or rel in (".git", ".cardvault"):
            continue
        if path.is_file() and not path.is_symlink():
            files[rel] = path.read_bytes()
    return files


def git_log(root: Path) -> list[str]:
    """Commit subjects, newest first."""
    import subprocess

    out = subprocess.run(
        ["git", "-C", str(root), "log", "--format=%s"],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    return out.stdout.splitlines()
