"""Keyword lookups in the search index that never load the embedding model.

`capture` uses it to find known fixes (a failing command must not wait for a model), and
`context` falls back to it when hybrid search fails. The index is brought up to date for
keywords only: texts that changed are parsed and indexed for BM25, and the next `search` embeds
them. Ranking is the search package's own BM25 (`search.retrieve.keyword_ranking`).
"""

from __future__ import annotations

from dataclasses import dataclass

from cardvault.vault.layout import Vault


@dataclass(frozen=True)
class KeywordHit:
    """One document found by keywords: a card, or a log entry (`entry` = "HH:MM Title")."""

    kind: str  # "card" or "log"
    path: str  # relative to the vault
    slug: str
    topic: str
    body: str
    entry: str | None


def keyword_hits(vault: Vault, query: str, k: int, logs: bool = False) -> list[KeywordHit]:
    """The `k` best BM25 hits for `query` among live cards (and log entries with `logs`)."""
    from cardvault.search.index import open_index
    from cardvault.search.retrieve import Filters, keyword_ranking
    from cardvault.search.sync import sync_index

    index = open_index(vault.cache_dir)
    try:
        sync_index(vault, index, None)
        ranked = keyword_ranking(index, query, Filters(logs=logs), k)
        hits = []
        for doc_id, _ in ranked:
            row = index.conn.execute(
                "SELECT kind, file, slug, topic, body, entry FROM docs WHERE id = ?", (doc_id,)
            ).fetchone()
            if row is not None:
                hits.append(KeywordHit(*row))
        return hits
    finally:
        index.close()
