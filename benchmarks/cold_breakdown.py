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
    from cardvault.search import engine, onnx
    from cardvault.search.query_model import QueryModel
    from cardvault.search.retrieve import Filters, keyword_ranking, semantic_ranking
    from cardvault.vault.layout import open_vault_at

    step("import search modules")
    vault = open_vault_at(root)
    step("find vault + read config")
    import numpy as np

    step("import numpy")
    import onnxruntime  # noqa: F401
    import tokenizers  # noqa: F401

    step("import onnxruntime + tokenizers")
    model = QueryModel(vault)
    assert model.ref is not None
    step("resolve model (hash config files)")
    index, _, _ = engine._synced_index(vault, model.embedding(), None, rebuild=False)
    step("open index + no-op sync (stat every file)")
    keyword = keyword_ranking(index, query, Filters(), 100)
    step("keyword ranking (FTS5 BM25)")
    session = onnx.load_session(onnx.ensure_onnx(model.ref))
    step("ONNX session load")
    tokenizer = onnx._load_tokenizer(model.ref)
    step("tokenizer load")
    embedder = onnx.OnnxEmbedder.__new__(onnx.OnnxEmbedder)
    embedder.model_id, embedder.pooling, embedder.dim = model.ref.model_id, "mean", 384
    embedder._session, embedder._tokenizer = session, tokenizer
    embedder._inputs = [i.name for i in session.get_inputs()]
    vector = embedder.embed([query])[0]
    step("embed query")
    semantic = semantic_ranking(index, np.asarray(vector), Filters(), 100)
    step("load vectors (mmap) + cosine ranking")
    fused = engine.fuse([[d for d, _ in keyword], [d for d, _ in semantic]], [1.0, 1.0])[:10]
    results = engine._describe(index, fused, query)
    step("fuse + fetch rows + snippets")
    with redirect_stdout(io.StringIO()):
        render.print_json([hit.to_dict() for hit in results])
    step("JSON output")
    STEPS["total in process"] = round(sum(STEPS.values()), 1)
    CPU["total in process"] = round(sum(CPU.values()), 1)
    print(json.dumps({"wall": STEPS, "cpu": CPU}))


if __name__ == "__main__":
    main()
