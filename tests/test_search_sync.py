"""Incremental sync and self-healing of the search index, with the real model."""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
from pathlib import Path

import pytest

from cardvault import open_vault
from cardvault.search.index import DB_NAME
from cardvault.trust.store import approve
from tests.support.search import copy_vault, write_card

pytestmark = pytest.mark.slow


@pytest.fixture
def vault_root(search_vault_template: Path, tmp_path: Path) -> Path:
    """A copy of the indexed vault whose index this copy has made its own (one sync)."""
    root = copy_vault(search_vault_template, tmp_path / "vault")
    open_vault(root).index()
    return root


def test_fresh_copy_needs_no_work(vault_root: Path) -> None:
    report = open_vault(vault_root).query("anything").sync
    assert (report.parsed, report.embedded, report.removed_files) == (0, 0, 0)


def test_a_copied_index_reads_every_file_again_and_embeds_nothing(
    search_vault_template: Path, tmp_path: Path
) -> None:
    """An index that is not the file it was created as (copied here, or checked out by git)
    keeps nothing it says of the files (tests/test_planted_cache.py), only the vectors of the
    texts: every file is read again, none embedded again."""
    root = copy_vault(search_vault_template, tmp_path / "vault")
    report = open_vault(root).query("anything").sync
    assert report.parsed == report.files > 0
    assert (report.embedded, report.removed_files) == (0, 0)
    again = open_vault(root).query("anything").sync
    assert (again.parsed, again.embedded) == (0, 0)


def test_broken_card_is_reported_not_fatal(search_vault_template: Path, tmp_path: Path) -> None:
    root = copy_vault(search_vault_template, tmp_path / "v")
    report = open_vault(root).index(rebuild=True)
    assert any("broken-card.md" in error for error in report.errors)
    assert report.documents > 5


def test_edited_card_alone_is_reembedded(vault_root: Path) -> None:
    card = vault_root / "memory" / "cards" / "docker-apple-silicon.md"
    card.write_text(card.read_text().replace("arm64;", "arm64 (aarch64);"), encoding="utf-8")
    outcome = open_vault(vault_root).query("aarch64 images")
    assert (outcome.sync.parsed, outcome.sync.embedded) == (1, 1)
    assert outcome.results[0].slug == "docker-apple-silicon"


def test_touched_but_unchanged_card_is_not_reembedded(vault_root: Path) -> None:
    card = vault_root / "memory" / "cards" / "dana-prefers-small-prs.md"
    os.utime(card, ns=(1, 1))
    report = open_vault(vault_root).query("pull requests").sync
    assert (report.parsed, report.embedded) == (0, 0)


def test_new_and_deleted_cards(vault_root: Path) -> None:
    vault = open_vault(vault_root)
    write_card(vault_root, "redis-eviction", "Redis eviction policy", "Use allkeys-lru for caches.")
    (vault_root / "memory" / "cards" / "pyjwt-import-error.md").unlink()
    outcome = vault.query("cannot import name jwt", mode="keyword")
    # a keyword query never waits for the model: the new card is embedded by the next ranked one
    assert outcome.sync.embedded == 0 and outcome.sync.unembedded == 1
    assert outcome.sync.removed_files == 1
    assert all(hit.slug != "pyjwt-import-error" for hit in outcome.results)
    ranked = vault.query("redis eviction", k=1)
    assert ranked.sync.embedded == 1 and ranked.results[0].slug == "redis-eviction"


def test_corrupted_index_heals_with_a_notice(vault_root: Path) -> None:
    (vault_root / ".cardvault" / DB_NAME).write_bytes(b"this is not a database" * 100)
    outcome = open_vault(vault_root).query("Cortex CSRF token")
    assert any("rebuilt it" in notice for notice in outcome.notices)
    assert outcome.results[0].slug == "cortex-csrf-automation"


