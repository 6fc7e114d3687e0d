"""Many writers on one vault: throughput and waits, kill -9 trials, and the import write.

    python benchmarks/writers.py stress [--workers 8] [--writes 100] [--light]
    python benchmarks/writers.py crash [--trials 50] [--command sync]
    python benchmarks/writers.py import [--sizes 1000,10000]

- stress: WORKERS processes each run WRITES mixed writes (log, remember, new, capture of a
  failing command) through the CLI in-process (tests/writers_load.py) on one fresh vault, while
  one process runs `cardvault maintain` (all steps, the model included; `--light`: the steps
  without the model) and one runs `cardvault search` (hybrid; `--light`: keyword) in a loop.
  Prints writes per second, command latencies (median, p95, max), the lock waits (median,
  max), and checks every invariant of the stress test.
- crash: kill -9 at random moments of log, new, maintain, import, forget and sync on real
  vaults (tests/writers_crash.py), round-robin (`--command NAME`: that one alone); prints how
  many trials ended "before" and "intended" (sync: also "merged", a half-written merge whose
  journal the next command finishes) and stops at the first violation.
- import: a generated vault of N cards exported and imported into an empty vault: the import's
  write + commit through the write door, and the same files written by the batch writer versus
  one atomic write (two fsyncs) per file, the applier's old way.
Results go in docs/benchmarks.md ("Many writers"). Timings depend on the machine's load: say so.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.synthetic import build_synthetic_vault


def stress(workers: int, writes: int, light: bool, seed: int) -> None:
    from cardvault.app.vaults import init_vault
    from tests.writers_load import background, check_vault, read_reports, start_workers

    with tempfile.TemporaryDirectory(prefix="cardvault-stress-") as work:
        folder = Path(work)
        root = folder / "vault"
        init_vault(root)
        stop = folder / "stop"
        maintain = ["maintain", "--json"] + (["--only", "promote,archive,index"] if light else [])
        search = ["search", "--json", "--mode", "keyword" if light else "hybrid", "retry"]
        helpers = [background(root, maintain, stop), background(root, search, stop)]
        started = time.monotonic()
        codes = [p.wait() for p in start_workers(root, workers, writes, seed, folder)]
        elapsed = time.monotonic() - started
        stop.touch()
        for proc in helpers:
            proc.wait()
        records = read_reports(folder)
        problems = check_vault(root, records) + [f"worker exit {c}" for c in codes if c]
        runs = {name: Path(f"{stop}.{name}.codes").read_text().splitlines()
                for name in ("maintain", "search")}  # fmt: skip
        _report_stress(records, elapsed, runs, problems)


def _report_stress(
    records: list[dict[str, Any]], elapsed: float, runs: dict[str, list[str]], problems: list[str]
) -> None:
    seconds = sorted(r["seconds"] for r in records)
    waits = sorted(r["wait"] for r in records)
    p95 = seconds[int(len(seconds) * 0.95) - 1]
    print(f"{len(records)} writes in {elapsed:.1f} s: {len(records) / elapsed:.1f} writes/s")
    print(f"latency: median {statistics.median(seconds):.3f} s, p95 {p95:.3f} s, "
          f"max {seconds[-1]:.3f} s")  # fmt: skip
    print(f"lock wait: median {statistics.median(waits):.3f} s, max {waits[-1]:.3f} s")
    for kind in ("log", "remember", "new", "capture"):
        mine = [r["seconds"] - r["wait"] for r in records if r["kind"] == kind]
        if mine:
            print(f"  {kind:<9} {len(mine):4d} runs, median {statistics.median(mine):.3f} s "
                  "(without the wait)")  # fmt: skip
    for name, lines in runs.items():
        failed = [line for line in lines if not line.startswith("0 ")]
        print(f"{name}: {len(lines)} runs alongside, {len(failed)} failed {failed[:3]}")
    print("invariants: " + ("all hold" if not problems else "BROKEN"))
    for problem in problems[:20]:
        print("  " + problem)


def crash(trials: int, seed: int, command: str | None = None) -> None:
    from tests.writers_crash import SCENARIOS, build_templates, intended, trial

    names = (command,) if command else SCENARIOS

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="cardvault-crash-") as work:
        folder = Path(work)
        templates = build_templates(folder / "templates")
        states = {}
        for name in names:
            template, args = templates[name]
            states[name] = intended(template, args, folder / f"intended-{name}")
            print(f"{name}: full run {states[name].seconds:.2f} s", flush=True)
        tally: dict[str, dict[str, int]] = {name: {"before": 0, "intended": 0} for name in names}
        for number in range(trials):
            name = names[number % len(names)]
            template, args = templates[name]
            delay = rng.uniform(0.0, states[name].seconds)
            root = folder / f"trial-{number}"
            outcome = trial(template, args, states[name], delay, root)
            for key in (outcome.state, *outcome.left):
                tally[name][key] = tally[name].get(key, 0) + 1
            left = f" (left: {', '.join(outcome.left)})" if outcome.left else ""
            print(f"trial {number + 1:3d}: {name:<8} killed at {delay:5.2f} s -> "
                  f"{outcome.state}{left}", flush=True)  # fmt: skip
            shutil.rmtree(root)
        print(json.dumps(tally))


def import_write(sizes: list[int]) -> None:
    import datetime as dt

    from cardvault.app.vaults import init_vault
    from cardvault.edits.door import Door
    from cardvault.portable.format import export_data, export_text, read_export
    from cardvault.portable.importer import apply_import, plan_import
    from cardvault.vault.layout import open_vault_at

    now = dt.datetime(2026, 11, 30, 9, 15)
    with tempfile.TemporaryDirectory(prefix="cardvault-import-") as work:
        for size in sizes:
            source = build_synthetic_vault(Path(tempfile.gettempdir()) / f"cardvault-synth-{size}",
                                           size)  # fmt: skip
            text = export_text(export_data(open_vault_at(source), now).data)
            empty = init_vault(Path(work) / f"empty-{size}").vault
            plan = plan_import(empty, read_export(json.loads(text), empty), now.date())
            started = time.perf_counter()
            result = Door(empty).land(apply_import(empty, plan, "bench.json"))
            total = time.perf_counter() - started
            assert result.commit is not None and result.commit.recorded
            batch, single = _write_only(Path(work) / f"files-{size}", plan.changes)
            print(f"{size} cards: import write + commit {total:.1f} s; the same files written "
                  f"alone: batch {batch:.1f} s, one atomic write each {single:.1f} s")  # fmt: skip


def _write_only(folder: Path, changes: Any) -> tuple[float, float]:
    """Seconds to write the import's files with the batch writer, then one by one with two
    fsyncs each (the applier's way before the batch), into empty folders."""
    from cardvault.edits.atomic import atomic_write
    from cardvault.edits.batch import write_steps
    from cardvault.edits.journal import Step
    from cardvault.vault.files import ABSENT

    texts = [(c.path.name, c.new_text) for c in changes if hasattr(c, "new_text")]
    steps = [Step(f"batch/{name}", ABSENT, "x", text) for name, text in texts]
    started = time.perf_counter()
    write_steps(folder, steps, "bench", check=False)
    batch = time.perf_counter() - started
    (folder / "single").mkdir(parents=True)
    started = time.perf_counter()
    for name, text in texts:
        atomic_write(folder / "single" / name, text, ABSENT)
    return batch, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    one = sub.add_parser("stress")
    one.add_argument("--workers", type=int, default=8)
    one.add_argument("--writes", type=int, default=100)
    one.add_argument("--light", action="store_true")
    one.add_argument("--seed", type=int, default=1)
    two = sub.add_parser("crash")
    two.add_argument("--trials", type=int, default=50)
    two.add_argument("--seed", type=int, default=1)
    two.add_argument("--command", choices=("log", "new", "maintain", "import", "forget", "sync"))
    three = sub.add_parser("import")
    three.add_argument("--sizes", default="1000,10000")
    args = parser.parse_args()
    if args.what == "stress":
        stress(args.workers, args.writes, args.light, args.seed)
    elif args.what == "crash":
        crash(args.trials, args.seed, args.command)
    else:
        import_write([int(s) for s in args.sizes.split(",")])


if __name__ == "__main__":
    main()
