"""Cold `cardvault context` across scopes: the sample vault as the project, a generated
1,000-card global vault beside it (issue 14).

    python benchmarks/scopes_context.py [--cards 1000] [--runs 5] [--workdir /tmp/cv-scopes]

Each run is a fresh process (`cardvault --vault SAMPLE context --task ... --scope S`), with
$CARDVAULT_HOME pointing at the generated global vault. Both vaults' catalogs and search indexes
are built once first (by one warm-up run each), so "cold" means a new process on unchanged
vaults: imports, reading both vaults through their catalogs, two hybrid searches (the model's
ONNX session loaded per vault) and packing. Reported: median wall and CPU seconds of
`--scope project` (the project alone), `--scope all` (project + global) and `--scope all
--agent ada` (with a hot memory), over `--runs` processes, for each task of a small set. The
machine is shared with other work: medians, and CPU time beside wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import QUERIES, build_synthetic_vault
from vault_commands import git_vault, median_run

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample-vault"
TASKS = ("nginx returns 413 on large uploads", QUERIES[1])


def prepare(workdir: Path, cards: int) -> tuple[Path, Path]:
    """The project (a git copy of the sample vault) and the global vault (N generated cards)."""
    project = git_vault(SAMPLE, workdir / "project", logs=False)
    generated = build_synthetic_vault(workdir / f"generated-{cards}", cards)
    home = git_vault(generated, workdir / f"global-{cards}", logs=False)
    hot = project / "memory" / "agents" / "ada.md"
    if not hot.exists():
        hot.parent.mkdir(parents=True, exist_ok=True)
        hot.write_text("# Hot memory: ada\n\n- 2026-11-30 09:00 staging resets at noon\n", "utf-8")
    return project, home


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cv-scopes"))
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    project, home = prepare(args.workdir, args.cards)
    env = {**os.environ, "CARDVAULT_HOME": str(home), "CARDVAULT_NOW": "2026-11-30T09:00"}
    env.pop("CARDVAULT_AGENT", None)
    exe = shutil.which("cardvault") or "cardvault"
    for vault in (project, home):  # build catalogs and indexes once
        subprocess.run([exe, "--vault", str(vault), "index"], env=env, check=True,
                       capture_output=True)  # fmt: skip
    results: dict[str, dict[str, object]] = {}
    for task in TASKS:
        for label, extra in (
            ("project", ["--scope", "project"]),
            ("all", ["--scope", "all"]),
            ("all + agent", ["--scope", "all", "--agent", "ada"]),
        ):
            command = [exe, "--vault", str(project), "context", "--task", task, *extra,
                       "--format", "json"]  # fmt: skip
            subprocess.run(command, env=env, check=True, capture_output=True)  # warm the caches
            timing = median_run(command, args.runs, env)
            pack = json.loads(subprocess.run(command, env=env, check=True, capture_output=True,
                                             text=True).stdout)  # fmt: skip
            vaults = sorted({row["vault"] for row in pack["included"]})
            results[f"{task} | {label}"] = {**timing, "tokens": pack["tokens"], "vaults": vaults}
    print(json.dumps({"cards in global vault": args.cards, "runs": args.runs,
                      "median": results,
                      "summary": {label: statistics.median(
                          [float(v["wall s"]) for k, v in results.items()  # type: ignore[arg-type]
                           if k.endswith(f"| {label}")]) for label in ("project", "all",
                                                                       "all + agent")}},
                     indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
