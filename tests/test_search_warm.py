"""The warm path: a watched handle skips the comparison of files on an unchanged vault, sees every
change written before a query, and answers exactly as a fresh search does."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardvault import open_vault
from cardvault.vault import layout
from tests.support.search import copy_vault, same_hits, warm_and_fresh, write_card

pytestmark = pytest.mark.slow
QUERIES = ("Cortex CSRF header", "too many db clients", "--no-verify", "docker platform")


@pytest.fixture
def vault_root(search_vault_template: Path, tmp_path: Path) -> Path:
    return copy_vault(search_vault_template, tmp_path / "vault")


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the vault's files were listed and stat-ed (by full comparisons)."""
    calls: list[int] = []
    real = layout.walk

    def counting(vault):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(vault)

    monkeypatch.setattr("cardvault.search.sync.walk", counting)
    return calls


def test_an_unchanged_vault_is_not_compared_again(vault_root: Path, listings: list[int]) -> None:
    with open_vault(vault_root, watch=True) as vault:
        vault.search(QUERIES[0])
        assert len(listings) == 1  # the first query compares every file once
        for query in QUERIES:
            outcome = vault.query(query)
            assert outcome.sync.files == 0 and outcome.sync.parsed == 0
    assert len(listings) == 1


def test_changes_written_before_a_query_are_seen(vault_root: Path, listings: list[int]) -> None:
    with open_vault(vault_root, watch=True) as vault:
        vault.search(QUERIES[0])
        write_card(vault_root, "redis-eviction", "Redis eviction", "Use allkeys-lru for caches.")
        assert vault.search("allkeys-lru", k=1)[0].slug == "redis-eviction"
        (vault_root / "memory" / "cards" / "redis-eviction.md").unlink()
        assert all(hit.slug != "redis-eviction" for hit in vault.search("allkeys-lru"))
    assert len(listings) == 1  # both changes came from the watcher, not a full comparison


def test_warm_answers_equal_a_fresh_search(vault_root: Path) -> None:
    for query, mode, warm, fresh in warm_and_fresh(vault_root, QUERIES):
        assert same_hits(warm, fresh), (query, mode, warm, fresh)


def test_another_process_rebuilding_the_index_is_noticed(vault_root: Path) -> None:
    with open_vault(vault_root, watch=True) as vault, open_vault(vault_root) as other:
        before = vault.search(QUERIES[0])
        other.index(rebuild=True)
        assert vault.search(QUERIES[0]) == before


def test_a_search_ranks_with_the_vectors_its_sync_wrote(
    vault_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sync that embeds a changed card hands the vector matrix it wrote to the ranking: a
    search reads the vector file once, not again to rank."""
    from cardvault.search import embed_sync, retrieve, vector_store

    reads: list[int] = []

    def counting(index):  # type: ignore[no-untyped-def]
        reads.append(1)
        return vector_store.load_matrix(index)

    monkeypatch.setattr(embed_sync, "load_matrix", counting)
    monkeypatch.setattr(retrieve, "load_matrix", counting)
    with open_vault(vault_root, watch=True) as vault:
        vault.search(QUERIES[0])
        write_card(vault_root, "redis-eviction", "Redis eviction", "Use allkeys-lru for caches.")
        reads.clear()
        assert vault.search("evicting cache keys in redis", k=1)[0].slug == "redis-eviction"
    assert reads == [1]
