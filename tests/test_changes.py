"""One change detection (cardvault/vault/changes.py): an edit that kept the file's size and set
its old mtime back is seen alike by the catalog (`show`, `list`), a cold search and a warm,
watching searcher; and `maintain` reads each file once and asks `git status` once.

Each test first lets the files' timestamps age past the racy window (changes.RACY_NS), and
checks that the recorded state is unambiguous: otherwise the edit would be caught because the
record was racy, and the test would show nothing about the signature.
"""

from __future__ import annotations

import collections
import json
import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from cardvault import open_vault
from cardvault.search.freshness import index_freshness
from cardvault.vault.changes import RACY_NS
from cardvault.vault.layout import open_vault_at, walk
from tests.support.cli import run_cli, snapshot
from tests.support.search import copy_vault, write_card

CARD = "memory/cards/docker-apple-silicon.md"


def settle(root: Path) -> None:
    """Wait until no file of the vault changed within the racy window (a second or two)."""
    newest = max(
        max(p.stat().st_mtime_ns, p.stat().st_ctime_ns) for p in (root / "memory").rglob("*.md")
    )
    time.sleep(max(0.0, (newest + RACY_NS - time.time_ns()) / 1e9 + 0.05))


def edit_keeping_stat(path: Path, old: str, new: str) -> None:
    """Replace `old` by `new` (same length), then set the old atime and mtime back."""
    assert len(old.encode()) == len(new.encode())
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def racy_flag(database: Path, table: str, key: str, rel: str) -> int:
    with sqlite3.connect(database) as conn:
        row = conn.execute(f"SELECT racy FROM {table} WHERE {key} = ?", (rel,)).fetchone()
    assert row is not None, rel
    return int(row[0])


def test_the_catalog_sees_a_same_size_same_mtime_edit(vault_path: Path) -> None:
    write_card(vault_path, "packing", "Packing crates", "The wood is walnut.")
    settle(vault_path)
    args = ["--vault", str(vault_path)]
    # `list` reads through the catalog and records the file (`show` of a slug reads the one
    # file directly, context/used.py named_card, so it leaves no catalog row behind)
    assert "Packing crates" in run_cli([*args, "list", "--json"]).output
    assert "walnut" in run_cli([*args, "show", "packing"]).output
    rel = "memory/cards/packing.md"
    assert racy_flag(vault_path / ".cardvault" / "catalog.sqlite", "files", "rel", rel) == 0

    path = vault_path / rel
    edit_keeping_stat(path, "walnut", "almond")
    edit_keeping_stat(path, "crates", "barrel")
    shown = run_cli([*args, "show", "packing"])
    assert shown.exit_code == 0, shown.output
    assert "almond" in shown.output and "walnut" not in shown.output
    listed = json.loads(run_cli([*args, "list", "--json"]).output)
    assert "Packing barrel" in json.dumps(listed) and "Packing crates" not in json.dumps(listed)


@pytest.mark.slow
def test_a_cold_search_sees_a_same_size_same_mtime_edit(
    search_vault_template: Path, tmp_path: Path
) -> None:
    root = copy_vault(search_vault_template, tmp_path / "vault")
    settle(root)
    assert open_vault(root).query("arm64 images").sync.files > 0  # records every file
    assert racy_flag(root / ".cardvault" / "search.sqlite", "files", "path", CARD) == 0

    edit_keeping_stat(root / CARD, "laptop", "wombat")
    assert index_freshness(open_vault_at(root)).changed == 1
    hits = open_vault(root).search("wombat", mode="keyword")
    assert [hit.slug for hit in hits][:1] == ["docker-apple-silicon"]
    shown = run_cli(["--vault", str(root), "search", "wombat"])
    assert shown.exit_code == 0 and "docker-apple-silicon" in shown.output, shown.output


