"""Retrieval quality on BEIR SciFact (train split): keyword vs semantic vs hybrid, nDCG@10.

    python benchmarks/retrieval.py [--workdir /tmp/cardvault-bench] [--tune]

Builds a vault with one card per abstract (5,183 cards; reused while the work folder exists),
indexes it with `VaultHandle.index()` (sentence-transformers; about 5 minutes here the first
time), then runs the 809 train claims through `cardvault.search.engine.rank`, the function
`cardvault search` calls once its index is synced, in each mode. `--tune` also sweeps the
fusion constants and BM25 column weights and reports a two-fold cross-validation (choose on
half the queries, score on the other half), so the chosen values are not just fitted to the
figures they produce.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scifact import build_vault, load_qrels, load_queries

from cardvault import open_vault
from cardvault.search import rank as rank_module
from cardvault.search import retrieve
from cardvault.search.engine import rank
from cardvault.search.index import open_index
from cardvault.search.query_model import QueryModel
from cardvault.search.retrieve import Filters, keyword_ranking, semantic_ranking

K = 10
Qrels = dict[str, dict[str, int]]


def ndcg_at_k(ranked: list[str], relevant: dict[str, int], k: int = K) -> float:
    """Normalised discounted cumulative gain of the first k slugs."""
    dcg = sum(relevant.get(s, 0) / math.log2(i + 2) for i, s in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at_k(ranked: list[str], relevant: dict[str, int], k: int = K) -> float:
    """Share of the relevant slugs found in the first k."""
    return len(set(ranked[:k]) & set(relevant)) / len(relevant)


def evaluate(runs: dict[str, list[str]], qrels: Qrels, ids: list[str]) -> tuple[float, float]:
    """Mean nDCG@10 and recall@10 over the query ids."""
    ndcg = sum(ndcg_at_k(runs[q], qrels[q]) for q in ids) / len(ids)
    recall = sum(recall_at_k(runs[q], qrels[q]) for q in ids) / len(ids)
    return ndcg, recall


def prepare(workdir: Path) -> tuple[Path, float, int]:
    """Build and index the SciFact vault; return its root, index seconds, texts embedded."""
    root = workdir / "scifact"
    build_vault(root)
    started = time.perf_counter()
    report = open_vault(root).index()
    return root, time.perf_counter() - started, report.embedded


def run_modes(root: Path, queries: dict[str, str]) -> dict[str, dict[str, list[str]]]:
    """Top-10 slugs per query for each mode, through engine.rank."""
    vault = open_vault(root).vault
    model = QueryModel(vault)
    index = open_index(vault.cache_dir)
    slugs = dict(index.conn.execute("SELECT id, slug FROM docs").fetchall())
    runs: dict[str, dict[str, list[str]]] = {}
    for mode in ("keyword", "semantic", "hybrid"):
        runs[mode] = {
            qid: [slugs[d] for d, _ in rank(index, model, text, mode, Filters(), K)]
            for qid, text in queries.items()
        }
    index.close()
    return runs


Params = tuple[float, int, float]  # BM25 topic weight, RRF k, semantic weight


def component_rankings(
    root: Path, queries: dict[str, str], topic_weights: tuple[float, ...]
) -> tuple[dict[int, str], dict[float, dict[str, list[int]]], dict[str, list[int]]]:
    """Slugs by doc id, keyword rankings per topic weight, and semantic rankings (top 100)."""
    vault = open_vault(root).vault
    model = QueryModel(vault)
    index = open_index(vault.cache_dir)
    slugs = dict(index.conn.execute("SELECT id, slug FROM docs").fetchall())
    vectors = model.embedder().embed(list(queries.values()))
    depth = rank_module.CANDIDATES
    semantic = {
        q: [d for d, _ in semantic_ranking(index, v, Filters(), depth)]
        for q, v in zip(queries, vectors, strict=True)
    }
    keyword: dict[float, dict[str, list[int]]] = {}
    default = retrieve.BM25_WEIGHTS
    for weight in topic_weights:
        retrieve.BM25_WEIGHTS = (weight, default[1], default[2])
        keyword[weight] = {
            q: [d for d, _ in keyword_ranking(index, text, Filters(), depth)]
            for q, text in queries.items()
        }
    retrieve.BM25_WEIGHTS = default
    index.close()
    return slugs, keyword, semantic


def tune(root: Path, queries: dict[str, str], qrels: Qrels) -> list[str]:
    """Sweep BM25 topic weight, RRF k and semantic weight; report the grid and a 2-fold CV."""
    topic_weights = (1.0, 2.0, 3.0, 5.0)
    slugs, keyword, semantic = component_rankings(root, queries, topic_weights)
    lines = []
    for weight in topic_weights:
        runs = {q: [slugs[d] for d in keyword[weight][q][:K]] for q in queries}
        ndcg = evaluate(runs, qrels, list(queries))[0]
        lines.append(f"keyword alone, topic weight {weight}: nDCG@10 {ndcg:.4f}")
    grid: dict[Params, dict[str, list[str]]] = {}
    for weight, rrf_k, sem in itertools.product(
        topic_weights, (5, 10, 20, 30, 60, 100), (0.5, 0.75, 1.0, 1.5, 2.0)
    ):
        grid[(weight, rrf_k, sem)] = {
            q: [
                slugs[d]
                for d, _ in rank_module.fuse([keyword[weight][q], semantic[q]], [1.0, sem], rrf_k)
            ][:K]
            for q in queries
        }

    def score(params: Params, ids: list[str]) -> float:
        return evaluate(grid[params], qrels, ids)[0]

    ids = sorted(queries, key=int)
    best = max(grid, key=lambda p: score(p, ids))
    lines.append(f"best (topic weight, RRF k, semantic weight) = {best}: {score(best, ids):.4f}")
    halves = [ids[0::2], ids[1::2]]
    shipped = (retrieve.BM25_WEIGHTS[0], rank_module.RRF_K, rank_module.SEMANTIC_WEIGHT)
    for name, (train, test) in (("odd", halves), ("even", halves[::-1])):
        chosen = max(grid, key=lambda p: score(p, train))
        lines.append(
            f"2-fold CV, held-out {name} ids: {chosen} chosen on the other half scores "
            f"{score(chosen, test):.4f}; shipped {shipped} {score(shipped, test):.4f}; "
            f"RRF k=60 (2.0, 60, 1.0) {score((2.0, 60, 1.0), test):.4f}"
        )
    lines.extend(
        f"  {p}: {score(p, ids):.4f}" for p in sorted(grid, key=lambda p: -score(p, ids))[:10]
    )
    return lines


def main() -> None:
    """Print the side-by-side table (and, with --tune, the sweep)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cardvault-bench"))
    parser.add_argument("--tune", action="store_true", help="sweep fusion and BM25 constants")
    args = parser.parse_args()
    os.environ.setdefault("CARDVAULT_CACHE", str(args.workdir / "cache"))
    queries, qrels = load_queries(), load_qrels()
    root, seconds, embedded = prepare(args.workdir)
    print(f"vault {root}: index took {seconds:.1f} s ({embedded} texts embedded)")
    started = time.perf_counter()
    runs = run_modes(root, queries)
    elapsed = time.perf_counter() - started
    print(f"{len(queries)} queries x 3 modes in {elapsed:.1f} s\n")
    print("| mode | nDCG@10 | recall@10 |\n| --- | --- | --- |")
    for mode, mode_runs in runs.items():
        ndcg, recall = evaluate(mode_runs, qrels, list(queries))
        print(f"| {mode} | {ndcg:.4f} | {recall:.4f} |")
    if args.tune:
        print()
        print("\n".join(tune(root, queries, qrels)))


if __name__ == "__main__":
    main()
