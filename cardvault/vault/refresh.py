"""How the read path brings the catalog up to date: which files to open, which to parse, and
turning catalog rows back into cards and logs (rows that no longer decode are parsed again).
Private to the read path (read.py); nothing else needs it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from cardvault.errors import CardvaultError, UnsafePathError
from cardvault.limits import VAULT_FILE
from cardvault.vault.catalog import Row, decode_each, fingerprint
from cardvault.vault.changes import changed_since, racy
from cardvault.vault.confine import (
    leads_outside,
    name_problem,
    read_file,
    shown,
    symlink_message,
)
from cardvault.vault.files import (
    FileText,
    decode,
    digest_bytes,
    digest_text,
    read_if_present,
)
from cardvault.vault.finding import Finding
from cardvault.vault.layout import FileStat, Vault
from cardvault.vault.records import (
    RECORD_VERSION,
    card_record,
    decode_card,
    decode_log,
    dumps,
    error_record,
    log_record,
    tagged,
)
from cardvault.vault.snapshot import CardFile, LogFile


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Keep Python's cyclic garbage collector off the snapshot: paused while it is built (it
    would scan the new objects several times over: half the read time at 10,000 cards), then
    `gc.freeze` puts them out of its reach. None forms a cycle; reference counting frees them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def intact(row: Row) -> bool:
    """Whether a row's text is the text of the bytes its digest names."""
    return row.text is None or digest_text(row.text) == row.digest


def vault_fingerprint(vault: Vault) -> str:
    """What every record depends on besides its file: the settings and cardvault's own code (an
    upgrade or an edit re-reads the vault)."""
    settings = dataclasses.replace(vault.config, source=None)
    return fingerprint(RECORD_VERSION, settings, code_stamp())


@functools.cache
def code_stamp() -> str:
    from cardvault import __version__

    package = Path(__file__).resolve().parents[1]
    stamps = [__version__]
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        stamps.append(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}")
    return "\n".join(stamps)


def refresh(
    vault: Vault, files: Mapping[str, FileStat], known: Mapping[str, Row], problems: list[Finding]
) -> tuple[dict[str, CardFile], dict[str, LogFile], dict[str, Row], list[Row], int]:
    """`files` as cards and logs (by path), each one's current row, the rows to store, and how
    many files were parsed; what cannot be used is added to `problems`."""
    rows, changed, made = _rows(vault, files, known)
    cards, logs, damaged = _decoded(files, rows, made, problems)
    if damaged:  # rows that no longer decode: parse those files again
        fixed, redone, remade = _rows(vault, {rel: files[rel] for rel in damaged}, {})
        more_cards, more_logs, _ = _decoded(files, fixed, remade, problems)
        cards = dict(sorted({**cards, **more_cards}.items()))  # by path again
        logs = dict(sorted({**logs, **more_logs}.items()))
        rows.update(fixed)
        changed += redone
        made.update(remade)
    return cards, logs, rows, changed, len(made)


#: A file just parsed, by path: its record and what decoding that record gives (None: an error).
Made = dict[str, tuple[dict[str, Any], Any]]


def _rows(
    vault: Vault, files: Mapping[str, FileStat], known: Mapping[str, Row]
) -> tuple[dict[str, Row], list[Row], Made]:
    """The current row of every file, the rows to store, and the files parsed (only a changed
    file is read, and parsed only when its digest changed)."""
    rows: dict[str, Row] = {}
    changed: list[Row] = []
    made: Made = {}
    stale = changed_since(files, known).stale
    for rel, stat in files.items():
        row = known.get(rel)
        if row is not None and rel not in stale and row.kind == stat.kind:
            rows[rel] = row
            continue
        try:
            data = read_file(stat.path, VAULT_FILE).data  # the walk vetted its folders
        except FileNotFoundError:
            continue  # removed since the walk
        except CardvaultError as exc:  # became a symlink or a FIFO since the walk
            data, unreadable = exc.message.encode(), True
        except OSError as exc:
            data, unreadable = f"cannot read: {exc.strerror}".encode(), True
        else:
            unreadable = False
        cut = None
        if not unreadable and stat.kind == "log" and len(data) > VAULT_FILE:
            data, cut = readable_part(data)  # the entries that fit: never lose them all
        digest = digest_bytes(data)
        keep = row is not None and row.digest == digest and row.kind == stat.kind
        if row is not None and keep:
            text, stored = row.text, row.record
        else:
            text, record, value = _parsed(vault, stat, data, unreadable)
            if cut is not None and "entries" in record:
                record["partial"] = partial_note(stat, cut)
            stored, made[rel] = dumps(record), (record, value)
        # A file that could not be read is tried again by the next read, like a racy one: a
        # chmod that fixes it changes no size or mtime, so its stat would look unchanged.
        again = unreadable or racy(stat)
        fresh = Row(
            rel, stat.kind, stat.size, stat.mtime_ns, stat.ctime_ns, stat.inode, digest, again,
            text, stored,
        )  # fmt: skip
        rows[rel] = fresh
        if fresh != row:
            changed.append(fresh)
    return rows, changed, made


