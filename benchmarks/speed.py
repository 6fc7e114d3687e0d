"""Search speed on generated vaults: cold CLI latency and its breakdown, in-process queries,
indexing throughput against raw sentence-transformers, and a no-op re-index.

    python benchmarks/speed.py [--sizes 1000 10000] [--runs 7] [--workdir /tmp/cardvault-bench]

Vaults are generated once under the work folder (benchmarks/synthetic.py) and indexed with
`VaultHandle.index()`; reruns reuse them. The first full index of each size is timed and kept
in `<workdir>/index-times.json`; `--reindex` rebuilds and re-times the 1,000-card vault.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from synthetic import QUERIES, build_synthetic_vault

from cardvault import open_vault

REPO = Path(__file__).resolve().parents[1]
BREAKDOWN = REPO / "benchmarks" / "cold_breakdown.py"


def median_seconds(command: list[str], runs: int, env: dict[str, str]) -> dict[str, float]:
    """Median wall and CPU (user + sys) seconds of `command` in fresh processes, after a warm-up.

    CPU time is given because the benchmark machine is shared: a busy neighbour inflates the
    wall time of a process but not the CPU time it needs.
    """
    _run(command, env)
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        _run(command, env)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {"wall s": statistics.median(walls), "cpu s": statistics.median(cpus)}


def _run(command: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr}")


def cold_figures(root: Path, runs: int, env: dict[str, str]) -> dict[str, dict[str, float]]:
    """Cold-process times: bare interpreter, `--help`, and `search` in each mode."""
    cli = [sys.executable, "-m", "cardvault", "--vault", str(root)]
    figures = {
        "python -c pass": median_seconds([sys.executable, "-c", "pass"], runs, env),
        "cardvault --help": median_seconds([*cli, "--help"], runs, env),
    }
    for mode in ("keyword", "semantic", "hybrid"):
        command = [*cli, "search", QUERIES[0], "--mode", mode, "--json"]
        figures[f"cardvault search --mode {mode}"] = median_seconds(command, runs, env)
    return figures


def breakdown(root: Path, runs: int, env: dict[str, str]) -> dict[str, dict[str, float]]:
    """Median wall and CPU ms per step of a cold hybrid search (benchmarks/cold_breakdown.py)."""
    samples: dict[str, dict[str, list[float]]] = {"wall": {}, "cpu": {}}
    for _ in range(runs + 1):
        done = subprocess.run(
            [sys.executable, str(BREAKDOWN), str(root), QUERIES[1]],
            env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        for clock, steps in json.loads(done.stdout.splitlines()[-1]).items():
            for name, ms in steps.items():
                samples[clock].setdefault(name, []).append(ms)
    return {
        name: {clock: statistics.median(samples[clock][name][1:]) for clock in samples}
        for name in samples["wall"]
    }


def in_process(root: Path, runs: int) -> dict[str, float]:
    """Median ms of a search in a warm process (sync included), per mode."""
    vault = open_vault(root)
    figures = {}
    for mode in ("keyword", "semantic", "hybrid"):
        vault.search(QUERIES[0], mode=mode)
        times = []
        for query in QUERIES * max(1, runs // len(QUERIES)):
            started = time.perf_counter()
            vault.search(query, mode=mode)
            times.append(time.perf_counter() - started)
        figures[f"search() {mode}, warm process"] = statistics.median(times) * 1000
    return figures


def index_throughput(root: Path) -> dict[str, float]:
    """Full rebuild with `index(rebuild=True)` against raw `SentenceTransformer.encode`."""
    from cardvault.search.documents import documents_of, list_sources
    from cardvault.search.embedder import load_sentence_transformer
    from cardvault.search.model import resolve_model

    handle = open_vault(root)
    started = time.perf_counter()
    report = handle.index(rebuild=True)
    full = time.perf_counter() - started
    ref = resolve_model(handle.vault.config.model, root)
    texts = [
        doc.embed_text
        for source in list_sources(handle.vault).values()
        for doc in documents_of(source, source.path.read_text("utf-8"), handle.vault)
    ]
    model = load_sentence_transformer(ref)
    started = time.perf_counter()
    model.encode(texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False)
    raw = time.perf_counter() - started
    return {
        "cards": report.embedded,
        "index --rebuild seconds (incl. model load)": full,
        "index cards/s": report.embedded / full,
        "raw encode seconds": raw,
        "raw encode texts/s": len(texts) / raw,
    }


def noop_reindex(root: Path, env: dict[str, str], runs: int) -> dict[str, object]:
    """A re-index with nothing changed: in-process and as a cold `cardvault index`."""
    handle = open_vault(root)
    started = time.perf_counter()
    report = handle.index()
    in_proc = time.perf_counter() - started
    assert report.embedded == 0 and report.parsed == 0, report
    command = [sys.executable, "-m", "cardvault", "--vault", str(root), "index"]
    return {
        "no-op index() ms": in_proc * 1000,
        "no-op `cardvault index` cold": median_seconds(command, runs, env),
    }


def main() -> None:
    """Run every measurement and print them as JSON (docs/benchmarks.md holds the tables)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cardvault-bench"))
    parser.add_argument("--reindex", action="store_true", help="time a full rebuild (1k cards)")
    args = parser.parse_args()
    os.environ.setdefault("CARDVAULT_CACHE", str(args.workdir / "cache"))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    results: dict[str, object] = {}
    for size in args.sizes:
        root = build_synthetic_vault(args.workdir / f"synth-{size}", size)
        open_vault(root).index()  # the first time: the full index (minutes at 10k)
        figures: dict[str, object] = {}
        figures.update(cold_figures(root, args.runs, env))
        figures["breakdown ms"] = breakdown(root, args.runs, env)
        figures.update(in_process(root, args.runs))
        figures.update(noop_reindex(root, env, 3))
        if args.reindex and size == min(args.sizes):
            figures.update(index_throughput(root))
        results[f"{size} cards"] = figures
        print(json.dumps({f"{size} cards": figures}, indent=2), flush=True)


if __name__ == "__main__":
    main()
