"""What `cardvault capture` and `cardvault context` cost, as whole processes, on the sample vault.

    python benchmarks/agent_commands.py [--runs 5]

Copies sample-vault/ to a temporary git repository, indexes it once (so searches are warm, as
they are in daily use), then times cold processes (median of --runs):

- the floor: `python -c pass`, and `cardvault list --json` (any command pays the CLI start-up);
- `capture -- true` (a succeeding command) and `capture -- python -c "import nosuchmodule"`
  (a failure: describe, look up known fixes, append the log entry, commit);
- the known-fix lookup alone in a fresh process: keyword-only (what capture does) against a
  hybrid search for the same error text (what it would cost to go semantic);
- `context` without a task, and with a task (hybrid search).

Prints a Markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable
ERROR = "ModuleNotFoundError: No module named 'nosuchmodule'"
KEYWORD_LOOKUP = f"""
import sys
from cardvault.vault.layout import open_vault_at
from cardvault.capture.run import RunResult, describe_failure
from cardvault.capture.record import known_fixes
vault = open_vault_at(sys.argv[1])
known_fixes(vault, describe_failure(RunResult(("python",), ".", 1, {ERROR!r})))
"""
HYBRID_LOOKUP = f"""
import sys
from cardvault import open_vault
open_vault(sys.argv[1]).search({ERROR!r}, k=8, mode="hybrid", logs=True)
"""


def timed(args: list[str], runs: int, env: dict[str, str]) -> float:
    """Median wall time of `runs` runs of `args`, in seconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    root = Path(tempfile.mkdtemp(prefix="cardvault-bench-")) / "vault"
    shutil.copytree(REPO / "sample-vault", root)
    env = {**os.environ, "CARDVAULT_VAULT": str(root), "CARDVAULT_NOW": "2026-11-30T09:00"}
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    cli = [PY, "-m", "cardvault"]
    subprocess.run([*cli, "index"], env=env, check=True, capture_output=True)
    rows = [
        ("python -c pass (interpreter floor)", [PY, "-c", "pass"]),
        ("cardvault list --json (CLI floor)", [*cli, "list", "--json"]),
        ("capture -- true", [*cli, "capture", "--", "true"]),
        ("capture -- failing import (log + fixes + commit)",
         [*cli, "capture", "--", PY, "-c", "import nosuchmodule"]),
        ("known-fix lookup, keyword only (fresh process)", [PY, "-c", KEYWORD_LOOKUP, str(root)]),
        ("same lookup as hybrid search (fresh process)", [PY, "-c", HYBRID_LOOKUP, str(root)]),
        ("context (no task)", [*cli, "context"]),
        ("context --task (hybrid)", [*cli, "context", "--task", "image fails: exec format error"]),
    ]  # fmt: skip
    print(f"Sample vault ({len(list((root / 'memory' / 'cards').glob('*.md')))} cards), "
          f"median of {runs} cold processes:\n")  # fmt: skip
    print("| what | seconds |\n| --- | ---: |")
    for label, args in rows:
        print(f"| {label} | {timed(args, runs, env):.2f} |")
    shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
