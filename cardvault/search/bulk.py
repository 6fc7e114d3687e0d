"""How `cardvault index` embeds: the model's ONNX copy, in length-sorted batches.

onnxruntime gives the same vectors as sentence-transformers without importing torch, and embeds
at least as fast (docs/benchmarks.md); sentence-transformers is loaded only to export the copy.
"""

from __future__ import annotations

from cardvault.search.embed_sync import Embedding
from cardvault.search.embedder import Embedder
from cardvault.search.model import ModelRef, ModelUnavailableError, resolve_model
from cardvault.vault.layout import Vault

#: From this many texts to embed on, the embedder runs in bulk mode (onnx.OnnxEmbedder): below
#: it, the time its session takes to repack the weights would not be repaid.
BULK_TEXTS = 32


def bulk_embedding(vault: Vault) -> tuple[Embedding | None, list[str]]:
    """The embedding for a bulk index of `vault`, or None (with a notice) without a model."""
    try:
        ref = resolve_model(vault.config.model, vault.root)
    except ModelUnavailableError as exc:
        return None, [f"semantic search unavailable (keyword search still works): {exc}"]
    return Embedding(ref, lambda count: onnx_embedder(ref, bulk=count >= BULK_TEXTS)), []


def onnx_embedder(ref: ModelRef, bulk: bool = False, resident: bool = False) -> Embedder:
    """`ref`'s ONNX embedder (of the kind `bulk` and `resident` name: onnx.OnnxEmbedder),
    exporting the ONNX copy first when the cache lacks it or holds a damaged one."""
    from cardvault.search.onnx import discard_copy, ensure_onnx, loaded_embedder

    try:
        return loaded_embedder(ref, ensure_onnx(ref), bulk, resident)
    except ModelUnavailableError:
        if ref.onnx_file is not None:
            raise
        discard_copy(ref)
        return loaded_embedder(ref, ensure_onnx(ref), bulk, resident)
