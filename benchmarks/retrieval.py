"""Retrieval quality per workload: keyword vs semantic vs hybrid, nDCG@10 and hits@3.

    python benchmarks/retrieval.py [--workdir /tmp/cardvault-bench]
                                   [--workloads til simonw scifact]

Workloads:
- `til paraphrase` / `til exact`: the hand-written queries of benchmarks/eval/til-jbranchaud.tsv
  over a vault of the 1,871 til-jbranchaud notes (benchmarks/til.py), one target note each;
- `simonw paraphrase` / `simonw exact`: benchmarks/eval/til-simonw.tsv, written blind (no search
  run) after the fusion was settled, over the 577 longer til-simonw notes: every row is `test`;
- `scifact`: the 809 BEIR SciFact train claims over a vault of its 5,183 abstracts
  (benchmarks/scifact.py), judged by qrels/train.tsv.

Each query set is split: `dev` rows (til: every fifth query of each kind; SciFact: odd query
ids) were looked at while the fusion was designed, `test` rows never were. The table gives both
and all. The vaults are built and indexed once under the work folder (first-index throughput is
printed), then every query runs through the same functions `cardvault search` uses: the BM25
and passage rankings of `search.retrieve`, fused by `search.fusion`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import scifact
import til

from cardvault import open_vault
from cardvault.search.engine import Searcher
from cardvault.search.fusion import CANDIDATES, hybrid
from cardvault.search.retrieve import Filters, keyword_ranking, semantic_ranking, term_idf

K = 10
Ranking = list[tuple[int, float]]
#: (query, keyword ranking, semantic ranking, text of the best keyword hit, idf) -> ranking
Fusion = Callable[[str, Ranking, Ranking, str, dict[str, float]], Ranking]


@dataclass(frozen=True)
class Query:
    """One query of a workload: id, split, text and judged documents (path -> relevance)."""

    qid: str
    split: str
    text: str
    relevant: dict[str, int]


@dataclass
class Components:
    """Each query's keyword and semantic rankings (top CANDIDATES), and paths by document id."""

    paths: dict[int, str]
    keyword: dict[str, Ranking]
    semantic: dict[str, Ranking]
    texts: dict[int, str]  # topic, tags and body, for the fusion's coverage
    idf: dict[str, dict[str, float]]  # per query: its words' inverse document frequency