def test_foreign_schema_version_is_rebuilt(vault_root: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(vault_root / ".cardvault" / DB_NAME)
    with conn:
        conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema'")
    conn.close()
    outcome = open_vault(vault_root).query("docker platform", mode="keyword")
    assert any("schema version 999" in notice for notice in outcome.notices)
    assert outcome.results[0].slug == "docker-apple-silicon"


@pytest.mark.parametrize("damage", ["delete", "truncate"])
def test_lost_vector_file_is_reembedded(vault_root: Path, damage: str) -> None:
    for path in (vault_root / ".cardvault").glob("vectors-*.npy"):
        if damage == "delete":
            path.unlink()
        else:
            path.write_bytes(path.read_bytes()[:1000])
    outcome = open_vault(vault_root).query("connection pool")
    assert outcome.sync.embedded >= 9
    assert outcome.results[0].slug == "postgres-connection-pool"


def test_missing_model_keeps_keyword_search(vault_root: Path) -> None:
    (vault_root / "cardvault.toml").write_text('[search]\nmodel = "./no-such-model"\n')
    approve(vault_root, [("search.model", "./no-such-model")], dt.datetime(2026, 3, 19))
    vault = open_vault(vault_root)
    outcome = vault.query("PgBouncer")
    assert outcome.mode == "keyword"
    assert any("no-such-model" in notice for notice in outcome.notices)
    assert outcome.results[0].slug == "postgres-connection-pool"
    from cardvault.search.model import ModelUnavailableError

    with pytest.raises(ModelUnavailableError, match="does not exist"):
        vault.search("PgBouncer", mode="semantic")


def test_another_model_rebuilds_the_vectors_with_a_notice(vault_root: Path) -> None:
    """Vectors of two models never mix: changing `[search] model` embeds every passage again
    (with a notice), and the index then answers in the new model's space."""
    from cardvault.search.model import BUNDLED
    from cardvault.vault.config import VaultConfig

    other = next(name for name in BUNDLED if name != VaultConfig().model)
    config = vault_root / "cardvault.toml"
    config.write_text(config.read_text() + f'\n[search]\nmodel = "{other}"\n', encoding="utf-8")
    outcome = open_vault(vault_root).query("login POST rejected with 403")
    assert any("another model" in notice for notice in outcome.notices), outcome.notices
    assert outcome.sync.embedded == outcome.sync.passages > 5
    assert outcome.results[0].slug == "cortex-csrf-automation"
    again = open_vault(vault_root).query("login POST rejected with 403")
    assert again.sync.embedded == 0 and not again.notices


def test_upgrade_from_schema_2_keeps_every_vector(vault_root: Path) -> None:
    """An index written by the previous schema is upgraded in place: files are read again (to
    learn which log entries are pending and what cards cite), nothing is embedded again."""
    import sqlite3

    with sqlite3.connect(vault_root / ".cardvault" / DB_NAME) as conn:
        conn.execute("DROP TABLE cites")
        conn.execute("ALTER TABLE docs DROP COLUMN pending")
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
    outcome = open_vault(vault_root).query("race between fixtures", logs=True)
    assert outcome.sync.embedded == 0 and outcome.sync.parsed == outcome.sync.files
    assert outcome.results[0].entry == "09:15 Flaky CI"


def test_upgrade_from_schema_8_tells_ages_from_the_index_and_embeds_nothing(
    vault_root: Path,
) -> None:
    """Schema 8 kept no card's dates (a hit's age was read from the card): the upgrade reads
    every file again, keeps every vector, and each card hit tells its age from its row."""
    import sqlite3

    with sqlite3.connect(vault_root / ".cardvault" / DB_NAME) as conn:
        for column in ("edited", "used", "stale"):
            conn.execute(f"ALTER TABLE docs DROP COLUMN {column}")
        conn.execute("UPDATE meta SET value = '8' WHERE key = 'schema'")
    with open_vault(vault_root) as handle:
        found = handle.search_hits("docker arm64 images", k=3)
    outcome = found.outcomes[0][1]
    assert any("schema version 8, upgraded to" in n for n in outcome.notices), outcome.notices
    assert outcome.sync.embedded == 0 and outcome.sync.parsed == outcome.sync.files
    cards = [about for (_, hit), about in zip(found.hits, found.about, strict=True) if hit.dates]
    assert cards and all(about["age"] and "age_days" in about for about in cards)


def test_upgrade_from_schema_5_names_the_broken_card_it_had_recorded(vault_root: Path) -> None:
    """Schema 5 kept no file's problem, so a broken card it had recorded was never named again;
    the upgrade reads every file again (embedding nothing), and every search names it."""
    import sqlite3

    with sqlite3.connect(vault_root / ".cardvault" / DB_NAME) as conn:
        conn.execute("DROP INDEX files_problem")
        conn.execute("ALTER TABLE files DROP COLUMN problem")
        conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema'")
    outcome = open_vault(vault_root).query("anything", mode="keyword")
    assert any("schema version 5, upgraded to" in n for n in outcome.notices), outcome.notices
    assert outcome.sync.embedded == 0 and outcome.sync.parsed == outcome.sync.files
    again = open_vault(vault_root).query("anything", mode="keyword").sync
    assert again.parsed == 0 and any("broken-card.md" in e for e in again.errors)


def test_upgrade_from_schema_4_stems_every_text_again(vault_root: Path) -> None:
    """Schema 4 held FTS5's own Porter stems; the upgrade indexes every text's terms again with
    the one stemmer (cardvault/words.py) that queries use, and embeds nothing again."""
    import sqlite3

    with sqlite3.connect(vault_root / ".cardvault" / DB_NAME) as conn:
        conn.execute("DROP TABLE fts")
        conn.execute(
            "CREATE VIRTUAL TABLE fts USING fts5(topic, tags, body, "
            "tokenize = 'porter unicode61 remove_diacritics 2')"
        )
        conn.execute("UPDATE meta SET value = '4' WHERE key = 'schema'")
    outcome = open_vault(vault_root).query("races between fixtures", mode="keyword", logs=True)
    assert any("schema version 4, upgraded to" in n for n in outcome.notices), outcome.notices
    assert outcome.sync.embedded == 0 and outcome.sync.parsed == outcome.sync.files
    assert outcome.results[0].entry == "09:15 Flaky CI"


def _keyword_rows(root: Path) -> list[tuple[object, ...]]:
    """Every document's key with its keyword terms, as the index holds them."""
    import sqlite3

    from cardvault.vault.layout import open_vault_at

    conn = sqlite3.connect(open_vault_at(root).index_dir / DB_NAME)
    try:
        return conn.execute(
            "SELECT d.key, f.topic, f.tags, f.body FROM docs d JOIN fts f ON f.rowid = d.id "
            "ORDER BY d.key"
        ).fetchall()
    finally:
        conn.close()


def test_an_entry_added_to_a_log_indexes_as_a_rebuild_does(
    vault_root: Path, tmp_path: Path
) -> None:
    """The log's unchanged entries keep their keyword terms, its new entry gets its own, and
    an edited entry its new ones: the same rows a full rebuild makes."""
    log = vault_root / "memory" / "2026-11-03.md"
    text = log.read_text(encoding="utf-8").replace("Nothing to note.", "Ate a sandwich.")
    log.write_text(text + "\n## 16:00 — Gateway retries\nThe gateway retried twice.\n")
    outcome = open_vault(vault_root).query("gateway retried", logs=True)
    assert outcome.sync.parsed == 1
    assert any(hit.path == "memory/2026-11-03.md" for hit in outcome.results)
    rows = _keyword_rows(vault_root)
    assert any("sandwich" in str(row[3]) for row in rows)
    assert not any("note" in str(row[3]).split() for row in rows if "14:30" in str(row[0]))
    rebuilt = copy_vault(vault_root, tmp_path / "rebuilt")
    open_vault(rebuilt).index(rebuild=True)
    assert rows == _keyword_rows(rebuilt)


def test_a_hit_card_the_sync_read_tells_its_new_age(
    vault_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A card changed since the index is read by the search's sync, and its age is told from
    that read (its new `updated`), beside an unchanged card's age read from the catalog."""
    card = vault_root / "memory" / "cards" / "docker-apple-silicon.md"
    card.write_text(card.read_text().replace("updated: 2026-03-19", "updated: 2026-03-29"))
    monkeypatch.setenv("CARDVAULT_NOW", "2026-04-01T12:00")
    with open_vault(vault_root) as handle:
        found = handle.search_hits("docker arm64 images", k=3, mode="keyword")
    rows = zip(found.hits, found.about, strict=True)
    ages = {hit.slug: about.get("age_days") for (_, hit), about in rows}
    assert found.outcomes[0][1].sync.parsed == 1
    assert ages["docker-apple-silicon"] == 3


def _log_rows(root: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(root / ".cardvault" / DB_NAME) as conn:
        return conn.execute(
            "SELECT d.id, d.key, d.line, f.body FROM docs d JOIN fts f ON f.rowid = d.id "
            "WHERE d.file = 'memory/2026-11-03.md' ORDER BY d.line"
        ).fetchall()


def test_an_entry_added_to_a_log_is_the_one_row_written(vault_root: Path) -> None:
    """A log's other entries keep their rows (ids, terms) when one is added; entries that
    moved are written again at their new lines, and an entry removed leaves the index."""
    log = vault_root / "memory" / "2026-11-03.md"
    before = _log_rows(vault_root)
    text = log.read_text(encoding="utf-8")
    log.write_text(text + "\n## 16:00 — Wombat census\nCounted the wombats.\n", encoding="utf-8")
    vault = open_vault(vault_root)
    outcome = vault.query("wombat census", mode="keyword", logs=True)
    assert outcome.sync.parsed == 1 and outcome.results[0].slug == "2026-11-03#16:00"
    after = _log_rows(vault_root)
    assert after[: len(before)] == before and len(after) == len(before) + 1
    log.write_text("# 2026-11-03\n\n## 08:00 — Early\nWombats again.\n\n" + text[14:], "utf-8")
    moved = vault.query("wombat", mode="keyword", logs=True)
    assert [hit.slug for hit in moved.results] == ["2026-11-03#08:00"]  # 16:00 is gone
    rows = _log_rows(vault_root)
    assert [row[1] for row in rows] == ["memory/2026-11-03.md#08:00", *(b[1] for b in before)]
    assert [row[2:] for row in rows[1:]] == [(b[2] + 3, b[3]) for b in before]  # moved down
