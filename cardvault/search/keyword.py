"""Keyword lookups and index upkeep that never load the embedding model.

For callers that must not wait for a model (`capture`'s known fixes, `forget`). The index is
brought up to date for keywords only; the next `search` embeds what changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardvault.search.text import KeywordQuery, query_terms
from cardvault.vault.layout import Vault

__all__ = ["KeywordHit", "KeywordRefresh", "keyword_hits", "query_terms", "refresh_keywords"]


@dataclass(frozen=True)
class KeywordHit:
    """One document found by keywords: a card, or a log entry (`entry` = "HH:MM Title")."""

    kind: str  # "card" or "log"
    path: str  # relative to the vault
    slug: str
    topic: str
    body: str
    entry: str | None


@dataclass(frozen=True)
class KeywordRefresh:
    """What a keyword-only sync did: files re-read and dropped, and notices (repairs)."""

    parsed: int
    removed_files: int
    notices: tuple[str, ...] = ()


def keyword_hits(
    vault: Vault, query: str | KeywordQuery, k: int, logs: bool = False
) -> list[KeywordHit]:
    """The `k` best BM25 hits for `query` among live cards (and log entries with `logs`)."""
    from cardvault.search.engine import Searcher
    from cardvault.search.retrieve import Filters, keyword_ranking

    with Searcher(vault) as searcher:
        index, _ = searcher.synced(None, [], wait=searcher.query_wait([]))
        ranked = keyword_ranking(index, query, Filters(logs=logs), k)
        hits = []
        for doc_id, _ in ranked:
            row = index.conn.execute(
                "SELECT kind, file, slug, topic, body, entry FROM docs WHERE id = ?", (doc_id,)
            ).fetchone()
            if row is not None:
                hits.append(KeywordHit(*row))
        return hits


def refresh_keywords(vault: Vault) -> KeywordRefresh | None:
    """Sync an existing index without the model (removed text stops being found); None when
    the vault has no index yet."""
    from cardvault.search.engine import Searcher
    from cardvault.search.index import DB_NAME

    if not (vault.index_dir / DB_NAME).is_file():
        return None
    notices: list[str] = []
    with Searcher(vault) as searcher:
        _, report = searcher.synced(None, notices)
    return KeywordRefresh(report.parsed, report.removed_files, tuple(notices))
