"""Hybrid search over the vault: a derived SQLite FTS5 + vector index, synced incrementally."""
