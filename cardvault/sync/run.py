"""`cardvault sync`: what each step of a sync plans (the merge, its derived files, what may be
published); the app drives the steps and lands each through the door (app/vaults.py `sync`).
The rounds, the locks and the conflict rules are in docs/writers.md.

A merge is computed in git's object store with cardvault's drivers (sync/driver.py), holding no
lock, and carried out under the vault lock through the journal. A true merge's commit also
holds its derived files, so no commit has the cards beside a stale table. A branch that
touches files that are not cardvault's is never pushed.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from cardvault import history
from cardvault.edits.apply import final_texts
from cardvault.edits.changes import Change, DeleteFile, WriteFile
from cardvault.edits.derived import is_card_path
from cardvault.errors import CardvaultError
from cardvault.history import remote as git_remote
from cardvault.sync import removals
from cardvault.trust.settings import settle, shown
from cardvault.vault.bounded_data import toml_loads
from cardvault.vault.card import parse_card
from cardvault.vault.config import CONFIG_FILE, parse_config
from cardvault.vault.files import ABSENT, read_if_present
from cardvault.vault.layout import Vault
from cardvault.vault.owned import is_written_file

ATTEMPTS = 5
REWRITTEN = (
    "{remote}/{branch} was rewritten (a force-push): commits it dropped were not merged back; "
    "only this clone's own changes since were carried over"
)
_DERIVED_NOTE = "MEMORY.md's table and AGENTS.md's rules made for the merged cards."


@dataclass(frozen=True)
class SyncResult:
    """What a sync did; `conflicts` non-empty means it stopped and changed nothing."""

    remote: str
    branch: str
    merged: str  # "up to date" | "fast-forward" | "merged" | "conflict" | "new branch"
    pushed: bool
    attempts: int
    pending: history.CommitResult | None = None
    conflicts: tuple[git_remote.Conflict, ...] = ()
    notes: list[str] = field(default_factory=list)
    refused: str | None = None  # why nothing was pushed (changes outside the vault's files)
    forgotten: history.CommitResult | None = None  # what came back of forgotten entries, removed


@dataclass(frozen=True)
class Prepared:
    """A merge computed in git's object store from HEAD `merge.old`, and the writes of the
    vault's files that carry it out (none for a conflict or nothing to merge)."""

    merge: history.TreeMerge
    changes: tuple[Change, ...] = ()
    conflicts: tuple[git_remote.Conflict, ...] = ()


def still_current(vault: Vault, prepared: Prepared, recovered: bool) -> bool:
    """Whether a merge prepared holding no lock still holds under it: HEAD has not moved and
    taking the lock finished no interrupted write (the changes' digests catch hand edits)."""
    return not recovered and history.head(vault) == prepared.merge.old


def prepare(
    vault: Vault, top: Path, target: str, today: dt.date, dropped: str | None = None
) -> Prepared:
    """Merge `target` into HEAD in git's object store with its derived files, and the changes
    that write the vault's files (`Door.merge` lands them); writes nothing. `dropped`: the
    remote's old head a rewrite dropped (only our own commits since it are carried over)."""
    taken, stopped = removals.unpaired(top, target)
    message = f"sync: merge {target}"
    merge = history.merge_in_objects(top, target, message, taken=taken, dropped=dropped)
    if merge.how == "conflict":
        for path, _ in merge.conflicts:
            taken.update(removals.kept_after_removal(top, merge, target, path))
        rest = [p for p, _ in merge.conflicts if p not in taken]
        gone = [p for p in rest if removals.removal_wins(top, merge.old, target, p)]
        if len(gone) == len(rest):
            merge = history.merge_in_objects(top, target, message, gone, taken, dropped)
    if merge.how == "conflict" or stopped:
        conflicts = tuple(
            git_remote.Conflict(path, tuple(git_remote.conflict_lines(text)) if text else ())
            for path, text in [*merge.conflicts, *((path, "") for path in stopped)]
        )
        return Prepared(merge, conflicts=conflicts)
    if merge.new is None:
        return Prepared(merge)
    ours = [rel for rel in merge.changed if _journaled(vault, top, rel)]
    git_remote.refuse_overwriting(top, [rel for rel in merge.changed if rel not in ours])
    texts = {rel: history.blob_text(top, merge.new, rel) for rel in ours}
    derived = _derived(vault, top, texts, today) if merge.how == "merged" else {}
    if derived:  # in the merge commit itself: no moment has the cards without them
        merge = history.with_texts(top, merge, derived, _DERIVED_NOTE)
        texts.update(derived)
    changes = [
        _file_change(vault, top / rel, texts[rel])
        for rel in merge.changed
        if _journaled(vault, top, rel)
    ]
    return Prepared(merge, tuple(changes))