def _parsed(
    vault: Vault, stat: FileStat, data: bytes, unreadable: bool
) -> tuple[str | None, dict[str, Any], Any]:
    if unreadable:
        return None, error_record(CardvaultError(data.decode(), stat.path)), None
    try:
        text = decode(data, stat.path, stat.size)
    except CardvaultError as exc:
        return None, error_record(exc), None
    if stat.kind == "log":
        return text, *log_record(text, stat.path, vault.config.signal_words)
    return text, *card_record(text, stat.path)


def readable_part(data: bytes) -> tuple[bytes, int]:
    """The part of an over-long log's first bytes that can be read (every entry that fits whole:
    the text up to the last `## ` heading within the limit, else up to the last full line), and
    the line its cut is at."""
    head = data[:VAULT_FILE]
    heading = head.rfind(b"\n## ")
    stop = heading + 1 if heading > 0 else head.rfind(b"\n") + 1
    kept = head[:stop]
    return kept, kept.count(b"\n") + 1


def partial_note(stat: FileStat, line: int) -> dict[str, Any]:
    """The problem recorded with an over-long log whose first entries were read."""
    message = (
        f"log is {stat.size:,} bytes, over the {VAULT_FILE:,} a vault file may hold: its "
        f"entries before line {line} are read, the rest is left out of search, context and "
        "maintenance, and nothing more can be appended; move the later entries out by hand"
    )
    return {"line": line, "code": "too-big", "message": message}


def _decoded(
    files: Mapping[str, FileStat], rows: Mapping[str, Row], made: Made, problems: list[Finding]
) -> tuple[dict[str, CardFile], dict[str, LogFile], list[str]]:
    """Cards and logs from their rows, by path, and the rels of rows that do not decode: a file
    just parsed as parsed (its record decodes to equal objects), other rows decoded."""
    cards: dict[str, CardFile] = {}
    logs: dict[str, LogFile] = {}
    damaged: list[str] = []
    stored = [row for row in rows.values() if row.rel not in made]
    # a record that is not JSON (catalog.DAMAGED) fails below with a TypeError: parsed again
    records = iter(decode_each([row.record for row in stored], tagged))  # in `rows`' order
    for row in rows.values():
        stat = files[row.rel]
        record, value = made.get(row.rel) or (next(records), None)
        try:
            if "error" in record:
                error = record["error"]
                line, code = int(error["line"]), str(error["code"])
                problems.append(Finding(row.rel, line, str(error["message"]), code))
                continue
            path = Path(stat.abspath)
            file = FileText(path, row.text, row.digest)  # type: ignore[arg-type]
            if stat.kind == "log":
                logs[row.rel] = LogFile(file, value or decode_log(record, path))
                if "partial" in record:
                    cut = record["partial"]
                    problems.append(Finding(row.rel, int(cut["line"]), cut["message"], cut["code"]))
            else:
                card, tokens, links = value or decode_card(record, file.text, path)
                cards[row.rel] = CardFile(file, card, stat.kind == "archived", tokens, links)
        except (KeyError, TypeError, ValueError, CardvaultError):
            damaged.append(row.rel)
    return cards, logs, damaged


def hot_memories(vault: Vault, problems: list[Finding]) -> dict[str, FileText]:
    """memory/agents/<name>.md by agent name (small files, read whole on every read)."""
    if os.path.islink(vault.agents_dir):  # never listed: its names are not the vault's
        rel = vault.rel(vault.agents_dir)
        code = "outside-vault" if leads_outside(vault.root, vault.agents_dir) else "symlink"
        problems.append(Finding(rel, 1, symlink_message(vault.agents_dir, vault.root), code))
        return {}
    try:
        names = sorted(e.name for e in os.scandir(vault.agents_dir) if e.name.endswith(".md"))
    except OSError:
        return {}
    found: dict[str, FileText] = {}
    for name in names:
        if (problem := name_problem(name)) is not None:
            rel = shown(vault.rel(vault.agents_dir / name))
            problems.append(Finding(rel, 1, f"{problem} (shown escaped); rename it", "file-name"))
            continue
        file = optional_file(vault, vault.agents_dir / name, problems)
        if file is not None:
            found[name[: -len(".md")]] = file
    return found


def optional_file(vault: Vault, path: Path, problems: list[Finding]) -> FileText | None:
    """MEMORY.md, AGENTS.md or a hot memory (None when there is none); a file that cannot be
    used is a problem, never an exception."""
    try:
        return read_if_present(path, vault.root)
    except UnsafePathError as exc:
        link = os.path.islink(path) and leads_outside(vault.root, path)
        code = "outside-vault" if link else "symlink"
        problems.append(Finding(vault.rel(path), 1, exc.message, code))
    except CardvaultError as exc:
        problems.append(Finding(vault.rel(path), exc.line or 1, exc.message, "unreadable"))
    except OSError as exc:
        problems.append(Finding(vault.rel(path), 1, f"cannot read: {exc.strerror}", "unreadable"))
    return None
