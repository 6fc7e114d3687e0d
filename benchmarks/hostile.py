"""Hostile input at size: time and peak memory of every read command in fresh processes.

    python benchmarks/hostile.py [--cards 200] [--logs 20] [--runs 3] [--workdir DIR]

Two vaults, both the sample vault plus hostile files from tests/support/hostile.py:
- "fuzzed": `--cards` card files and `--logs` daily logs drawn from the suite's hypothesis
  strategies (alias bombs, nesting, impossible dates, wrong types, NUL, damaged encodings,
  impossible times, huge entries), seeded, so every run sees the same files;
- "worst": one of each known worst case: the 482-byte alias bomb in `tags`, nesting at
  libyaml's limit, a 1 MB single-line card, a 3,000-entry daily log of near-identical lessons,
  and a 200,000-deep JSON export for `import --dry-run`.
Each command runs `--runs` times as `python -m cardvault` in a fresh process (the model cache
warm); prints per command the median wall seconds, the largest peak RSS (MB, from the child's
rusage), the slowest run (the first builds the caches) and whether any run ended in a
traceback or an exit code other than 0/1. Timings are
wall clock on a shared machine: compare medians, expect noise.

The in-suite version (tests/test_hostile_input.py) runs the same generators in-process, a few
examples per test; `CARDVAULT_FUZZ_EXAMPLES=200 pytest tests/test_hostile_input.py` is the long
fuzz run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.hostile import (  # noqa: E402
    READ_COMMANDS,
    card_bytes,
    log_file,
    make_base,
    run_in_process,
    worst_vault,
)


def draw_many(strategy, count: int, seed: int) -> list:  # type: ignore[no-untyped-def, type-arg]
    """`count` examples of a hypothesis strategy as one seeded run generates them (the same
    for the same seed; hypothesis starts small and grows, as in the suite)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as fixed

    found = []

    @fixed(seed)
    @settings(max_examples=count, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def take(value):  # type: ignore[no-untyped-def]
        found.append(value)

    take()
    return found


def fuzzed_vault(root: Path, cards: int, logs: int) -> Path:
    make_base(root)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for number, data in enumerate(draw_many(card_bytes(), cards, 1)):
            (root / "memory" / "cards" / f"hostile-{number}.md").write_bytes(data)
        for number, (stem, data) in enumerate(draw_many(log_file(), logs, 2)):
            (root / "memory" / f"{stem[:-2]}{number % 28 + 1:02d}.md").write_bytes(data)
    return root


def measure(
    root: Path, commands: list[tuple[str, ...]], runs: int, env: dict[str, str]
) -> list[dict[str, object]]:
    rows = []
    for args in commands:
        outcomes = [run_in_process(root, args, env) for _ in range(runs)]
        rows.append(
            {
                "command": " ".join(args)[:60],
                "median_s": round(statistics.median(o[0] for o in outcomes), 2),
                "max_s": round(max(o[0] for o in outcomes), 2),  # the first run builds caches
                "peak_mb": max(o[1] for o in outcomes),
                "clean": all(o[2] for o in outcomes),
                "exit": sorted({o[3] for o in outcomes}),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=200)
    parser.add_argument("--logs", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cardvault-hostile"))
    args = parser.parse_args()
    work = args.workdir
    subprocess.run(["rm", "-rf", str(work)], check=True)
    work.mkdir(parents=True)
    (work / "home").mkdir()
    env = {  # hermetic: no global vault or settings of this machine's user
        **os.environ,
        "HOME": str(work / "home"),
        "CARDVAULT_HOME": str(work / "global"),
        "CARDVAULT_NOW": "2026-11-30T10:15",
    }
    commands = [tuple(c) for c in READ_COMMANDS] + [("index",)]
    print(f"# fuzzed vault: {args.cards} hostile cards, {args.logs} hostile logs")
    fuzzed = measure(fuzzed_vault(work / "fuzzed", args.cards, args.logs), commands, args.runs, env)
    print("# worst cases")
    worst_root = worst_vault(work / "worst", entries=3000)
    deep_import = [("import", "--dry-run", str(work / "deep-export.json"))]
    worst = measure(worst_root, commands + deep_import, args.runs, env)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary = {
        "all_clean": all(row["clean"] for row in fuzzed + worst),
        "slowest_s": max(float(str(row["max_s"])) for row in fuzzed + worst),
        "largest_peak_mb": max(int(str(row["peak_mb"])) for row in fuzzed + worst),
        "children_cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