def _journaled(vault: Vault, top: Path, rel: str) -> bool:
    """Whether a changed path is one of the vault's files (written through the journal)."""
    inside = os.path.relpath(os.path.join(top, rel), vault.root)
    return not inside.startswith("..") and is_written_file(Path(inside).as_posix())


def _file_change(vault: Vault, path: Path, text: str | None) -> Change:
    """The change that makes `path` hold `text` (None: removed), from what is on disk."""
    found = read_if_present(path, vault.root)
    digest = found.digest if found is not None else ABSENT
    if text is None:
        return DeleteFile(path, digest, "sync: merged")
    return WriteFile(path, text, digest, "sync: merged", "sync")


def how(outcomes: list[str]) -> str:
    return next(
        (h for h in ("merged", "fast-forward", "new branch") if h in outcomes), "up to date"
    )


def not_ours(vault: Vault, paths: list[str]) -> list[str]:
    """Those of `paths` (relative to the work tree) that are not files cardvault writes."""
    top = history.work_tree_of(vault.root) or vault.root
    return [rel for rel in paths if not _journaled(vault, top, rel)]


def refusal(foreign: list[str]) -> str:
    names = ", ".join(shown(rel) for rel in foreign[:3])
    more = f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
    return (
        f"not pushed: the branch holds changes to files outside the vault ({names}{more}); "
        "cardvault publishes memory only: push them yourself (`git push`), then sync again"
    )


def _derived(
    vault: Vault, top: Path, merged: dict[str, str | None], today: dt.date
) -> dict[str, str]:
    """MEMORY.md's table and AGENTS.md's rules made for the cards of a merge (`merged`: the
    vault's changed files by path relative to the work tree, None: removed), where they differ.
    """
    from cardvault.maintain import memory_index
    from cardvault.maintain.promote import rules_changes
    from cardvault.maintain.state import load_state

    files = {top / rel: text for rel, text in merged.items()}
    settled = _merged_settings(vault, files.get(vault.root / CONFIG_FILE))
    read = [_as_read(vault, path, text) for path, text in files.items() if _read(vault, path)]
    state = load_state(settled, today).after(read)
    derived: list[Change] = list(rules_changes(state))
    derived += memory_index.step(state.after(derived), settled.config)
    return {
        Path(os.path.relpath(path, top)).as_posix(): text
        for path, text in final_texts(derived).items()
        if text is not None
    }


def _read(vault: Vault, path: Path) -> bool:
    """Whether the maintenance state models `path`: a card, MEMORY.md or AGENTS.md."""
    return path in (vault.memory_md, vault.agents_md) or is_card_path(vault, path)


def _as_read(vault: Vault, path: Path, text: str | None) -> Change:
    """The change to the maintenance state a merged file makes: a card that does not parse is
    left out of it, as the read path leaves it out (vault/read.py)."""
    if text is not None and path not in (vault.memory_md, vault.agents_md):
        try:
            parse_card(text, path)
        except CardvaultError:
            text = None
    return _file_change(vault, path, text)


def _merged_settings(vault: Vault, text: str | None) -> Vault:
    """`vault` with the settings the merge holds (`text`: its cardvault.toml when it changed)."""
    if text is None:
        return vault
    path = vault.root / CONFIG_FILE
    config, ignored = settle(vault.root, parse_config(toml_loads(text), path))
    return replace(vault, config=config, ignored=ignored)


def index_notes(vault: Vault, result: SyncResult) -> list[str]:
    """Bring an existing search index up to date (outside the lock); what to tell the user."""
    if result.conflicts or result.merged in ("up to date", "new branch"):
        return []
    from cardvault.search.freshness import index_freshness

    if not index_freshness(vault).exists:
        return []
    try:
        from cardvault.search.engine import build_index

        report = build_index(vault)
    except Exception as exc:  # a cache: the next search catches up by itself
        return [f"search index not updated ({exc}); the next search catches up"]
    return [f"search index updated ({report.parsed} file(s) re-read)"]
