"""The torch-free embedding path: an ONNX copy of the model run by onnxruntime + tokenizers.

`export_onnx` converts the sentence-transformers model's transformer once (it needs torch)
into `<cache>/onnx/<model-id>.v2/model.onnx` plus its weights file `model.onnx.data`.
`OnnxEmbedder` tokenizes, pools and normalises as sentence-transformers does, so its vectors
equal those to float precision.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import threading
import warnings
from collections.abc import Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardvault.search.embedder import (
    Embedder,
    EmbedProgress,
    embed_in_chunks,
    load_sentence_transformer,
)
from cardvault.search.model import ModelRef, ModelUnavailableError
from cardvault.vault.cache import machine_cache

if TYPE_CHECKING:
    import numpy as np

INTRA_OP_THREADS = 2
#: Where Linux shows this process's control group (a container's own, inside a container).
CGROUP = Path("/sys/fs/cgroup")
#: Bumped when the exported files change shape (2: weights as memory-mapped external data).
EXPORT_FORMAT = "v2"


def onnx_path(ref: ModelRef) -> Path:
    """Where the ONNX copy of `ref` lives (it may not exist yet); a bundled model's own file."""
    if ref.onnx_file is not None:
        return ref.onnx_file
    return machine_cache() / "onnx" / f"{ref.model_id}.{EXPORT_FORMAT}" / "model.onnx"


def ensure_onnx(ref: ModelRef) -> Path:
    """The ONNX copy of `ref`, exported first if missing."""
    path = onnx_path(ref)
    if not path.is_file():
        if ref.onnx_file is not None:
            raise ModelUnavailableError(f"the model's ONNX file {path} is missing; reinstall it")
        export_onnx(ref, path)
    return path


def discard_copy(ref: ModelRef) -> None:
    """Delete a damaged exported copy (a bundled model's own file is never touched)."""
    if ref.onnx_file is None:
        onnx_path(ref).unlink(missing_ok=True)


def export_onnx(ref: ModelRef, target: Path) -> None:
    """Export the model's transformer (returning last_hidden_state) next to `target`.

    The weights go to ONNX external data, which onnxruntime memory-maps instead of parsing
    (a much faster session load). Both files are written in a temporary folder renamed into
    place, so readers never see half an export.
    """
    import onnx

    folder = target.parent
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}."))
    try:
        _torch_export(ref, tmp / "single.onnx")
        graph = onnx.load(str(tmp / "single.onnx"))
        onnx.save_model(
            graph, str(tmp / target.name), save_as_external_data=True,
            all_tensors_to_one_file=True, location=f"{target.name}.data", size_threshold=1024,
        )  # fmt: skip
        (tmp / "single.onnx").unlink()
        for path in tmp.iterdir():
            os.chmod(path, 0o644)
        os.chmod(tmp, 0o755)
        if folder.exists():
            shutil.rmtree(folder)  # an incomplete copy (the model file was missing)
        os.replace(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _torch_export(ref: ModelRef, target: Path) -> None:
    """torch.onnx.export of the transformer with dynamic batch and sequence axes."""
    import torch

    model = load_sentence_transformer(ref)
    transformer = model[0].auto_model.eval()
    sample = model.tokenizer(["an example sentence"], return_tensors="pt")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in sample]
    axes = {name: {0: "batch", 1: "sequence"} for name in names}
    axes["last_hidden_state"] = {0: "batch", 1: "sequence"}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _hidden_state_module(transformer, names),
            tuple(sample[n] for n in names),
            str(target),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )


def _hidden_state_module(transformer: Any, names: list[str]) -> Any:
    import torch

    class HiddenState(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, *inputs: Any) -> Any:
            return self.transformer(**dict(zip(names, inputs, strict=True))).last_hidden_state

    return HiddenState()


