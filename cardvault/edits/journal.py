"""The journal: the planned change, made durable before the first file of it is touched.

Before writing, the applier records every file's text before and after in
`.cardvault/journal.json` (temporary name, fsync, rename: the rename decides the change). If the
process dies before the journal is cleared, the next writing command finishes it forward
(recover.py) and commits it with its own message. A write that fails while its process lives is
undone instead: the journal is first renamed to `undo.json` (a rename needs no space on a full
disk), and whoever finds that file finishes the undo, from each step's `old` text.

Temporary files are named after the journal (`.<name>.<id>.tmp`, atomic.short_name), so the
recovery removes exactly those an interrupted run left. A journal is trusted only as far as
cardvault could have written it (docs/security.md): a step that is not a plain relative path to
a file cardvault writes (vault/owned.py), or goes through a symlink, or has a set-uid mode, voids
the whole journal (`VoidJournal`).
"""

from __future__ import annotations

import json
import os
import re
import stat
import uuid
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from cardvault.edits import faults
from cardvault.edits.atomic import fsync_folder, short_name
from cardvault.errors import CardvaultError, NotWritableError
from cardvault.trust.settings import shown
from cardvault.vault.files import ABSENT
from cardvault.vault.layout import Vault
from cardvault.vault.owned import is_written_file

JOURNAL_NAME = "journal.json"
#: The journal of a write that failed and is being undone (module docstring).
UNDO_NAME = "undo.json"
VERSION = 1
_ID = re.compile(r"^[0-9a-f]{1,64}$")
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # a full commit id, SHA-1 or SHA-256


class VoidJournal(CardvaultError):
    """A journal names something cardvault never writes: none of it may be applied."""


@dataclass(frozen=True)
class Step:
    """One file of the change: turn the file with digest `before` into `text` (digest `after`;
    None = remove the file), keeping permission bits `mode` when given."""

    rel: str
    before: str
    after: str
    text: str | None
    mode: int | None = None
    old: str | None = None  # the text before (None: the file did not exist)

    def undone(self) -> Step:
        """The step that puts the file back as it was."""
        return Step(self.rel, self.after, self.before, self.old, self.mode, self.text)


@dataclass(frozen=True)
class Journal:
    """A change in flight: its steps, the commit message that records it (None: leave it
    uncommitted), and whether it is an undo (`rollback`) rather than the change itself."""

    id: str
    message: str | None
    steps: tuple[Step, ...]
    pid: int
    rollback: bool = False
    agent: str | None = None  # the agent the commit is signed with (docs/scopes.md)
    #: sync's merge: instead of a commit, the branch moves from the first commit to the second
    #: once the steps are written (history/treemerge.py)
    moves: tuple[str, str] | None = None


def new_journal(
    message: str | None,
    steps: list[Step],
    rollback: bool = False,
    agent: str | None = None,
    moves: tuple[str, str] | None = None,
) -> Journal:
    """A journal with a fresh id for the current process."""
    ident = uuid.uuid4().hex[:12]
    return Journal(ident, message, tuple(steps), os.getpid(), rollback, agent, moves)


def journal_path(vault: Vault) -> Path:
    """Where the journal of the change in flight lives."""
    return vault.cache_dir / JOURNAL_NAME


def undo_path(vault: Vault) -> Path:
    """Where the journal of a write being undone lives."""
    return vault.cache_dir / UNDO_NAME


def left_behind(vault: Vault) -> bool:
    """Whether an interrupted write left its journal (or an undo in progress) to finish."""
    return journal_path(vault).exists() or undo_path(vault).exists()


def temp_path(path: Path, journal_id: str) -> Path:
    """The temporary file the batch writer fills before renaming it over `path`."""
    return path.with_name(short_name(path.name, f".{journal_id}.tmp"))


def write_journal(vault: Vault, journal: Journal) -> None:
    """Make `journal` durable: temporary file, fsync, rename, fsync of the folder."""
    path = journal_path(vault)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"version": VERSION, **asdict(journal)}
    tmp = path.with_name(f".{JOURNAL_NAME}.tmp")
    try:
        faults.step(tmp)
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False)
            handle.flush()
            os.fsync(handle.fileno())
        faults.step(path)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        hint = (
            f"; {path.parent.name}/ must be a writable folder (cardvault keeps its caches, its "
            "lock and its journal there)"
            if isinstance(exc, PermissionError)
            else ""
        )
        raise NotWritableError(
            f"cannot write the write journal ({exc.strerror or exc}){hint}; nothing written",
            path,
        ) from exc
    fsync_folder(path.parent)


