"""Turning text into unit vectors: sentence-transformers for bulk indexing.

Two embedders share one shape (`Embedder`): `SentenceTransformerEmbedder`, whose vectors are
the reference, and `onnx.OnnxEmbedder`, the same weights run by onnxruntime without torch, which
cardvault uses. torch and sentence-transformers are imported inside functions only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from cardvault.search.model import ModelRef, ModelUnavailableError, set_offline_env

if TYPE_CHECKING:
    import numpy as np

#: Called as progress(done, total) while texts are embedded.
EmbedProgress = Callable[[int, int], None]
BATCH = 32
#: Texts per progress report (a chunk holds texts of like length, from the sorted order).
CHUNK = 32


class Embedder(Protocol):
    """Anything that maps texts to L2-normalised float32 vectors of one model."""

    model_id: str
    query_prefix: str  # the model's query instruction ("" when it has none)

    def embed(self, texts: Sequence[str], progress: EmbedProgress | None = None) -> np.ndarray:
        """One row per text, in order."""
        ...

    def embed_queries(self, queries: Sequence[str]) -> np.ndarray:
        """One row per search query (with the model's query instruction, if it has one)."""
        return self.embed([self.query_prefix + q for q in queries])


def embed_in_chunks(
    texts: Sequence[str],
    encode: Callable[[list[str]], np.ndarray],
    dim: int,
    progress: EmbedProgress | None,
) -> np.ndarray:
    """Encode `texts` in chunks of like length, reporting progress after each; rows come back in
    order. The chunks go in a fixed shuffled order, not longest first, so a progress bar's ETA
    holds from the first chunk on."""
    import random

    import numpy as np

    out = np.zeros((len(texts), dim), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # like lengths pad least
    starts = list(range(0, len(order), CHUNK))
    random.Random(0).shuffle(starts)
    done = 0
    for start in starts:
        index = order[start : start + CHUNK]
        out[index] = encode([texts[i] for i in index])
        done += len(index)
        if progress is not None:
            progress(done, len(texts))
    return out


class SentenceTransformerEmbedder(Embedder):
    """The model loaded by sentence-transformers (slow to import: about 10 s here)."""

    def __init__(self, ref: ModelRef) -> None:
        self.model_id = ref.model_id
        self.query_prefix = ref.query_prefix
        self._model = load_sentence_transformer(ref)
        dimension = (
            getattr(self._model, "get_embedding_dimension", None)
            or self._model.get_sentence_embedding_dimension
        )
        self.dim = int(dimension() or 384)

    def embed(self, texts: Sequence[str], progress: EmbedProgress | None = None) -> np.ndarray:
        """Vectors exactly as `SentenceTransformer.encode(normalize_embeddings=True)` gives."""
        return embed_in_chunks(texts, self._encode, self.dim, progress)

    def _encode(self, batch: list[str]) -> np.ndarray:
        import numpy as np

        vectors = self._model.encode(
            batch, batch_size=BATCH, normalize_embeddings=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)


def load_sentence_transformer(ref: ModelRef) -> Any:
    """Load `ref` with sentence-transformers on the CPU, offline; clear error when impossible."""
    import os

    from cardvault.vault.cache import machine_cache

    set_offline_env()
    # Importing torch makes a `torchinductor_<user>` folder in the system temp folder unless
    # told otherwise: cardvault writes nothing outside the vault and its own cache.
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(machine_cache() / "torchinductor"))
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ModelUnavailableError(
            "sentence-transformers is not installed: pip install sentence-transformers"
        ) from exc
    try:
        return SentenceTransformer(str(ref.path), device="cpu")
    except Exception as exc:  # any load failure means the same thing to the user
        raise ModelUnavailableError(
            f"cannot load embedding model from {ref.path}: {exc}", ref.path
        ) from exc
