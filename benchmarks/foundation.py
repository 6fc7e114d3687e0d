"""Cold-process times of the commands that must start fast: --help, new, log, list, check.

    python benchmarks/foundation.py [--sizes 1000 10000] [--runs 5] [--workdir /tmp/cardvault-bench]

Uses the generated vaults of benchmarks/synthetic.py, copied once into a git repository
(`new` and `log` commit). Prints median wall and CPU seconds per command as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from speed import median_seconds
from synthetic import build_synthetic_vault


def git_vault(workdir: Path, size: int) -> Path:
    """A git copy of the generated vault of `size` cards (made once, reused)."""
    root = workdir / f"foundation-{size}"
    if not (root / ".git").is_dir():
        source = build_synthetic_vault(workdir / f"synth-{size}", size)
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".cardvault", ".built"))
        for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "generated"]):
            subprocess.run(["git", "-C", str(root), *args], check=True, env=_git_env())
    return root


def _git_env() -> dict[str, str]:
    return {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "b@b",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "b@b",
    }


def figures(root: Path, runs: int) -> dict[str, dict[str, float]]:
    """Median cold times of each light command on the vault at `root`."""
    cli = [sys.executable, "-m", "cardvault", "--vault", str(root)]
    env = {**os.environ, "CARDVAULT_NOW": "2026-03-19T10:00"}
    commands = {
        "--help": [*cli, "--help"],
        "new": [*cli, "new", "Benchmark Card", "-c", "tools", "-t", "bench", "--body", "b"],
        "log": [*cli, "log", "Lesson: benchmarks write one commit each"],
        "list --json": [*cli, "list", "--json"],
        "check --json": [*cli, "check", "--json"],
    }
    # check exits 1 on a vault with errors; the generated vaults are clean, so a failure here
    # is a real problem and stops the benchmark rather than timing something else.
    results = {name: median_seconds(command, runs, env) for name, command in commands.items()}
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cardvault-bench"))
    args = parser.parse_args()
    report = {str(size): figures(git_vault(args.workdir, size), args.runs) for size in args.sizes}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
