"""The one applier: carry out a list of file changes all or nothing, even across a crash.

`apply_changes` composes the changes into one final operation per path (a card written by
distill and rewritten by merge is written once, checked against the digest of the text before
either), checks every file against its expected digest and the user's permissions before writing
anything, journals the change (journal.py) and writes it in one batch (batch.py). If a write or
the caller's commit fails, every file is restored to its exact previous bytes and mode, and what
the run created is removed. Callers hold the vault lock: the door (door.py) is the way in.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from cardvault.edits.batch import (
    digest_or_absent,
    put_back,
    sweep_temp_files,
    write_steps,
)
from cardvault.edits.changes import Change, DeleteFile, MoveFile, WriteFile, file_changes
from cardvault.edits.journal import (
    Journal,
    Step,
    clear_journal,
    is_removal,
    journal_path,
    mark_undo,
    new_journal,
    write_journal,
)
from cardvault.errors import CardFormatError, CardvaultError, ConcurrentEditError, NotWritableError
from cardvault.limits import VAULT_FILE
from cardvault.vault.confine import confined
from cardvault.vault.files import (
    ABSENT,
    current_digest,
    digest_text,
    read_if_present,
)
from cardvault.vault.layout import Vault

#: Called with each path right after it was written or removed (tests inject failures here).
AfterWrite = Callable[[Path], None]


class ApplyError(CardvaultError):
    """A write failed; every file was restored to what it was before the run."""


@dataclass(frozen=True)
class FinalOp:
    """What one path ends as: `text` (None = removed), from the file whose digest is `expected`."""

    path: Path
    expected: str
    text: str | None


def compose(changes: Iterable[Change]) -> list[FinalOp]:
    """One final operation per path, in first-touched order, no-ops dropped; ConcurrentEditError
    when a change expects a text the earlier changes did not leave."""
    original: dict[Path, str] = {}
    current: dict[Path, str | None] = {}

    def step(path: Path, expected: str, text: str | None) -> None:
        if path in current:
            now = current[path]
            now_digest = ABSENT if now is None else digest_text(now)
            if now_digest != expected:
                raise ConcurrentEditError("changes disagree about this file's text", path)
        else:
            original[path] = expected
        current[path] = text

    for change in file_changes(list(changes)):
        if isinstance(change, WriteFile):
            step(change.path, change.expected_digest, change.new_text)
        elif isinstance(change, DeleteFile):
            step(change.path, change.expected_digest, None)
        elif isinstance(change, MoveFile):
            step(change.target, ABSENT, change.new_text)
            step(change.source, change.expected_digest, None)
    ops = []
    for path, expected in original.items():
        text = current[path]
        final = ABSENT if text is None else digest_text(text)
        if final != expected:
            ops.append(FinalOp(path, expected, text))
    return ops


def apply_changes(
    vault: Vault,
    changes: Iterable[Change],
    after_write: AfterWrite | None = None,
    finish: Callable[[list[Path]], object] | None = None,
    message: str | None = None,
    moves: tuple[str, str] | None = None,
) -> list[Path]:
    """Write `changes` all or nothing; return the paths written or removed. `finish(paths)`
    (the caller's commit) runs after the last write; if it raises, the files are restored too.
    A crash is finished by the next command: committed with `message` (None: left uncommitted)
    or, with `moves` (sync's merge), the branch moved to the merge commit."""
    ops = compose(changes)
    _check_inside(vault, ops)
    steps = [_step(vault, op) for op in ops]
    _check_writable(vault, ops)
    made_dirs = _missing_dirs(op.path for op in ops if op.text is not None)
    journal = new_journal(message, steps, agent=vault.agent, moves=moves)
    write_journal(vault, journal)
    paths = [op.path for op in ops]
    try:
        write_steps(vault.root, journal.steps, journal.id, after_write, keep_old=True)
        if finish is not None:
            finish(paths)
    except BaseException as exc:
        unrestored = _roll_back(vault, journal, made_dirs)
        if not unrestored and (isinstance(exc, CardvaultError) or not isinstance(exc, Exception)):
            raise
        raise _failure(vault, exc, unrestored) from exc
    sweep_temp_files(vault.root, (s.rel for s in journal.steps), journal.id)
    clear_journal(vault)
    return paths


def _failure(vault: Vault, exc: BaseException, unrestored: list[str]) -> CardvaultError:
    """The one line a failed write reports: what failed, and which files are not back yet."""
    where = getattr(exc, "filename", None) or getattr(exc, "path", None)
    if isinstance(exc, CardvaultError):
        why: object = exc.message
    else:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
    if not unrestored:
        return ApplyError(f"write failed ({why}); every file was restored as it was", where)
    more = f" and {len(unrestored) - 3} more" if len(unrestored) > 3 else ""
    names = ", ".join(unrestored[:3]) + more
    return ApplyError(
        f"write failed ({why}); could not restore {names} yet: the next cardvault command "
        "puts it back as it was (the write is not finished later)",
        where,
    )


def _check_inside(vault: Vault, ops: list[FinalOp]) -> None:
    """Refuse a path outside the vault, into `.git` or through a symlink (vault/confine.py), and
    a text bigger than a vault file may be; each folder is checked once."""
    real_folders: dict[str, bool] = {}
    for op in ops:
        confined(vault.root, op.path, real_folders)
        size = len(op.text.encode("utf-8", errors="surrogatepass")) if op.text else 0
        if size > VAULT_FILE:  # never write a file the read path would refuse
            raise CardFormatError(
                f"would be {size:,} bytes, over the {VAULT_FILE:,} bytes a vault file may "
                "hold; nothing written",
                op.path,
            )


def _check_writable(vault: Vault, ops: list[FinalOp]) -> None:
    """Refuse, before anything is written, a read-only file (a rename would get round the mode,
    and a person who made a card read-only meant it) or a folder that cannot take a new file."""
    for op in ops:
        if op.expected != ABSENT and not os.access(op.path, os.W_OK):
            raise NotWritableError(
                "is read-only for this user; nothing written (make it writable to change it)",
                op.path,
            )
        folder = next(p for p in op.path.parents if p.exists())
        if not os.access(folder, os.W_OK | os.X_OK):
            where = vault.rel(folder)
            named = "the vault's folder" if where in ("", ".") else f"{where}/"
            raise NotWritableError(
                f"cannot be written: this user may not write in {named}; nothing written",
                op.path,
            )


def _step(vault: Vault, op: FinalOp) -> Step:
    """`op` as a journal step, keeping the file's old text and mode for an undo;
    ConcurrentEditError when the file is no longer as the plan read it."""
    path = op.path
    after = ABSENT if op.text is None else digest_text(op.text)
    if op.expected == ABSENT:
        if path.exists() or path.is_symlink():
            raise ConcurrentEditError("was created since the plan was made; nothing written", path)
        return Step(vault.rel(path), op.expected, after, op.text)
    file = read_if_present(path, vault.root)
    if file is None or file.digest != op.expected:
        raise ConcurrentEditError("changed on disk since it was read; nothing written", path)
    mode = path.stat().st_mode & 0o7777
    return Step(vault.rel(path), op.expected, after, op.text, mode, file.text)


def _missing_dirs(paths: Iterable[Path]) -> list[Path]:
    missing: set[Path] = set()
    for path in paths:
        for folder in path.parents:
            if folder.exists():
                break
            missing.add(folder)
    return sorted(missing, key=lambda p: len(p.parts), reverse=True)


def _roll_back(vault: Vault, journal: Journal, made_dirs: list[Path]) -> list[str]:
    """Put every file back to its exact bytes and mode and remove what the run created; return
    the files that could not be put back.

    The journal first becomes an undo (journal.py), so the write is never finished later. Each
    file is restored on its own, by renaming its kept old bytes back (no space needed) or else
    writing its old text; removals first, so a full disk gets its space back. A file at neither
    its old text nor the new one was saved by someone else meanwhile: it is left as found."""
    unrestored: list[str] = []
    try:
        mark_undo(vault)
        marked = True
    except OSError:
        marked = False  # the journal stays as it was: see below
    undo = [step.undone() for step in journal.steps]
    for step in sorted(undo, key=lambda s: not is_removal(s)):
        found = digest_or_absent(vault.root / step.rel)
        if found == step.after:
            continue  # never touched, or already back
        if found != step.before:
            continue  # at neither text: a person's save meanwhile, left as found
        try:
            if not put_back(vault.root, step.rel, journal.id):  # the kept bytes: a rename
                write_steps(vault.root, [step], journal.id)
        except OSError as exc:
            unrestored.append(f"{step.rel} ({exc.strerror or exc})")
    if not unrestored:
        sweep_temp_files(vault.root, (s.rel for s in journal.steps), journal.id)
    for step in undo:
        path = vault.root / step.rel
        try:
            mode = step.mode
            if mode is not None and path.exists() and path.stat().st_mode & 0o7777 != mode:
                os.chmod(path, mode)
        except OSError as exc:
            unrestored.append(f"{step.rel}'s mode ({exc.strerror or exc})")
    for folder in made_dirs:
        try:
            folder.rmdir()
        except OSError:
            continue
    if not unrestored:
        clear_journal(vault)
    elif not marked:  # never finish forward a write reported as failed: drop the journal
        journal_path(vault).unlink(missing_ok=True)
    return unrestored


def final_texts(changes: Iterable[Change]) -> dict[Path, str | None]:
    """Each touched path's final text (None = removed): what a review branch commits."""
    return {op.path: op.text for op in compose(changes)}


def check_unchanged(changes: Iterable[Change]) -> None:
    """Raise ConcurrentEditError if any file changed since the changes were computed."""
    for op in compose(changes):
        if current_digest(op.path) != op.expected:
            raise ConcurrentEditError("changed on disk since it was read; nothing written", op.path)