class OnnxEmbedder(Embedder):
    """`ref`'s vectors computed by onnxruntime from its ONNX copy (no torch import).

    `bulk` (an index, a `maintain`) embeds one unpadded text per run, one single-threaded run
    per core (`bulk_workers`), weights repacked at load: faster per text than batches
    (docs/benchmarks.md). Without it (a query, a few changed cards) one run uses every core for
    the lowest latency and the session loads at once; `resident` (a process answering many
    queries) repacks the weights too, a little slower to load and faster per query.
    """

    def __init__(
        self, ref: ModelRef, model_file: Path, bulk: bool = False, resident: bool = False
    ) -> None:
        self.model_id = ref.model_id
        self.pooling = ref.pooling
        self.query_prefix = ref.query_prefix
        # An int8 file quantises each batch's activations with one scale, so a text's vector
        # would depend on its batch mates: such models read one text at a time.
        self.batch = 1 if ref.onnx_file is not None or bulk else 32
        self.workers = bulk_workers() if bulk else 1
        threads = 1 if bulk else INTRA_OP_THREADS
        self._session = load_session(model_file, threads, prepack=bulk or resident)
        self._inputs = [i.name for i in self._session.get_inputs()]
        self._tokenizer = _load_tokenizer(ref)
        self.dim = int(self._session.get_outputs()[0].shape[-1] or 384)

    def embed(self, texts: Sequence[str], progress: EmbedProgress | None = None) -> np.ndarray:
        """Unit vectors for `texts`, batched by length."""
        if self.workers == 1:
            return embed_in_chunks(texts, self._encode_chunk, self.dim, progress)
        pool = ThreadPoolExecutor(self.workers, thread_name_prefix="cardvault-embed")

        def encode(chunk: list[str]) -> np.ndarray:
            return self._encode_chunk(chunk, pool)

        try:
            return embed_in_chunks(texts, encode, self.dim, progress)
        finally:  # interrupted: runs not started are dropped, the ones running are waited for
            pool.shutdown(wait=True, cancel_futures=True)

    def _encode_chunk(self, texts: list[str], pool: Executor | None = None) -> np.ndarray:
        import numpy as np

        size = self.batch
        batches = [texts[i : i + size] for i in range(0, len(texts), size)]
        parts = list(pool.map(self._encode, batches) if pool else map(self._encode, batches))
        return np.concatenate(parts) if parts else np.zeros((0, self.dim), np.float32)

    def _encode(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        feed["token_type_ids"] = np.array([e.type_ids for e in encodings], dtype=np.int64)
        hidden = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        if self.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


def bulk_workers(cgroup: Path = CGROUP) -> int:
    """Runs at once for a bulk embed: the cores this process may use, no more than its
    container's CPU quota allows (a container limited to 2 CPUs may still see 64 cores)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    quota = cpu_quota(cgroup)
    if quota is not None:
        cores = min(cores, math.ceil(quota))
    return max(1, cores)


def cpu_quota(cgroup: Path = CGROUP) -> float | None:
    """The CPUs a cgroup quota allows (cgroup v2 `cpu.max`, else v1 `cpu.cfs_quota_us` over
    `cpu.cfs_period_us`), or None when there is none or it cannot be read."""
    try:
        if (cgroup / "cpu.max").is_file():
            quota, _, period = (cgroup / "cpu.max").read_text().partition(" ")
            return None if quota.strip() == "max" else int(quota) / int(period)
        v1 = cgroup / "cpu"
        quota_us = int((v1 / "cpu.cfs_quota_us").read_text())
        period_us = int((v1 / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError, ZeroDivisionError):
        return None
    return quota_us / period_us if quota_us > 0 and period_us > 0 else None


#: The embedders this process loaded, by model, file (a copy exported again is a new file) and
#: kind, shared by every caller: a freed onnxruntime session does not give back the pages of
#: the weights file it mapped.
_LOADED: dict[tuple[str, str, int, int, bool, bool], OnnxEmbedder] = {}
_LOADING = threading.Lock()


def loaded_embedder(
    ref: ModelRef, model_file: Path, bulk: bool = False, resident: bool = False
) -> OnnxEmbedder:
    """The process's embedder of this kind for `ref` read from `model_file`, loaded on first
    use."""
    stat = model_file.stat()
    key = (ref.model_id, str(model_file), stat.st_mtime_ns, stat.st_size, bulk, resident)
    with _LOADING:
        loaded = _LOADED.get(key)
        if loaded is None:
            loaded = _LOADED[key] = OnnxEmbedder(ref, model_file, bulk, resident)
        return loaded


def load_session(model_file: Path, threads: int = INTRA_OP_THREADS, prepack: bool = False) -> Any:
    """An onnxruntime session of `model_file` (the embedder's, or the reranker's); `prepack`
    repacks the weights as it loads, repaid by a bulk embed or a few queries, not by one."""
    # onnxruntime keeps a usage database under ~/.cache/Microsoft/DeveloperTools unless this is
    # set before it loads: cardvault writes nothing outside the vault and its own cache.
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    try:
        import onnxruntime as ort
    except ImportError as exc:
        raise ModelUnavailableError(
            "onnxruntime is not installed: pip install onnxruntime"
        ) from exc
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # Idle worker threads must sleep, not spin: a search does other work while the model loads.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if not prepack:
        options.add_session_config_entry("session.disable_prepacking", "1")
    try:
        return ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # a truncated or foreign file: the caller re-exports
        raise ModelUnavailableError(f"cannot load ONNX model {model_file}: {exc}") from exc


def _load_tokenizer(ref: ModelRef) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(ref.tokenizer_path))
    pad = tokenizer.padding or {}
    tokenizer.enable_truncation(ref.max_seq_length)
    tokenizer.enable_padding(
        pad_id=int(pad.get("pad_id", 0)), pad_token=str(pad.get("pad_token", "[PAD]"))
    )
    return tokenizer
