"""Vectors for maintenance: card vectors from the search index, new texts from the same model.

Maintenance keeps no index of its own: on first need the search index is brought up to date and
its vectors read, keyed by text digest; other texts are embedded by the same model and memoised.
A text in a language the model does not read (the English model finds any two Chinese pages
alike) gets a row drawn at random from its digest: alike only to an exact copy of itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from cardvault.search import vectors as search_vectors
from cardvault.search.model import reads
from cardvault.vault.card import Card
from cardvault.vault.progress import Progress
from cardvault.words import language

if TYPE_CHECKING:
    import numpy as np

    from cardvault.vault.layout import Vault

BLOCK = 2048
#: The most partners one card is compared with in maintenance: its closest ones (pairs_above).
MAX_PARTNERS = 50


def card_text(card: Card) -> str:
    """What the model reads for a card: the search index's text, so vectors are shared."""
    return search_vectors.card_text(card.topic, card.body, card.tags)


class Embeddings:
    """Unit vectors for texts, memoised; backed by the search index and `embedder` (any object
    with `embed(texts) -> ndarray`; by default the vault's model, loaded on first need)."""

    def __init__(
        self,
        vault: Vault,
        embedder: Any = None,
        progress: Progress | None = None,
        use_index: bool = True,
    ):
        self._vault = vault
        self._embedder = embedder
        self._progress = progress
        self._memo: dict[str, np.ndarray] = {}
        self._read: dict[str, bool] = {}  # by text digest: the model reads the text's language
        self._use_index = use_index
        self.embed_seconds = 0.0  # time spent in the model
        self.index_seconds = 0.0  # time spent bringing the search index up to date
        # repairs of the search index (damaged cache) to show, and a vault model set aside
        self.notices: list[str] = vault.ignored_notes("search.model")

    @property
    def pending_preload(self) -> bool:
        """True until the search index was read (it never is when no step needed vectors)."""
        return self._use_index

    def _preload_once(self) -> None:
        if self._use_index:
            self._use_index = False
            start = time.perf_counter()
            for key, vector in self._sync(self._load).items():
                self._memo.setdefault(key, vector)
            self.index_seconds += time.perf_counter() - start

    def refresh_index(self) -> None:
        """Bring the search index up to date after the run, with the vectors it computed."""
        start = time.perf_counter()
        self._sync(lambda: self)
        self.index_seconds += time.perf_counter() - start

    def _sync(self, make: Callable[[], Any]) -> dict[str, np.ndarray]:
        progress = self._progress
        step = None if progress is None else (lambda phase, d, t: progress(f"index: {phase}", d, t))
        return search_vectors.indexed_vectors(self._vault, make, step, self.notices)

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """One unit row per text, in order; for a text the model cannot read, its own row."""
        matrix = self.model_vectors(texts)
        for row, text in enumerate(texts):
            if not self._reads(text):
                matrix[row] = own_vector(search_vectors.text_key(text), matrix.shape[1])
        return matrix

    def _reads(self, text: str) -> bool:
        key = search_vectors.text_key(text)
        found = self._read.get(key)
        if found is None:
            found = self._read[key] = reads(self._vault.config.model, language(text))
        return found

    def model_vectors(self, texts: Sequence[str]) -> np.ndarray:
        """One unit row per text, in order, as the model embeds it (whatever its language)."""
        import numpy as np

        self._preload_once()
        keys = [search_vectors.text_key(t) for t in texts]
        missing = list(dict.fromkeys(k for k in keys if k not in self._memo))
        if missing:
            by_key = {k: t for k, t in zip(keys, texts, strict=True)}
            self._embed_missing([by_key[k] for k in missing], missing)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._memo[k] for k in keys]).astype(np.float32, copy=False)

    def embed(self, texts: Sequence[str], progress: Any = None) -> np.ndarray:
        """The embedder the index sync calls after the run: the run's memo first."""
        return self.model_vectors(texts)

    @property
    def dim(self) -> int:
        """Vector length (384 for MiniLM)."""
        for vector in self._memo.values():
            return int(vector.shape[0])
        return 384

    def _embed_missing(self, texts: list[str], keys: list[str]) -> None:
        embedder = self._load()
        progress = self._progress
        step = None if progress is None else (lambda d, t: progress("embedding", d, t))
        start = time.perf_counter()
        try:
            matrix = embedder.embed(texts, step)
        except TypeError:  # an embedder without a progress parameter
            matrix = embedder.embed(texts)
        self.embed_seconds += time.perf_counter() - start
        for key, row in zip(keys, matrix, strict=True):
            self._memo[key] = row

    def _load(self) -> Any:
        if self._embedder is None:
            if self._progress is not None:
                self._progress("loading model", 0, 0)
            self._embedder = search_vectors.load_embedder(self._vault)
        return self._embedder


def own_vector(key: str, dim: int) -> np.ndarray:
    """A unit row drawn at random, seeded by the digest `key`: like no other text's."""
    import numpy as np

    row = np.random.default_rng(int(key[:16], 16)).standard_normal(dim).astype(np.float32)
    return row / np.linalg.norm(row)


def pairs_above(
    matrix: np.ndarray, threshold: float, block: int = BLOCK, partners: int = MAX_PARTNERS
) -> list[tuple[int, int, float]]:
    """(i, j, cosine) for every i < j from `threshold`, each row keeping its `partners` closest
    (ordered by i, then j); products in row blocks, so memory is block × n floats."""
    import numpy as np

    found: list[tuple[int, int, float]] = []
    count = len(matrix)
    for start in range(0, count, block):
        stop = min(start + block, count)
        scores = matrix[start:stop] @ matrix[start:].T
        for offset, row in enumerate(scores):
            cols = np.nonzero(row[offset + 1 :] >= threshold)[0] + offset + 1
            if len(cols) > partners:
                cols = np.sort(cols[np.argsort(-row[cols], kind="stable")[:partners]])
            found.extend((start + offset, start + int(c), float(row[c])) for c in cols)
    return found
