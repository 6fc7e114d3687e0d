"""The batch writer: carry out a journal's steps, each file replaced by a rename, flushed once.

Each file is written to a temporary file beside it (named after the journal) and renamed over
its target, so a reader sees the old text or the new one, never half of each; just before, the
target is checked against the digest the plan was made from, so an edit saved in an editor
meanwhile is never clobbered. Durability is paid once per batch, not twice per file: a small
batch fsyncs each file and then each folder once; a large one (an import of thousands of cards)
asks the kernel to flush the whole file system once (`syncfs`). The journal, made durable
before the first write, is what makes the batch all or nothing across a crash. Every target is
checked to be inside the vault with no symlink on the way before anything is written
(vault/confine.py), whoever made the steps (a plan, or a journal being finished).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from cardvault.edits.atomic import fsync_folder
from cardvault.edits.journal import Step, is_removal, temp_path
from cardvault.errors import ConcurrentEditError, UnsafePathError
from cardvault.vault.confine import confined
from cardvault.vault.files import ABSENT, current_digest

#: Up to this many files, each is fsynced on its own; above, one file-system flush for all.
FEW = 16
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def write_steps(
    root: Path,
    steps: Sequence[Step],
    journal_id: str,
    after_write: Callable[[Path], None] | None = None,
    check: bool = True,
) -> None:
    """Carry out `steps` (writes first, then removals) and make them durable.

    With `check`, a target whose digest is no longer the step's `before` raises
    ConcurrentEditError before it is touched.
    """
    each = len(steps) <= FEW
    folders: set[Path] = set()
    real_folders: dict[str, bool] = {}
    for step in steps:  # every target first: inside the vault, no symlink on the way
        confined(root, root / step.rel, real_folders)
    for step in sorted(steps, key=is_removal):
        path = root / step.rel
        if check:
            found = _digest_or_absent(path)
            if found != step.before:
                what = "was created" if step.before == ABSENT else "changed on disk"
                raise ConcurrentEditError(f"{what} since it was read; not overwriting", path)
        try:
            if is_removal(step):
                path.unlink(missing_ok=True)
            else:
                assert step.text is not None
                data = step.text.encode("utf-8")
                _replace(path, data, step.mode, temp_path(path, journal_id), each)
        except OSError as exc:  # named after the file written, not its temporary file
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        folders.add(path.parent)
        if after_write is not None:
            after_write(path)
    if each:
        for folder in folders:
            fsync_folder(folder)
    else:
        flush_file_system(root)


def _replace(path: Path, data: bytes, mode: int | None, tmp: Path, sync: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _digest_or_absent(path: Path) -> str:
    """The file's digest; ABSENT also when a parent is not a folder."""
    try:
        return current_digest(path)
    except (NotADirectoryError, IsADirectoryError):
        return ABSENT


def flush_file_system(root: Path) -> None:
    """Flush every written file of the file system holding `root` in one call (Linux
    `syncfs`; elsewhere `sync`)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(root, os.O_RDONLY)
        try:
            if libc.syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    except (OSError, AttributeError):
        pass
    os.sync()


def sweep_temp_files(root: Path, rels: Iterable[str], journal_id: str) -> int:
    """Remove the temporary files an interrupted batch left beside `rels`; return how many."""
    removed = 0
    for rel in rels:
        try:
            tmp = confined(root, temp_path(root / rel, journal_id))
        except UnsafePathError:
            continue  # never a file of this vault's batches
        if tmp.is_file():
            tmp.unlink()
            removed += 1
    return removed