def ndcg_at_k(ranked: list[str], relevant: dict[str, int], k: int = K) -> float:
    """Normalised discounted cumulative gain of the first k paths."""
    dcg = sum(relevant.get(s, 0) / math.log2(i + 2) for i, s in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def hit_at(ranked: list[str], relevant: dict[str, int], k: int = 3) -> float:
    """1 when a relevant document is in the first k, else 0."""
    return 1.0 if set(ranked[:k]) & set(relevant) else 0.0


def til_queries(kind: str, path: Path = til.EVAL) -> list[Query]:
    """The hand-written til queries of one kind (paraphrase or exact)."""
    return [
        Query(q.qid, q.split, q.text, {q.target: 1}) for q in til.load_eval(path) if q.kind == kind
    ]


def scifact_queries() -> list[Query]:
    """The SciFact train claims; odd ids are the dev half."""
    qrels = scifact.load_qrels()
    return [
        Query(
            qid,
            "dev" if int(qid) % 2 else "test",
            text,
            {f"memory/cards/{slug}.md": rel for slug, rel in qrels[qid].items()},
        )
        for qid, text in scifact.load_queries().items()
    ]


def prepare(root: Path, build: Callable[[Path], int]) -> dict[str, float]:
    """Build the vault once and bring its index up to date; the first index is timed."""
    cards = build(root)
    started = time.perf_counter()
    with open_vault(root) as handle:
        report = handle.index()
    seconds = time.perf_counter() - started
    figures = {"cards": cards, "passages": report.passages, "embedded": report.embedded}
    if report.embedded:
        figures.update(
            seconds=round(seconds, 1),
            cards_per_s=round(report.embedded_docs / seconds, 2),
            passages_per_s=round(report.embedded / seconds, 2),
        )
    return figures


def components(root: Path, queries: list[Query]) -> Components:
    """Keyword and semantic rankings of every query, as `search` computes them."""
    with Searcher(open_vault(root).vault) as searcher:
        index, _ = searcher.synced(searcher.model.embedding(), [])
        paths = dict(index.conn.execute("SELECT id, file FROM docs").fetchall())
        texts = {
            doc_id: "\n".join(parts)
            for doc_id, *parts in index.conn.execute("SELECT id, topic, tags, body FROM docs")
        }
        vectors = searcher.model.embedder().embed([q.text for q in queries])
        passages = searcher._passage_vectors(index, Filters())
        keyword, semantic, idf = {}, {}, {}
        for query, vector in zip(queries, vectors, strict=True):
            idf[query.qid] = term_idf(index, query.text)
            keyword[query.qid] = keyword_ranking(index, query.text, Filters(), CANDIDATES)
            semantic[query.qid] = semantic_ranking(passages, vector, CANDIDATES)[0]
    return Components(paths, keyword, semantic, texts, idf)


def modes(fusion: Fusion) -> dict[str, Fusion]:
    """The three modes as functions of (query, keyword ranking, semantic ranking)."""
    return {
        "keyword": lambda q, kw, sem, text, idf: kw,
        "semantic": lambda q, kw, sem, text, idf: sem,
        "hybrid": fusion,
    }


def score(comp: Components, queries: list[Query], rank: Fusion) -> tuple[float, float]:
    """Mean nDCG@10 and hits@3 of `rank` over `queries`."""
    if not queries:
        return 0.0, 0.0
    ndcg = hits = 0.0
    for query in queries:
        keyword = comp.keyword[query.qid]
        best = comp.texts[keyword[0][0]] if keyword else ""
        fused = rank(query.text, keyword, comp.semantic[query.qid], best, comp.idf[query.qid])
        ranked = [comp.paths[d] for d, _ in fused[:K]]
        ndcg += ndcg_at_k(ranked, query.relevant)
        hits += hit_at(ranked, query.relevant)
    return ndcg / len(queries), hits / len(queries)


def table(workloads: dict[str, tuple[Components, list[Query]]], fusion: Fusion) -> list[str]:
    """Markdown rows: workload, split, n, then nDCG@10 / hits@3 per mode."""
    lines = [
        "| workload | queries | keyword nDCG@10 | semantic nDCG@10 | hybrid nDCG@10 "
        "| keyword hits@3 | semantic hits@3 | hybrid hits@3 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, (comp, queries) in workloads.items():
        for split in ("test", "dev", "all"):
            chosen = [q for q in queries if split in ("all", q.split)]
            if not chosen:
                continue
            results = {m: score(comp, chosen, f) for m, f in modes(fusion).items()}
            ndcgs = " | ".join(f"{results[m][0]:.4f}" for m in results)
            hits = " | ".join(f"{results[m][1]:.3f}" for m in results)
            lines.append(f"| {name} ({split}) | {len(chosen)} | {ndcgs} | {hits} |")
    return lines


def main() -> None:
    """Build, index, rank and print the table (and the first-index throughput)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cardvault-bench"))
    parser.add_argument("--workloads", nargs="+", default=["til", "scifact"])
    parser.add_argument("--dump", type=Path, help="also write the component rankings as JSON")
    args = parser.parse_args()
    os.environ.setdefault("CARDVAULT_CACHE", str(args.workdir / "cache"))
    workloads: dict[str, tuple[Components, list[Query]]] = {}
    if "til" in args.workloads:
        root = args.workdir / "til-jbranchaud"
        print("til-jbranchaud index:", json.dumps(prepare(root, til.build_vault)), flush=True)
        for kind in ("paraphrase", "exact"):
            queries = til_queries(kind)
            workloads[f"til {kind}"] = (components(root, queries), queries)
    if "simonw" in args.workloads:
        root = args.workdir / "til-simonw"
        build = lambda r: til.build_vault(r, til.SIMONW)  # noqa: E731
        print("til-simonw index:", json.dumps(prepare(root, build)), flush=True)
        for kind in ("paraphrase", "exact"):
            queries = til_queries(kind, til.SIMONW_EVAL)
            workloads[f"simonw {kind}"] = (components(root, queries), queries)
    if "scifact" in args.workloads:
        root = args.workdir / "scifact"
        print("scifact index:", json.dumps(prepare(root, scifact.build_vault)), flush=True)
        queries = scifact_queries()
        workloads["scifact"] = (components(root, queries), queries)
    if args.dump:
        dump(args.dump, workloads)
    fusion: Fusion = lambda q, kw, sem, text, idf: hybrid(q, kw, sem, text, idf).hits  # noqa: E731
    print("\n".join(table(workloads, fusion)))


def dump(path: Path, workloads: dict[str, tuple[Components, list[Query]]]) -> None:
    """Write every query's component rankings as JSON (for studying fusions offline)."""
    data = {
        name: {
            "paths": comp.paths,
            "queries": [
                {
                    "qid": q.qid,
                    "split": q.split,
                    "text": q.text,
                    "relevant": q.relevant,
                    "keyword": comp.keyword[q.qid],
                    "semantic": comp.semantic[q.qid],
                }
                for q in queries
            ],
        }
        for name, (comp, queries) in workloads.items()
    }
    path.write_text(json.dumps(data), encoding="utf-8")


if __name__ == "__main__":
    main()