@pytest.mark.slow
def test_a_warm_searcher_sees_a_same_size_same_mtime_edit(
    search_vault_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cardvault.vault import layout

    listings: list[int] = []

    def counting(vault):  # type: ignore[no-untyped-def]
        listings.append(1)  # a full comparison of every file (the real one, counted)
        return layout.walk(vault)

    monkeypatch.setattr("cardvault.search.sync.walk", counting)
    root = copy_vault(search_vault_template, tmp_path / "vault")
    settle(root)
    with open_vault(root, watch=True) as handle:
        assert not handle.search("wombat", mode="keyword")  # compares every file, records them
        assert racy_flag(root / ".cardvault" / "search.sqlite", "files", "path", CARD) == 0
        edit_keeping_stat(root / CARD, "laptop", "wombat")
        outcome = handle.query("wombat", mode="keyword")
        assert [hit.slug for hit in outcome.results][:1] == ["docker-apple-silicon"]
    assert len(listings) == 1  # the second query went by the watcher's report alone


class Observed:
    """Files opened for reading under a vault and the `git status` runs about it, as Python's
    audit events report them (`open`, `subprocess.Popen`): the real calls, counted."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self.reads: collections.Counter[str] = collections.Counter()
        self.statuses = 0
        #: Each vault's write lock taken (its lock file opened to be held), by the vault's root.
        self.locks: collections.Counter[str] = collections.Counter()

    def event(self, name: str, args: tuple[Any, ...]) -> None:
        if name == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            flags = args[2] if len(args) > 2 and isinstance(args[2], int) else os.O_RDONLY
            path = os.fsdecode(args[0])
            if path.endswith(LOCK_FILE) and flags & os.O_CREAT:
                self.locks[path[: -len(LOCK_FILE)]] += 1
            if flags & os.O_ACCMODE == os.O_RDONLY and path.startswith(self.root + os.sep):
                rel = path[len(self.root) + 1 :]
                if rel.endswith(".md") and not rel.startswith((".git/", ".cardvault/")):
                    self.reads[rel] += 1
        elif name == "subprocess.Popen":
            argv = [os.fsdecode(a) for a in args[1]] if isinstance(args[1], list) else []
            if "status" in argv and any(a.startswith(self.root) for a in argv):
                self.statuses += 1


_WATCHING: list[Observed] = []


def _audit(name: str, args: tuple[Any, ...]) -> None:
    for observed in _WATCHING:
        observed.event(name, args)


@contextmanager
def observing(root: Path) -> Iterator[Observed]:
    """Count the reads and git status runs of the block (the hook is added once per process:
    Python cannot remove an audit hook)."""
    if _audit not in _HOOKED:
        sys.addaudithook(_audit)
        _HOOKED.append(_audit)
    observed = Observed(root)
    _WATCHING.append(observed)
    try:
        yield observed
    finally:
        _WATCHING.remove(observed)


_HOOKED: list[object] = []
LOCK_FILE = f"{os.sep}.cardvault{os.sep}write.lock"


@contextmanager
def counting_vault_reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[collections.Counter[str]]:
    """How many times the block read each vault (by its root) through the one read path: the
    real read, counted (every `read_vault` goes through `_read`)."""
    from cardvault.vault import read

    counted: collections.Counter[str] = collections.Counter()
    real = read._read

    def counting(vault: Any, verify: bool) -> Any:
        counted[str(vault.root)] += 1
        return real(vault, verify)

    with monkeypatch.context() as patch:
        patch.setattr(read, "_read", counting)
        yield counted


def vault_files(root: Path) -> set[str]:
    """Every card and log, and MEMORY.md and AGENTS.md: what maintain reads."""
    files = set(walk(open_vault_at(root)).files)
    return files | {name for name in ("MEMORY.md", "AGENTS.md") if (root / name).is_file()}


@pytest.mark.slow
@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "run"])
def test_maintain_reads_each_file_once_and_asks_git_once(
    request: pytest.FixtureRequest, session_model_cache: Path, dry_run: bool
) -> None:
    # the dry run on a vault never indexed (the index is built in the same run, from the same
    # reads); the real run on one indexed before (the session's vectors: it embeds little)
    sample_vault: Path = request.getfixturevalue("sample_vault" if dry_run else "indexed_sample")
    settle(sample_vault)
    before = snapshot(sample_vault)
    expected = vault_files(sample_vault)
    extra = ["--dry-run"] if dry_run else []
    with observing(sample_vault) as observed:
        result = run_cli(["--vault", str(sample_vault), "maintain", "--json", *extra])
    assert result.exit_code == 0, result.output
    after = snapshot(sample_vault)
    written = {rel for rel in before.keys() | after.keys() if before.get(rel) != after.get(rel)}
    assert bool(written) != dry_run  # the sample vault has work for maintain
    unwritten = expected - written
    assert unwritten and {rel: observed.reads[rel] for rel in unwritten} == dict.fromkeys(
        unwritten, 1
    )
    # A file maintain writes is read once by the read path; the write door then reads it again
    # under the lock to check it did not change since the plan (edits/apply.py), and the index
    # refresh reads its new bytes. That is the door's safety check, not a second vault read.
    # A dry run commits nothing, so it has no reason to ask git for the uncommitted files.
    assert observed.statuses == (0 if dry_run else 1)


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "run"])
def test_maintain_is_one_unit_of_work_one_lock_and_one_read_per_vault(
    sample_vault: Path, monkeypatch: pytest.MonkeyPatch, dry_run: bool
) -> None:
    """A run takes the project vault's lock once (the steps before its plan, the plan and its
    commit all under it) and the global vault's once (registering the project); it reads the
    project vault once, into the snapshot every step plans from. A dry run reads it once and
    takes no lock. The steps that need no model: the count is the same with them. (The global
    vault exists, as after `init`: making it is a write of its own.)"""
    from cardvault.app import Session

    shared = str(Session().vault_for(to_global=True).root)
    extra = ["--dry-run"] if dry_run else []
    only = ["--only", "promote,uses,verify,archive,index"]
    args = ["--vault", str(sample_vault), "maintain", "--json", *only, *extra]
    with observing(sample_vault) as observed, counting_vault_reads(monkeypatch) as reads:
        result = run_cli(args)
    assert result.exit_code == 0, result.output
    done = json.loads(result.stdout)
    assert bool(done["commit"]) != dry_run  # the sample vault has work for these steps
    assert reads == {str(sample_vault): 1}
    assert observed.locks == ({} if dry_run else {str(sample_vault): 1, shared: 1})
    # A dry run commits nothing, so it has no reason to ask git for the uncommitted files.
    assert observed.statuses == (0 if dry_run else 1)


def test_maintain_removes_what_came_back_of_a_forget_under_its_one_lock(
    vault_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A card made only of a forgotten entry comes back by a merge that was not cardvault's.
    `maintain` removes it again in a commit of its own, under the run's one lock and from the
    run's read; the vault is read again only because that commit changed it, for the plan."""
    import re

    from cardvault.app import Session
    from tests.support.insight import git

    args = ["--vault", str(vault_path)]
    now = {"CARDVAULT_NOW": "2026-12-01T09:00"}
    done = run_cli([*args, "log", "Gotcha: the CDN caches 404s.", "--title", "404s"], env=now)
    assert done.exit_code == 0, done.output
    log = (vault_path / "memory" / "2026-12-01.md").read_text(encoding="utf-8")
    (ref,) = [f"memory/2026-12-01.md#{i}" for i in re.findall(r"<!-- id:(\w+) -->", log)]
    card = vault_path / "memory" / "cards" / "edge-caching.md"
    card.write_text(
        "---\ntopic: Edge caching\ncategory: lessons\ntags: [edge]\ncreated: 2026-12-01\n"
        f"updated: 2026-12-01\nsources: [{ref}]\n---\n404s stay.\n",
        encoding="utf-8",
    )
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "card")
    assert run_cli([*args, "forget", "CDN", "--yes"], env=now).exit_code == 0
    assert not card.exists()
    git(vault_path, "checkout", "HEAD~1", "--", "memory/cards/edge-caching.md")
    git(vault_path, "commit", "-qm", "a merge by hand brought it back")
    shared = str(Session().vault_for(to_global=True).root)
    only = ["--only", "promote,archive,index"]
    with observing(vault_path) as observed, counting_vault_reads(monkeypatch) as reads:
        result = run_cli([*args, "maintain", "--json", *only], env=now)
    assert result.exit_code == 0, result.output
    assert "removed again what a merge brought back of forgotten entries (1 card(s)" in str(
        json.loads(result.stdout)["notices"]
    )
    assert not card.exists()
    assert "forget: removed again" in git(vault_path, "log", "--format=%s")
    assert observed.locks == {str(vault_path): 1, shared: 1}
    assert reads == {str(vault_path): 2}