def mark_undo(vault: Vault) -> None:
    """Turn the journal into an undo in progress (a rename: no space needed)."""
    path = journal_path(vault)
    faults.step(path)
    os.replace(path, undo_path(vault))
    fsync_folder(path.parent)


def read_journal(vault: Vault) -> Journal | None:
    """The journal left by an interrupted write, or None. An unreadable one raises."""
    path = journal_path(vault)
    path.with_name(f".{JOURNAL_NAME}.tmp").unlink(missing_ok=True)  # never became the journal
    undo = undo_path(vault)
    try:
        raw = undo.read_text(encoding="utf-8")
        path = undo
    except FileNotFoundError:
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
    try:
        data = json.loads(raw)
        steps = tuple(_step(step) for step in data["steps"])
        message = data["message"]
        if message is not None and not isinstance(message, str):
            raise TypeError("message is not text")
        agent = data.get("agent")
        journal = Journal(
            str(data["id"]),
            message,
            steps,
            int(data["pid"]),
            bool(data["rollback"]),
            agent if isinstance(agent, str) else None,
            _moves(data.get("moves")),
        )
        if path == undo:  # a write being undone: its steps turned round, nothing to commit
            journal = replace(journal, steps=tuple(s.undone() for s in steps), rollback=True)
    except (ValueError, KeyError, TypeError) as exc:
        raise CardvaultError(
            f"the journal of an interrupted write is unreadable ({exc}); look at `git status`, "
            "then delete the file to carry on",
            path,
        ) from exc
    check_journal(vault, journal)
    return journal


def _moves(data: object) -> tuple[str, str] | None:
    """A merge's two commit ids, each a full hexadecimal id (TypeError otherwise)."""
    if data is None:
        return None
    if not isinstance(data, list) or len(data) != 2:
        raise TypeError("moves must name two commits")
    if not all(isinstance(sha, str) and _SHA.fullmatch(sha) for sha in data):
        raise TypeError("moves must name two commits")
    return (data[0], data[1])


def _step(data: dict[str, object]) -> Step:
    """A step from its JSON, each field of its type (TypeError otherwise)."""
    step = Step(**data)  # type: ignore[arg-type]
    texts = (step.rel, step.before, step.after)
    if not all(isinstance(t, str) for t in texts) or not isinstance(step.text, str | None):
        raise TypeError("a step's path, digests and text must be text")
    if not isinstance(step.old, str | None):
        raise TypeError("a step's old text must be text")
    if step.mode is not None and (not isinstance(step.mode, int) or isinstance(step.mode, bool)):
        raise TypeError("a step's mode must be a number")
    return step


def check_journal(vault: Vault, journal: Journal) -> None:
    """Raise VoidJournal unless every step is one cardvault could have planned."""
    if not _ID.match(journal.id):
        raise VoidJournal(f"discarded it: its id {shown(journal.id)} is not one cardvault makes")
    for number, step in enumerate(journal.steps, start=1):
        why = _outside(vault.root, step)
        if why is not None:
            raise VoidJournal(
                f"discarded it, nothing of it applied: step {number} names {shown(step.rel)}, {why}"
            )


def _outside(root: Path, step: Step) -> str | None:
    """Why `step` is not one cardvault could have planned, or None."""
    if not is_written_file(step.rel):
        return "not a file cardvault writes (cards, logs, MEMORY.md, AGENTS.md, settings)"
    if (step.mode is not None and not 0 <= step.mode <= 0o7777) or (step.mode or 0) & 0o6000:
        return f"with mode {step.mode!r}, not an ordinary file's"
    folder = root
    for part in step.rel.split("/"):
        folder = folder / part
        try:
            info = folder.lstat()
        except FileNotFoundError:
            return None  # nothing further exists: no link can lie on the way
        except OSError as exc:
            return f"which cannot be looked at ({exc.strerror})"
        if stat.S_ISLNK(info.st_mode):
            return f"through the symlink {folder.relative_to(root).as_posix()}"
    return "a folder, not a file" if folder.is_dir() else None


def clear_journal(vault: Vault) -> None:
    """Remove the journal: the change it describes is complete (or fully undone)."""
    journal_path(vault).unlink(missing_ok=True)
    undo_path(vault).unlink(missing_ok=True)


def is_removal(step: Step) -> bool:
    """Whether the step removes its file."""
    return step.text is None or step.after == ABSENT
