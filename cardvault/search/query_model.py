"""The model on the query path: resolved cheaply, its ONNX session loaded once per process.

Loading the session is the largest single cost of a cold search, and onnxruntime releases the
GIL while it loads: `prefetch` starts it on a background thread while the sync and the keyword
ranking run on the main thread; `embedder()` waits for it.
"""

from __future__ import annotations

import contextlib
import threading

from cardvault.search.bulk import BULK_TEXTS, onnx_embedder
from cardvault.search.embed_sync import Embedding
from cardvault.search.embedder import Embedder
from cardvault.search.model import ModelRef, ModelUnavailableError, resolve_model
from cardvault.vault.layout import Vault


class QueryModel:
    """The vault's model for `search`: `ref` is None (and `error` set) when it is unusable;
    `resident` for a long-lived searcher (`OnnxEmbedder`)."""

    def __init__(self, vault: Vault, resident: bool = False) -> None:
        self.resident = resident
        self.ref: ModelRef | None = None
        self.error: ModelUnavailableError | None = None
        self._embedder: Embedder | None = None
        self._loader: threading.Thread | None = None
        self._lock = threading.Lock()  # searchers of several vaults may share the model
        try:
            self.ref = resolve_model(vault.config.model, vault.root)
        except ModelUnavailableError as exc:
            self.error = exc

    def embedding(self, verify: bool = True) -> Embedding | None:
        """How a sync embeds new texts, or None without a usable model; `verify` checks every
        stored vector row even when nothing changed (needed before ranking by vectors)."""
        if self.ref is None:
            return None
        return Embedding(self.ref, self._embedder_for, verify)

    def _embedder_for(self, count: int) -> Embedder:
        """The query embedder for a few texts; a bulk one of its own for many."""
        if count < BULK_TEXTS:
            return self.embedder()
        assert self.ref is not None
        return onnx_embedder(self.ref, bulk=True)

    def settle(self) -> None:
        """Wait for a background load to finish (a process must not exit while onnxruntime is
        still loading on another thread: that aborts it)."""
        if self._loader is not None:
            self._loader.join()

    def prefetch(self) -> None:
        """Start loading the ONNX session in the background, if its file is already there."""
        from cardvault.search.onnx import onnx_path

        with self._lock:
            if self.ref is None or self._loader is not None or self._embedder is not None:
                return
            if onnx_path(self.ref).is_file():
                # numpy first, here: onnxruntime imports it on the loader thread, and a second
                # thread importing numpy meanwhile (the sync does) fails with a circular import.
                import numpy  # noqa: F401
                import tokenizers  # noqa: F401

                self._loader = threading.Thread(
                    target=self._load, name="cardvault-onnx", daemon=True
                )
                self._loader.start()

    def _load(self) -> None:
        from cardvault.search.onnx import loaded_embedder, onnx_path

        assert self.ref is not None
        # a failure is left to embedder(), which loads again and re-exports a damaged copy
        with contextlib.suppress(BaseException):
            self._embedder = loaded_embedder(self.ref, onnx_path(self.ref), resident=self.resident)

    def embedder(self) -> Embedder:
        """The ONNX embedder; exports the model first if needed, re-exports a damaged copy."""
        with self._lock:
            if self._loader is not None:
                self._loader.join()
                self._loader = None
            if self._embedder is not None:
                return self._embedder
            if self.ref is None:
                raise self.error or ModelUnavailableError("no embedding model")
            self._embedder = onnx_embedder(self.ref, resident=self.resident)
            return self._embedder
