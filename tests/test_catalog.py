"""The catalog under the read path: an unchanged vault parses nothing, an edited file is parsed
alone, a deleted one leaves, a damaged catalog heals, a tampered row never feeds a write.

Parsing is counted by the read path itself (`snapshot.parsed`, and the `CARDVAULT_DEBUG` log
line the CLI prints), never by a timer.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from pathlib import Path

import pytest

from cardvault.vault.catalog import DB_NAME, decode_each
from cardvault.vault.config import DEFAULT_SIGNALS
from cardvault.vault.layout import Vault
from cardvault.vault.read import read_vault
from cardvault.vault.records import card_record, decode_card, decode_log, dumps, log_record, tagged
from tests.support.cli import run_cli
from tests.support.cli import snapshot as files_of
from tests.support.machine import scaled

CARD = (
    "---\ntopic: {topic}\ncategory: tools\ntags: [t]\ncreated: 2026-01-01\n"
    "updated: 2026-01-01\n---\n{body}\n"
)


def write_card(vault: Vault, slug: str, body: str = "Body.", topic: str | None = None) -> Path:
    path = vault.cards_dir / f"{slug}.md"
    path.write_text(CARD.format(topic=topic or slug, body=body), encoding="utf-8")
    return path


def age(path: Path, seconds: int = 60) -> None:
    """Move a file's mtime into the past, out of the 'racily clean' window."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - seconds * 1_000_000_000))


@pytest.fixture
def vault(vault_path: Path) -> Vault:
    from cardvault.vault.layout import open_vault_at

    v = open_vault_at(vault_path)
    for number in range(5):
        age(write_card(v, f"card-{number}"))
    (v.memory_dir / "2026-11-02.md").write_text("# 2026-11-02\n\n## 10:00 — A\nLesson: x\n")
    age(v.memory_dir / "2026-11-02.md")
    return v


def test_a_second_read_parses_nothing(vault: Vault) -> None:
    first = read_vault(vault)
    assert first.parsed == 6 and len(first.cards) == 5
    second = read_vault(vault)
    assert second.parsed == 0
    assert second.cards == first.cards and second.entries == first.entries


@pytest.mark.parametrize("command", [["check"], ["list", "--json"], ["stats", "--json"]])
def test_a_second_command_run_parses_no_file(
    vault: Vault, command: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    """check, list and stats on an unchanged vault: the second run parses nothing."""
    args = ["--vault", str(vault.root), *command]
    with caplog.at_level(logging.DEBUG, logger="cardvault.vault.read"):
        run_cli(args, env={"CARDVAULT_DEBUG": "1"})
        caplog.clear()
        result = run_cli(args, env={"CARDVAULT_DEBUG": "1"})
    assert result.exit_code == 0, result.output
    reads = [r.getMessage() for r in caplog.records if r.name == "cardvault.vault.read"]
    assert reads and all(", 0 parsed," in line for line in reads), reads


def test_an_edited_file_is_parsed_alone(vault: Vault) -> None:
    read_vault(vault)
    write_card(vault, "card-2", body="A new body, same old card.")
    after = read_vault(vault)
    assert after.parsed == 1
    assert after.card("card-2").card.body.strip() == "A new body, same old card."  # type: ignore[union-attr]


def test_a_touched_but_unchanged_file_is_read_not_parsed(vault: Vault) -> None:
    read_vault(vault)
    age(vault.cards_dir / "card-1.md", seconds=10)  # new mtime, same bytes
    assert read_vault(vault).parsed == 0


def test_an_edit_in_the_same_clock_tick_is_still_seen(vault: Vault) -> None:
    """Same size, same mtime, new bytes: a 'racily clean' file is checked by digest."""
    path = write_card(vault, "racy", body="first")
    stat = path.stat()
    read_vault(vault)
    path.write_text(CARD.format(topic="racy", body="other"), encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size
    assert read_vault(vault).card("racy").card.body.strip() == "other"  # type: ignore[union-attr]


def test_a_deleted_file_leaves_the_catalog(vault: Vault) -> None:
    read_vault(vault)
    (vault.cards_dir / "card-3.md").unlink()
    after = read_vault(vault)
    assert after.card("card-3") is None and after.parsed == 0
    with sqlite3.connect(vault.cache_dir / DB_NAME) as conn:
        rows = {r[0] for r in conn.execute("SELECT rel FROM files")}
    assert "memory/cards/card-3.md" not in rows and "memory/cards/card-4.md" in rows


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.write_bytes(b"this is not a database at all" * 100),
        lambda p: p.write_bytes(b""),
        lambda p: p.write_bytes(p.read_bytes()[:1000]),
    ],
    ids=["garbage", "zero-length", "truncated"],
)
def test_a_damaged_catalog_heals_with_a_notice(vault: Vault, damage: object) -> None:
    first = read_vault(vault)
    path = vault.cache_dir / DB_NAME
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    damage(path)  # type: ignore[operator]
    healed = read_vault(vault)
    assert healed.cards == first.cards
    assert healed.parsed == 6 and any("rebuilt" in n for n in healed.notices)
    assert read_vault(vault).parsed == 0


def test_a_catalog_from_another_version_is_rebuilt(vault: Vault) -> None:
    read_vault(vault)
    with sqlite3.connect(vault.cache_dir / DB_NAME) as conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    again = read_vault(vault)
    assert again.parsed == 6 and any("rebuilt" in n for n in again.notices)


def test_an_unusable_cache_folder_still_reads(vault: Vault) -> None:
    read_vault(vault)
    path = vault.cache_dir / DB_NAME
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.mkdir()  # a folder where the database should be
    found = read_vault(vault)
    assert len(found.cards) == 5 and found.notices


