"""Search speed on generated vaults: warm in-process queries (median, p95) at 1,000 and 10,000
cards, their agreement with a fresh search, the cost of noticing one changed card, and (with
`--cold`) cold CLI latency with its breakdown and a no-op re-index; `--encode` compares the raw
embedding throughput of sentence-transformers and the ONNX copy. Then, with the default model:
how many texts a `maintain` of an unchanged vault of long real notes (150 til-simonw notes)
sends to the model — counted — and (`--scifact`) the first index of the SciFact corpus, timed,
with its CPU time and the machine's load.

    python benchmarks/speed.py [--runs 7] [--warm-runs 50] [--cold] [--encode] [--scifact]
                               [--workdir /tmp/cardvault-bench] [--model bge-small-en-v1.5]

Vaults are generated once under the work folder (benchmarks/synthetic.py, benchmarks/warm.py)
and reused; `--model` (default: the default model) sets their `[search] model`, in a folder of
the work folder per model.
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
from warm import (
    change_cost,
    encode_throughput,
    identical_to_fresh,
    matmul_ms,
    replicated_vault,
    warm_latency,
)

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
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--warm-runs", type=int, default=50)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cardvault-bench"))
    parser.add_argument("--cold", action="store_true", help="also time cold CLI processes")
    parser.add_argument("--encode", action="store_true", help="raw embedding throughput")
    parser.add_argument("--scifact", action="store_true", help="time SciFact's first index")
    parser.add_argument("--model", help="the vaults' [search] model (default: the default)")
    args = parser.parse_args()
    os.environ.setdefault("CARDVAULT_CACHE", str(args.workdir / "cache"))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    global MODEL
    MODEL = args.model
    if MODEL:
        args.workdir = args.workdir / MODEL
    small = model_set(build_synthetic_vault(args.workdir / "synth-1000", 1000))
    started = time.perf_counter()
    with open_vault(small) as handle:
        report = handle.index()
    first = {"seconds": round(time.perf_counter() - started, 1), "embedded": report.embedded}
    print(json.dumps({"1000 cards: first index (0 if reused)": first}), flush=True)
    large = replicated_vault(small, args.workdir / "synth-10000", 10)
    for size, root in ((1000, small), (10000, large)):
        figures: dict[str, object] = warm_latency(root, args.warm_runs)
        figures["warm results equal a fresh search's"] = identical_to_fresh(root)
        figures.update(change_cost(root, args.runs))
        figures[f"query x {size}-row matrix ms"] = matmul_ms(size)
        if args.cold:
            figures.update(cold_figures(root, args.runs, env))
            figures["breakdown ms"] = breakdown(root, args.runs, env)
            figures.update(noop_reindex(root, env, 3))
        print(json.dumps({f"{size} cards": figures}, indent=2), flush=True)
    if args.encode:
        texts = passage_texts(small)[:256]
        print(json.dumps({"encode (256 texts)": encode_throughput(texts)}), flush=True)
    print(json.dumps({"maintain, unchanged vault": maintain_embeds(args.workdir)}), flush=True)
    if args.scifact:
        print(json.dumps({"SciFact first index": scifact_first_index(args.workdir)}), flush=True)


#: The model the benchmark vaults use (None: the default model).
MODEL: str | None = None


def model_set(root: Path) -> Path:
    """`root` with its `[search] model` set to `MODEL` (the default model without one, so a
    vault another run set to another model is not timed with that one)."""
    from retrieval import with_model

    from cardvault.vault.config import DEFAULT_MODEL

    with_model(root, MODEL or DEFAULT_MODEL)
    return root


class CountingEmbeds:
    """Counts the texts every ONNX embedder of this process sends to the model."""

    def __init__(self) -> None:
        from cardvault.search.onnx import OnnxEmbedder

        self.texts = 0
        self._original = OnnxEmbedder._encode_chunk
        counter = self

        def counted(embedder: OnnxEmbedder, texts: list[str], *pool):  # type: ignore[no-untyped-def]
            counter.texts += len(texts)
            return counter._original(embedder, texts, *pool)

        OnnxEmbedder._encode_chunk = counted  # type: ignore[method-assign]

    def close(self) -> None:
        from cardvault.search.onnx import OnnxEmbedder

        OnnxEmbedder._encode_chunk = self._original  # type: ignore[method-assign]


def maintain_embeds(workdir: Path, notes: int = 150) -> dict[str, object]:
    """Texts embedded by the first index, a first `maintain`, and a second `maintain` of the
    unchanged vault (which must be 0), on `notes` long til-simonw notes."""
    import datetime as dt
    import shutil

    import til

    from cardvault import history
    from cardvault.app.maintenance import run_maintenance
    from cardvault.maintain.run import RunOptions
    from cardvault.vault.layout import open_vault_at

    full = workdir / "til-simonw-all"
    til.build_vault(full, til.SIMONW)
    root = workdir / f"simonw-{notes}"
    shutil.rmtree(root, ignore_errors=True)
    cards = sorted((full / "memory" / "cards").rglob("*.md"))[:notes]
    for card in cards:
        target = root / card.relative_to(full)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(card, target)
    shutil.copy2(full / "cardvault.toml", root / "cardvault.toml")
    model_set(root)
    history.init_repo(root)
    vault = open_vault_at(root)
    history.commit(vault, "notes")
    counter = CountingEmbeds()
    try:
        with open_vault(root) as handle:
            report = handle.index()
        counts: dict[str, object] = {"cards": len(cards), "passages": report.passages}
        counts["first index: texts embedded"] = counter.texts
        now = dt.datetime(2026, 12, 1, 9, 0)
        for run in ("first maintain", "second maintain (unchanged vault)"):
            before, started = counter.texts, time.perf_counter()
            result = run_maintenance(open_vault_at(root), RunOptions(now))
            counts[f"{run}: texts embedded"] = counter.texts - before
            counts[f"{run}: seconds"] = round(time.perf_counter() - started, 1)
            counts[f"{run}: changed"] = result.changed
    finally:
        counter.close()
    counts["load"] = round(os.getloadavg()[0], 1)
    return counts


def scifact_first_index(workdir: Path) -> dict[str, object]:
    """`index()` of the SciFact vault into an empty `.cardvault/` with the benchmark's model."""
    import shutil

    import scifact

    root = workdir / "scifact-speed"
    scifact.build_vault(root)
    model_set(root)
    shutil.rmtree(root / ".cardvault", ignore_errors=True)
    load = os.getloadavg()[0]
    started, cpu = time.perf_counter(), time.process_time()
    with open_vault(root) as handle:
        report = handle.index()
    wall, cpu_s = time.perf_counter() - started, time.process_time() - cpu
    return {
        "documents": report.documents, "passages": report.embedded, "seconds": round(wall, 1),
        "cpu seconds": round(cpu_s, 1),
        "passages per cpu second": round(report.embedded / cpu_s, 1),
        "load before / after": [round(load, 1), round(os.getloadavg()[0], 1)],
    }  # fmt: skip


def passage_texts(root: Path) -> list[str]:
    """The texts the model reads for the vault's cards."""
    from cardvault.search.documents import card_documents
    from cardvault.vault.layout import walk
    from cardvault.vault.read import read_vault

    with open_vault(root) as handle:
        sources = walk(handle.vault).files
        cards = read_vault(handle.vault).cards
        return [
            doc.embed_text
            for card in cards
            for doc in card_documents(sources[handle.vault.rel(card.path)], card.card)
        ]


if __name__ == "__main__":
    main()
