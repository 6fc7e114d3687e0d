"""Where a cold `cardvault search` spends its time: the query path, step by step, timed.

    python benchmarks/cold_breakdown.py VAULT "query"

Runs the same functions `cardvault search --json` runs, in the same order, in a fresh process,
and prints one JSON object {"wall": {step: ms}, "cpu": {step: ms}}. The interpreter's own
start-up is not inside the process; benchmarks/speed.py measures it (`python -c pass`).
"""

from __future__ import annotations

import io
import json
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path

STEPS: dict[str, float] = {}
CPU: dict[str, float] = {}
_last = (time.perf_counter(), time.process_time())


def step(name: str) -> None:
    """Record the wall and CPU time since the previous step under `name`."""
    global _last
    now = (time.perf_counter(), time.process_time())
    STEPS[name] = round((now[0] - _last[0]) * 1000, 1)
    CPU[name] = round((now[1] - _last[1]) * 1000, 1)
    _last = now


def main() -> None:
    """Time each step of one hybrid search."""
    root, query = Path(sys.argv[1]), sys.argv[2]
    import cardvault.cli.app  # noqa: F401  (typer, click and the command modules)

    step("import CLI (typer + commands)")
    from cardvault.cli import render, search  # noqa: F401
    from cardvault.search import engine, fusion
    from cardvault.search.query_model import QueryModel
    from cardvault.search.results import Ranked, describe
    from cardvault.search.retrieve import (
        Filters,
        holding_every_term,
        keyword_ranking,
        passage_vectors,
        semantic_ranking,
        term_idf,
    )
    from cardvault.search.text import KeywordQuery
    from cardvault.vault.layout import open_vault_at

    step("import search modules")
    vault = open_vault_at(root)
    step("find vault + read config")
    import numpy  # noqa: F401

    step("import numpy")
    import onnxruntime  # noqa: F401
    import tokenizers  # noqa: F401

    step("import onnxruntime + tokenizers")
    model = QueryModel(vault)
    assert model.ref is not None
    step("resolve model (hash config files)")
    searcher = engine.Searcher(vault, model)
    index, _ = searcher.synced(model.embedding(), [])
    step("open index + no-op sync (stat every file)")
    asked = KeywordQuery.of(query)
    keyword = keyword_ranking(index, asked, Filters(), fusion.CANDIDATES)
    step("keyword ranking (FTS5 BM25)")
    embedder = model.embedder()
    step("ONNX session + tokenizer load")
    vector = embedder.embed_queries([query])[0]
    step("embed query")
    vectors = passage_vectors(index, Filters())
    semantic, passages = semantic_ranking(vectors, vector, fusion.CANDIDATES)
    step("load vectors (mmap) + cosine ranking")
    evidence = fusion.Evidence.of(asked.text, term_idf(index, asked))
    fused = fusion.hybrid(keyword, semantic, evidence, fusion.calibration_for(vault.config.model))
    top = [doc_id for doc_id, _ in fused.hits[:10]]
    exact = holding_every_term(index, asked, [d for d in top if d in fused.weak])
    ranked = Ranked(  # as engine.Searcher._rank builds it
        fused.hits[:10],
        engine._evidence(keyword),
        engine._evidence(semantic),
        passages,
        fused.weights,
        fused.weak - exact,
    )
    results = describe(index, ranked, asked)
    step("fuse + fetch rows + snippets")
    with redirect_stdout(io.StringIO()):
        render.print_json([hit.to_dict() for hit in results])
    step("JSON output")
    searcher.close()
    STEPS["total in process"] = round(sum(STEPS.values()), 1)
    CPU["total in process"] = round(sum(CPU.values()), 1)
    print(json.dumps({"wall": STEPS, "cpu": CPU}))


if __name__ == "__main__":
    main()
