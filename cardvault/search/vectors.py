"""Text vectors for other services (maintenance, import): the search index's vectors by content.

Maintenance keeps no index of its own: it gets the vectors search uses, keyed by the digest of
the exact text the model read (`card_text`, `text_key`). A long card, stored as several
passages, gets the normalised mean of its passages' vectors under its whole text's key, so a
maintenance run over unchanged cards embeds nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cardvault.search.embedder import Embedder
from cardvault.vault.layout import Vault
from cardvault.vault.progress import Progress

if TYPE_CHECKING:
    import numpy as np

    from cardvault.search.index import IndexHandle
    from cardvault.vault.card import Card

__all__ = [
    "Embedder", "Progress", "card_text", "indexed_vectors", "load_embedder", "model_cache_dir",
    "text_key", "unread_languages", "unread_notice",
]  # fmt: skip


def card_text(topic: str, body: str, tags: Sequence[str]) -> str:
    """What the model reads for a card: its topic, body and tags (exactly the search index's)."""
    from cardvault.search.documents import embed_text

    return embed_text(topic, body, tuple(tags))


def unread_languages(vault: Vault, cards: Iterable[Card]) -> dict[str, int]:
    """How many of `cards` are in each language the vault's model does not read, most first."""
    from collections import Counter

    from cardvault.search.model import reads
    from cardvault.words import language

    spec = vault.config.model
    found = Counter(language(card_text(card.topic, card.body, card.tags)) for card in cards)
    unread = {tag: count for tag, count in found.items() if not reads(spec, tag)}
    return dict(sorted(unread.items(), key=lambda item: (-item[1], item[0])))


def unread_notice(vault: Vault, unread: dict[str, int]) -> str | None:
    """The one line that says how many cards the model cannot read (None: it reads them all)."""
    from cardvault.words import LANGUAGE_NAMES

    total = sum(unread.values())
    if not total:
        return None
    names = [LANGUAGE_NAMES.get(tag, tag) for tag in unread]
    if len(names) > 1:
        names = [f"{name} ({count})" for name, count in zip(names, unread.values(), strict=True)]
    languages = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
    cards = "1 card is" if total == 1 else f"{total} cards are"
    return (
        f"{cards} in {languages}, which the search model {vault.config.model} does not read: "
        "semantic search and merging treat them by keywords only"
    )


def text_key(text: str) -> str:
    """The content key a vector of `text` is stored under."""
    from cardvault.search.documents import text_key as key

    return key(text)


def model_cache_dir() -> Path:
    """The machine-wide folder of the models' ONNX copies ($CARDVAULT_CACHE, ...)."""
    from cardvault.vault.cache import machine_cache

    return machine_cache()


def load_embedder(vault: Vault) -> Embedder:
    """The vault model run by onnxruntime (exported once); raises ModelUnavailableError."""
    from cardvault.search.bulk import onnx_embedder
    from cardvault.search.model import resolve_model

    return onnx_embedder(resolve_model(vault.config.model, vault.root))


def indexed_vectors(
    vault: Vault,
    make_embedder: Callable[[], Embedder],
    progress: Progress | None = None,
    notices: list[str] | None = None,
) -> dict[str, np.ndarray]:
    """Sync the search index, embedding what it lacks with `make_embedder()` (called only when
    something must be embedded); return every verified stored vector by `text_key`. Repairs
    of a damaged index are appended to `notices`."""
    from cardvault.search.embed_sync import Embedding
    from cardvault.search.engine import Searcher
    from cardvault.search.model import resolve_model
    from cardvault.search.vector_store import verified_vectors

    ref = resolve_model(vault.config.model, vault.root)
    with Searcher(vault) as searcher:
        embedding = Embedding(ref, lambda _count: make_embedder())
        index, _ = searcher.synced(embedding, notices if notices is not None else [], progress)
        stored = verified_vectors(index)
        return {**stored, **_whole_documents(index, stored)}


def _whole_documents(index: IndexHandle, stored: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """For each document of several passages whose vectors are all verified: the normalised
    mean of its passages' vectors, under the key of the document's whole text."""
    import numpy as np

    groups: dict[str, list[str]] = {}
    for doc_hash, text_hash in index.conn.execute(
        "SELECT doc_hash, text_hash FROM passages WHERE doc_hash IN "
        "(SELECT doc_hash FROM passages GROUP BY doc_hash HAVING count(*) > 1) "
        "ORDER BY doc_hash, seq"
    ):
        groups.setdefault(doc_hash, []).append(text_hash)
    whole = {}
    for doc_hash, parts in groups.items():
        if doc_hash in stored or not all(part in stored for part in parts):
            continue
        mean = np.mean([stored[part] for part in parts], axis=0)
        whole[doc_hash] = (mean / max(float(np.linalg.norm(mean)), 1e-12)).astype(np.float32)
    return whole