def test_a_tampered_row_never_feeds_a_write(vault: Vault) -> None:
    """Swap two rows' texts (a well-formed catalog describing the wrong cards): reads for a
    write (`verify=True`) notice and parse the files again."""
    read_vault(vault)
    with sqlite3.connect(vault.cache_dir / DB_NAME) as conn:
        rows = dict(conn.execute("SELECT rel, text FROM files WHERE kind = 'card'").fetchall())
        a, b = "memory/cards/card-0.md", "memory/cards/card-1.md"
        conn.execute("UPDATE files SET text = ? WHERE rel = ?", (rows[b], a))
        conn.execute("UPDATE files SET text = ? WHERE rel = ?", (rows[a], b))
    checked = read_vault(vault, verify=True)
    assert checked.parsed == 2
    card = checked.card("card-0")
    assert card is not None and card.file.text == (vault.cards_dir / "card-0.md").read_text()


@pytest.mark.parametrize(
    "damage",
    [lambda e: e.pop("entry_id"), lambda e: e.pop("ordinal"), lambda e: e.update(extra=1)],
    ids=["missing-id", "missing-ordinal", "extra-key"],
)
def test_a_log_row_that_does_not_fit_an_entry_is_parsed_again(vault: Vault, damage: object) -> None:
    """A log row whose entries miss a field (which LogEntry would default) or hold one more
    (a catalog of another version, a damaged row) is not decoded: the file is parsed again."""
    log = vault.memory_dir / "2026-11-02.md"
    log.write_text("# 2026-11-02\n\n## 10:00 — A <!-- id:a1b2c3 -->\nLesson: x\n\n## 10:00 — B\n")
    age(log)
    first = read_vault(vault)
    assert [(e.entry_id, e.ordinal) for e in first.entries] == [("a1b2c3", 1), (None, 2)]
    with sqlite3.connect(vault.cache_dir / DB_NAME) as conn:
        (stored,) = conn.execute("SELECT record FROM files WHERE kind = 'log'").fetchone()
        record = json.loads(stored)
        for entry in record["entries"]:
            damage(entry)  # type: ignore[operator]
        conn.execute("UPDATE files SET record = ? WHERE kind = 'log'", (json.dumps(record),))
    again = read_vault(vault)
    assert again.parsed == 1 and again.entries == first.entries
    assert read_vault(vault).parsed == 0


FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize(
    "path", sorted(FIXTURES.rglob("*.md")), ids=lambda p: str(p.relative_to(FIXTURES))
)
def test_a_record_decodes_to_what_its_parse_made(path: Path) -> None:
    """A file just parsed is handed on as parsed and only rows read from the catalog are
    decoded: sound while the two are equal, value for value and type for type (every fixture
    as a log and as a card, frontmatter of every YAML type the fixtures hold)."""
    text = path.read_text(encoding="utf-8")
    log = path.parent / "memory" / "2026-03-19.md"
    record, entries = log_record(text, log, DEFAULT_SIGNALS)
    back = decode_log(decode_each([dumps(record)], tagged)[0], log)
    assert back == entries and repr(back) == repr(entries)
    record, parsed = card_record(text, path)
    if parsed is not None:
        back = decode_card(decode_each([dumps(record)], tagged)[0], text, path)
        assert back == parsed and repr(back[0].meta) == repr(parsed[0].meta)


def test_a_file_just_parsed_reads_as_it_does_from_the_catalog(vault: Vault) -> None:
    """The first read takes what it parsed, the second decodes the catalog's rows: the same."""
    path = write_card(vault, "dated", "Body [[card-1]].")
    dated = path.read_text().replace("tags: [t]", "tags: [t]\nwhen: 2026-01-01T10:00:00\nn: 1.0")
    path.write_text(dated)
    first = read_vault(vault)
    second = read_vault(vault)
    assert (first.parsed, second.parsed) == (7, 0)
    assert second.cards == first.cards and second.entries == first.entries
    assert [(c.counted, c.linked) for c in second.cards] == [
        (c.counted, c.linked) for c in first.cards
    ]
    assert repr([c.card.meta for c in second.cards]) == repr([c.card.meta for c in first.cards])


def test_the_catalog_lives_in_the_cache_and_nothing_else_is_written(vault: Vault) -> None:
    before = files_of(vault.root)
    read_vault(vault)
    assert files_of(vault.root) == before
    assert (vault.cache_dir / DB_NAME).is_file()


def test_threads_of_one_process_take_turns_with_the_catalog(vault: Vault) -> None:
    """A catalog found foreign or stale is deleted and made anew, and deleting a database file
    another connection of the same process has open corrupts it (SQLite's connections in one
    process share what they know of a file by device and inode, which the new file may reuse):
    an MCP server whose warm-up and a resource read opened a copied vault's catalog at once died
    of SIGBUS in `_create`. So while one thread has the catalog open, another's open waits until
    it is closed — and then reads the vault as usual."""
    import threading
    import time

    from cardvault.vault.catalog import Catalog
    from cardvault.vault.refresh import vault_fingerprint

    read_vault(vault)
    first = Catalog.open(vault.cache_dir, vault_fingerprint(vault))
    opened = threading.Event()
    snapshots = []

    def other_thread() -> None:
        snapshots.append(read_vault(vault))
        opened.set()

    thread = threading.Thread(target=other_thread)
    thread.start()
    time.sleep(0.3)
    assert not opened.is_set()  # waiting for the first thread's catalog
    first.close()
    thread.join(timeout=scaled(30))
    assert opened.is_set() and snapshots[0].cards
