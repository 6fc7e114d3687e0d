"""The vault read once: every card, log entry, AGENTS.md rule and MEMORY.md, over the catalog.

`read_vault` is the one read path: every service takes what it needs from the `VaultSnapshot`
it returns, so all see the same cards, rules and links. A file that cannot be read or parsed is
a `Finding` in the snapshot, never an exception. Files whose stat is unchanged are not opened,
and changed files are parsed only when their digest changed (`snapshot.parsed` counts them)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any

from cardvault.vault.card import Card
from cardvault.vault.catalog import Catalog
from cardvault.vault.files import read_text
from cardvault.vault.finding import Finding
from cardvault.vault.layout import FileStat, Vault, walk
from cardvault.vault.refresh import (
    collector_paused,
    hot_memories,
    intact,
    optional_file,
    refresh,
    vault_fingerprint,
)
from cardvault.vault.snapshot import CardFile, LogFile, VaultSnapshot, only_one

__all__ = [
    "CardFile",
    "FilesRead",
    "Finding",
    "LogFile",
    "VaultSnapshot",
    "find_card",
    "read_card",
    "read_files",
    "read_vault",
    "remembered",
]

log = logging.getLogger(__name__)


def read_vault(vault: Vault, verify: bool = False) -> VaultSnapshot:
    """Read the vault through its catalog. With `verify` (every command that plans a write),
    each row's text is also checked against its digest, so a damaged or tampered catalog never
    feeds a change (~40 ms at 10,000 cards, which read-only commands do not pay)."""
    start = time.perf_counter()
    with collector_paused():
        snapshot = _read(vault, verify)
    log.debug(
        "read %s: %d files, %d parsed, %.3f s",
        vault.root, len(snapshot.stamps), snapshot.parsed, time.perf_counter() - start,
    )  # fmt: skip
    return snapshot


def _read(vault: Vault, verify: bool) -> VaultSnapshot:
    found = walk(vault)
    problems = [Finding(r.rel, 1, r.message, r.code) for r in found.refused]
    with Catalog.open(vault.cache_dir, vault_fingerprint(vault)) as catalog:
        known = catalog.rows()
        if verify:
            known = {rel: row for rel, row in known.items() if intact(row)}
        cards, logs, rows, changed, parsed = refresh(vault, found.files, known, problems)
        catalog.store(changed, [rel for rel in known if rel not in found.files])
        notices = tuple(catalog.notices)
    memory, agents = (optional_file(vault, p, problems) for p in (vault.memory_md, vault.agents_md))
    hot = hot_memories(vault, problems)
    return VaultSnapshot(
        vault=vault, cards=tuple(sorted(cards.values(), key=attrgetter("archived"))),
        logs=tuple(logs.values()), memory=memory, agents=agents,
        problems=tuple(sorted(problems, key=lambda p: (p.path, p.line))), parsed=parsed,
        notices=notices, stamps=found.files, digests={rel: r.digest for rel, r in rows.items()},
        hot=hot,
    )  # fmt: skip


def read_card(path: Path, root: Path | None = None) -> Card:
    """One card file read and parsed directly, without the catalog (tests, one-off tools):
    inside the vault at `root` with no symlink on the way (default: the card's own folder,
    so the file itself is never a symlink)."""
    from cardvault.vault.card import parse_card

    return parse_card(read_text(path, root or path.parent).text, path)


def find_card(vault: Vault, name: str) -> CardFile:
    """The card whose slug or alias is `name` (live first, then archived); a card file of that
    name that cannot be read or parsed raises its problem, not "no card"."""
    from cardvault.errors import CardvaultError, NotFoundError

    snapshot = read_vault(vault)
    found = snapshot.card(name)
    if found is None:
        for problem in snapshot.problems:
            if problem.path.endswith(f"/{name}.md") and problem.code == "unreadable":
                raise CardvaultError(problem.message, vault.root / problem.path, problem.line)
        raise NotFoundError(f"no card with slug or alias '{name}'")
    return only_one(found, snapshot.cards, vault)


def remembered(
    snapshot: VaultSnapshot,
    name: str,
    payloads: Mapping[str, Any],
    compute: Callable[[Any], Any],
) -> dict[str, Any]:
    """`compute(payload)` for each file (by relative path), kept in the catalog as fact `name`
    under the file's digest, so only files changed since are computed again (check findings,
    secret scans at 10,000 files). Values must be JSON-able."""
    digests = {rel: snapshot.digests[rel] for rel in payloads if rel in snapshot.digests}
    with Catalog.open(snapshot.vault.cache_dir, vault_fingerprint(snapshot.vault)) as catalog:
        values = catalog.facts(name, digests)
        missing = {rel: payload for rel, payload in payloads.items() if rel not in values}
        fresh = {rel: compute(payload) for rel, payload in missing.items()}
        catalog.store_facts(
            name, {rel: (digests[rel], v) for rel, v in fresh.items() if rel in digests}
        )
    return {**values, **fresh}


@dataclass(frozen=True)
class FilesRead:
    """Some files of the vault as the read path has them: parsed cards and logs, the files that
    could not be used, and each file's digest (all by relative path)."""

    cards: dict[str, CardFile]
    logs: dict[str, LogFile]
    problems: dict[str, Finding]
    digests: dict[str, str]


def read_files(vault: Vault, files: Mapping[str, FileStat]) -> FilesRead:
    """The given files (stat-ed by `walk` or `files_at`) through the catalog: what changed is
    parsed and kept for every other command, the rest comes from the catalog. For a caller that
    needs a few files, not the snapshot (the search index's sync)."""
    problems: list[Finding] = []
    with collector_paused(), Catalog.open(vault.cache_dir, vault_fingerprint(vault)) as catalog:
        cards, logs, rows, changed, _ = refresh(vault, files, catalog.rows(files), problems)
        catalog.store(changed, [])
    return FilesRead(
        cards=cards,
        logs=logs,
        problems={problem.path: problem for problem in problems},
        digests={rel: row.digest for rel, row in rows.items()},
    )
