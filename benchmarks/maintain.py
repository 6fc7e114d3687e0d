"""Maintenance time on generated vaults (benchmarks/maintain_vault.py) of 1,000 and 10,000 cards
with a year of daily logs.

    python benchmarks/maintain.py [--sizes 1000 10000] [--workdir /tmp/cardvault-maintain-bench]

For each size: build the vault once (embedding every card and log entry into the search index
is timed separately: about 20 texts/s here, so ~10 minutes for 10,000 cards; it is cached in
the vault's `.cardvault/` and reused by later runs); copy it; run `maintain` through the service
(the CLI's code path) and report each step's time, split into time in the model (embedding new
texts, syncing the index) and the rest; time duplicate detection alone (the blocked matrix
product over every card vector); then run `maintain` again, which must change nothing.
Results go to `<workdir>/results.json` and are printed as a Markdown table.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maintain_vault import build_vault, collect_docstrings

from cardvault.app.maintenance import run_maintenance
from cardvault.maintain.run import RunOptions
from cardvault.vault.layout import open_vault_at

NOW = dt.datetime(YEAR := 2027, 1, 5, 9, 15)
STEPS = ("distill", "merge", "promote", "archive", "index")


def progress_printer(label: str):  # type: ignore[no-untyped-def]
    """A progress callback printing one line per phase."""
    last = {"phase": ""}

    def report(phase: str, done: int, total: int) -> None:
        if phase != last["phase"]:
            last["phase"] = phase
            print(f"  [{label}] {phase}", flush=True)

    return report


def duplicate_detection_seconds(vault) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    """Time of pairs_above over every live card vector (vectors already in the index)."""
    from cardvault.maintain.calibration import constants_for
    from cardvault.maintain.similarity import Embeddings, card_text, pairs_above
    from cardvault.maintain.state import load_state

    state = load_state(vault, NOW.date(), Embeddings(vault))
    assert state.embeddings is not None
    vectors = state.embeddings.vectors([card_text(c.card) for c in state.live])
    started = time.perf_counter()
    pairs = pairs_above(vectors, constants_for(vault.config).merge_threshold)
    return time.perf_counter() - started, len(pairs)


def planted_outcome(built: Path, scratch: Path) -> dict[str, int]:
    """How many planted near-duplicate pairs were merged and contradicting pairs kept apart."""
    folders = [scratch / "memory" / "cards", scratch / "memory" / "archive"]

    def exists(name: str) -> bool:
        return any((folder / name).exists() for folder in folders)

    notes = sorted((built / "memory" / "cards").glob("*-notes.md"))
    merged = sum(1 for p in notes if not (exists(p.name) and exists(p.name.replace("-notes", ""))))
    always = sorted((built / "memory" / "cards").glob("*-always.md"))
    apart = sum(1 for p in always if exists(p.name) and exists(p.name.replace("-always", "-never")))
    return {"planted_merged": merged, "planted_pairs": len(notes), "contradictions_kept": apart}


def measure(built: Path, scratch: Path) -> dict[str, object]:
    """One maintenance run and one repeat run on a fresh copy of the built vault."""
    if scratch.exists():
        shutil.rmtree(scratch)
    shutil.copytree(built, scratch, symlinks=True)
    vault = open_vault_at(scratch)
    detect, pairs = duplicate_detection_seconds(vault)
    started, cpu = time.perf_counter(), time.process_time()
    first = run_maintenance(vault, RunOptions(NOW), progress_printer(scratch.name))
    total, cpu = time.perf_counter() - started, time.process_time() - cpu
    started = time.perf_counter()
    second = run_maintenance(vault, RunOptions(NOW))
    repeat = time.perf_counter() - started
    return {
        "total_seconds": round(total, 1),
        "cpu_seconds": round(cpu, 1),
        "timings": {k: round(v, 2) for k, v in first.timings.items()},
        "counts": first.plan.counts(),
        "conflicts": sum(1 for r in first.plan.reports if r.kind == "conflict"),
        "over_budget": sum(1 for r in first.plan.reports if r.kind == "over-budget"),
        "texts_embedded_during_run": first.embedded,
        "files_written": len(first.written),
        "duplicate_detection_seconds": round(detect, 3),
        "pairs_above_threshold": pairs,
        "repeat_seconds": round(repeat, 1),
        "repeat_changed_files": len(second.written),
        "repeat_committed": second.commit is not None,
        **planted_outcome(built, scratch),
    }


def table(results: dict[str, dict[str, object]]) -> str:
    """Markdown table of the results."""
    sizes = list(results)
    lines = [
        "| | " + " | ".join(f"{int(s):,} cards" for s in sizes) + " |",
        "| --- |" + " ---: |" * len(sizes),
    ]

    def row(label: str, values: list[object]) -> None:
        lines.append(f"| {label} | " + " | ".join(str(v) for v in values) + " |")

    build = [results[s]["build"] for s in sizes]
    runs = [results[s]["run"] for s in sizes]
    row(
        "cards / log entries with a signal",
        [f"{b['cards']:,} / {b['signal_entries']:,}" for b in build],
    )
    row("build: embedding cards + log entries (s)", [f"{b['embed_seconds']:,}" for b in build])
    row("read the vault (s)", [r["timings"]["read"] for r in runs])
    for step in STEPS:
        row(
            f"{step}: total (s) / in the model (s)",
            [
                f"{r['timings'].get(step, 0)} / {r['timings'].get(step + ': model', 0)}"
                for r in runs
            ],
        )
    row("write + commit (s)", [r["timings"].get("write + commit", 0) for r in runs])
    row(
        "whole run: wall (s) / CPU (s)",
        [f"{r['total_seconds']} / {r.get('cpu_seconds', '?')}" for r in runs],
    )
    row("texts embedded during the run", [r["texts_embedded_during_run"] for r in runs])
    row("duplicate detection alone (s)", [r["duplicate_detection_seconds"] for r in runs])
    row("actions: distilled / merged / promoted / archived", [
        "{distill} / {merge} / {promote} / {archive}".format(**r["counts"]) for r in runs  # type: ignore[arg-type]
    ])  # fmt: skip
    row(
        "conflicts reported / cards flagged over budget",
        [f"{r['conflicts']} / {r['over_budget']}" for r in runs],
    )
    row("planted near-duplicate pairs merged / contradicting pairs kept apart", [
        f"{r.get('planted_merged', '?')} of {r.get('planted_pairs', '?')} / "
        f"{r.get('contradictions_kept', '?')} of {b['contradictions']}"
        for r, b in zip(runs, build, strict=True)
    ])  # fmt: skip
    row("second run: time (s), files changed, commit", [
        f"{r['repeat_seconds']}, {r['repeat_changed_files']}, "
        f"{'yes' if r['repeat_committed'] else 'no'}"
        for r in runs
    ])  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cardvault-maintain-bench"))
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    results_file = args.workdir / "results.json"
    results = json.loads(results_file.read_text()) if results_file.exists() else {}
    pool = collect_docstrings(args.workdir / "docstrings.json")
    print(f"{len(pool):,} docstrings available", flush=True)
    for size in args.sizes:
        print(
            f"building {size:,}-card vault (embedding is cached after the first build)", flush=True
        )
        built = args.workdir / f"vault-{size}"
        facts = build_vault(built, size, pool)
        print(f"  built: {facts}", flush=True)
        results[str(size)] = {"build": facts, "run": measure(built, args.workdir / f"run-{size}")}
        results_file.write_text(json.dumps(results, indent=2), encoding="utf-8")
        print(json.dumps(results[str(size)]["run"], indent=2), flush=True)
    print(table(results))


if __name__ == "__main__":
    main()
