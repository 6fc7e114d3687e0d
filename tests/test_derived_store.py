"""The derived stores meet an old schema and a file copied from another vault one way
(vault/derived_store.py): the catalog and the search index are both rebuilt from this vault's
files and answer as before, an old schema with the same notice and a copy silently; only the
tables a store keeps (the index's vectors) survive, and a copy's are marked unproven.

Real files throughout: two vaults made by `cardvault init`, their cards on disk, the catalog
read by `read_vault`, the index synced and searched by keyword (no model).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from cardvault.app.vaults import init_vault
from cardvault.search import index
from cardvault.search.engine import Searcher
from cardvault.vault import catalog
from cardvault.vault.layout import Vault, open_vault_at
from cardvault.vault.read import read_vault

CARD = "---\ntopic: {0}\ncategory: tools\ntags: [t]\ncreated: 2026-01-01\n---\n{1}\n"

#: (what was parsed, what the store answers, its notices) after one use of it.
Use = tuple[int, list[str], tuple[str, ...]]


def _read_catalog(vault: Vault) -> Use:
    snapshot = read_vault(vault)
    return snapshot.parsed, [card.slug for card in snapshot.cards], snapshot.notices


def _search_index(vault: Vault) -> Use:
    with Searcher(vault) as searcher:
        outcome = searcher.search("kettle", mode="keyword")
    return outcome.sync.parsed, [hit.slug for hit in outcome.results], outcome.notices


#: Each store: its file, version, and how a command uses it.
STORES: dict[str, tuple[str, str, Callable[[Vault], Use]]] = {
    "catalog": (catalog.DB_NAME, catalog.SCHEMA_VERSION, _read_catalog),
    "search index": (index.DB_NAME, index.SCHEMA_VERSION, _search_index),
}
OLD = "UPDATE meta SET value = '0' WHERE key = 'schema'"


def _vault(root: Path, bodies: dict[str, str]) -> Vault:
    init_vault(root)
    vault = open_vault_at(root)
    for slug, body in bodies.items():
        (vault.cards_dir / f"{slug}.md").write_text(CARD.format(slug, body), encoding="utf-8")
    return vault


def _forge(path: Path, *statements: str) -> None:
    with sqlite3.connect(path) as conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()


@pytest.fixture
def vaults(tmp_path: Path) -> tuple[Vault, Vault]:
    """This vault, and another one whose cards say other things under the same names."""
    mine = _vault(tmp_path / "mine", {"kettle": "Descale the kettle monthly.", "tea": "Steep."})
    other = _vault(tmp_path / "other", {"kettle": "A kettle of fish.", "fish": "Kettle."})
    return mine, other


@pytest.mark.parametrize("store", sorted(STORES))
def test_an_old_schema_is_rebuilt_from_the_vault_with_one_notice(
    vaults: tuple[Vault, Vault], store: str
) -> None:
    vault, _ = vaults
    name, version, use = STORES[store]
    first = use(vault)
    assert first[0] == 2 and first[1] and first[2] == ()
    _forge(vault.cache_dir / name, OLD)
    parsed, answer, notices = use(vault)
    assert (parsed, answer) == first[:2]  # every file read again, the same answer
    assert notices == (
        f"{store} had schema version 0, upgraded to {version}: rebuilt it from the "
        f"vault's files{'' if store == 'catalog' else index.STORE.kept_note}",
    )
    assert use(vault) == (0, first[1], ())


@pytest.mark.parametrize("store", sorted(STORES))
def test_a_file_copied_from_another_vault_is_rebuilt_silently(
    vaults: tuple[Vault, Vault], store: str
) -> None:
    mine, other = vaults
    name, _, use = STORES[store]
    own = use(mine)
    use(other)
    for suffix in ("", "-wal", "-shm"):
        (mine.cache_dir / f"{name}{suffix}").unlink(missing_ok=True)
    shutil.copy(other.cache_dir / name, mine.cache_dir / name)
    assert use(mine) == own  # this vault's files, read again; nothing of the other's
    assert use(mine)[0] == 0


def test_only_the_index_keeps_its_vectors_and_a_copys_are_unproven(
    vaults: tuple[Vault, Vault],
) -> None:
    """What the policy keeps is each store's row of data: the catalog's facts go with its
    schema, the index's vectors (keyed by their text's digest) stay, unproven in a copy."""
    vault, other = vaults
    read_vault(vault)
    _search_index(vault)
    _search_index(other)
    facts = "INSERT INTO facts VALUES ('memory/cards/tea.md', 'check', 'digest', '[]')"
    _forge(vault.cache_dir / catalog.DB_NAME, facts, OLD)
    vector = "INSERT INTO vectors VALUES ('text-digest', 0, 0, NULL)"
    for root in (vault, other):
        _forge(root.index_dir / index.DB_NAME, vector)
    _forge(vault.index_dir / index.DB_NAME, OLD)
    shutil.copy(other.index_dir / index.DB_NAME, other.cache_dir.parent / "copied.sqlite")
    for suffix in ("", "-wal", "-shm"):
        (other.index_dir / f"{index.DB_NAME}{suffix}").unlink(missing_ok=True)
    shutil.move(other.cache_dir.parent / "copied.sqlite", other.index_dir / index.DB_NAME)

    with catalog.Catalog.open(vault.cache_dir, "any") as opened:
        assert opened.facts("check", {"memory/cards/tea.md": "digest"}) == {}
    for root, unproven in ((vault, None), (other, "1")):
        handle = index.open_index(root.index_dir)
        rows = handle.conn.execute("SELECT text_hash FROM vectors").fetchall()
        assert rows == [("text-digest",)] and handle.meta(index.UNPROVEN) == unproven
        assert handle.conn.execute("SELECT count(*) FROM docs").fetchone() == (0,)
        handle.close()
