"""Helpers for the maintenance tests: a maintenance run with the real model, and small
fixture vaults.

The model (sentence-transformers, the vectors the index uses) is conftest's session fixture
`embedder`, loaded once per test run; the ONNX copy the CLI exports goes to one shared cache
folder, so it is exported once per run. Vaults are made by the real init service (git repo,
first commit) and filled with real files.
"""

from __future__ import annotations

import datetime as dt
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from cardvault import history
from cardvault.app.vaults import init_vault
from cardvault.edits.proposal import Proposal, propose
from cardvault.search.embedder import Embedder
from cardvault.vault.card import DISTILLED_KEY, body_mark
from cardvault.vault.layout import Vault, open_vault_at
from cardvault.vault.read import read_vault

#: One lesson, written twice in other words (cosine above the merge threshold).
PLATFORM_A = (
    "Images built on an Apple Silicon Mac default to `linux/arm64`, but our Kubernetes nodes are "
    "`linux/amd64`. Such an image crashes on start with `exec format error`.\n\n"
    "Always build with `docker buildx build --platform linux/amd64`."
)
PLATFORM_B = (
    "Docker on an M-series MacBook builds arm64 images unless told otherwise, while the cluster "
    "nodes are amd64, so the pod dies with `exec format error`.\n\n"
    "Fix: pass `--platform linux/amd64` to docker buildx, or export "
    "DOCKER_DEFAULT_PLATFORM=linux/amd64 in the shell. Emulated builds are slow.\n\n"
    "Always build with `docker buildx build --platform linux/amd64`."
)


def new_vault(root: Path) -> Vault:
    """A fresh vault at `root` made by `cardvault init`."""
    init_vault(root)
    return open_vault_at(root)


def card(
    vault: Vault,
    slug: str,
    topic: str,
    body: str,
    category: str = "tools",
    tags: str = "[test]",
    created: str = "2026-03-01",
    updated: str | None = None,
    extra: str = "",
    folder: str = "cards",
    distilled: bool = False,
) -> Path:
    """Write a valid card file (not committed); `distilled`: as `maintain` distilled it (its
    body's mark, vault/card.py), else a curated (hand-written) card."""
    path = vault.root / "memory" / folder / f"{slug}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    if distilled:
        extra += f"{DISTILLED_KEY}: {body_mark(body)}\n"
    path.write_text(
        f"---\ntopic: {topic}\ncategory: {category}\ntags: {tags}\ncreated: {created}\n"
        f"updated: {updated or created}\n{extra}---\n{body.strip()}\n",
        encoding="utf-8",
    )
    return path


def log(vault: Vault, day: str, entries: list[tuple[str, str, str]]) -> Path:
    """Write memory/<day>.md with `(time, title, body)` entries (not committed)."""
    text = f"# {day}\n"
    for time, title, body in entries:
        text += f"\n## {time} — {title}\n{body.strip()}\n"
    path = vault.root / "memory" / f"{day}.md"
    path.write_text(text, encoding="utf-8")
    return path


def cited_as(vault: Vault, refs: Iterable[str]) -> set[str]:
    """How maintenance cites now the entries these positional citations name: a test's logs
    are written by hand, without ids, and the first `maintain` gives them theirs (old
    citations keep naming the same entries: vault/entry_ids.py)."""
    from cardvault.vault.entry_ids import entries_by_ref
    from cardvault.vault.read import read_vault

    by_ref = entries_by_ref(read_vault(vault).entries)
    return {by_ref[r].ref if r in by_ref else r for r in refs}


def commit_all(vault: Vault, message: str = "fixture") -> None:
    """Commit everything in the vault."""
    history.commit(vault, message, None)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file's bytes under `root` (.git and the cache excluded)."""
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] in (".git", ".cardvault"):
            continue
        if path.is_file():
            files[rel] = path.read_bytes()
    return files


def git(root: Path, *args: str) -> str:
    """Run git in `root` and return its output."""
    done = subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    )
    return done.stdout


def run(vault: Vault, embedder: Embedder, today: str = "2026-06-01", **options: Any) -> Any:
    """One maintenance run through the service with the shared model (conftest's `embedder`)."""
    from cardvault.app.maintenance import run_maintenance
    from cardvault.maintain.run import RunOptions

    after_write = options.pop("after_write", None)
    moment = dt.datetime.fromisoformat(f"{today}T09:15")
    return run_maintenance(
        vault, RunOptions(moment, **options), embedder=embedder, after_write=after_write
    )


def contradicting_vault(root: Path, embedder: Embedder) -> Vault:
    """A committed vault of two cards that contradict each other (use Jest / never Jest, use
    Vitest), maintained once: its review queue holds the contradiction, pending."""
    vault = new_vault(root)
    card(vault, "use-jest", "Use Jest for dashboard tests",
         "Always use Jest for the dashboard's unit tests; its jsdom setup is configured.",
         tags="[testing, jest]", created="2026-01-10")  # fmt: skip
    card(vault, "vitest-not-jest", "Vitest for dashboard tests",
         "Never use Jest for the dashboard's unit tests; use Vitest, which runs ESM natively.",
         tags="[testing, vitest]", created="2026-03-01")  # fmt: skip
    commit_all(vault)
    run(vault, embedder, today="2026-03-20")
    return vault


def ask_cross_project(vault: Vault) -> Any:
    """Put one pending cross-project question in `vault`'s review queue (as `maintain --global`
    asks it of the global vault: two project cards that may tell one lesson) and commit it;
    the question (a ReviewItem) is returned."""
    from dataclasses import replace

    from cardvault.vault.decisions import Member, ReviewItem, item_id, queue_path, render_queue

    cites = ("github.com/acme/alpha:memory/cards/a.md", "github.com/acme/beta:memory/cards/b.md")
    members = tuple(Member(key=c, path=c, text="HTTP calls need a timeout") for c in cites)
    asked = ReviewItem("", "cross-project", members, {"why": "similar, not certain"}, "2026-11-29")
    asked = replace(asked, id=item_id(asked.kind, asked.keys))
    queue_path(vault.root).write_text(render_queue([asked]), encoding="utf-8")
    history.commit(vault, "a cross-project question")
    return asked


def assert_memory_table_current(root: Path) -> None:
    """MEMORY.md on disk holds the categories table the vault's cards make (vault/
    memory_table.py): what maintenance's index step, and every write that adds, moves or
    removes a card, leaves."""
    from cardvault.vault.memory_table import with_table
    from cardvault.vault.read import read_vault

    read = read_vault(open_vault_at(root))
    assert read.memory is not None
    budget = read.vault.config.memory_byte_budget
    assert with_table(read.memory.text, read.vault, read.live, budget)[0] == read.memory.text


def give_entry_ids(vault: Vault) -> Callable[[], Proposal[None]]:
    """The planning function of the vault's entry-id migration, for the door to commit alone."""
    from cardvault.maintain.entry_ids import id_changes

    def plan() -> Proposal[None]:
        migration = id_changes(read_vault(vault, verify=True))
        return propose(migration.changes, migration.message, None)

    return plan
