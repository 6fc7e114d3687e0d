"""The batch writer: carry out a journal's steps, each file replaced by a rename, flushed once.

Each file is written to a temporary file beside it (named after the journal) and renamed over
its target, so a reader sees the old text or the new one. The target is checked against the
plan's digest before its bytes are written and again just before the rename, so an editor's save
meanwhile is refused, not clobbered. A small batch fsyncs each file and each folder once; a large
one (an import of thousands of cards) flushes the file system once (`syncfs`). With `keep_old`,
each file about to be replaced or removed is first kept as a hard link (`.<name>.<id>.old.tmp`),
so a failed write is undone by renames alone, which need no space on a full disk (`put_back`).
Every target is checked to be inside the vault with no symlink on the way (vault/confine.py),
whoever made the steps (a plan, or a journal being finished).
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from cardvault.edits import faults
from cardvault.edits.atomic import fsync_folder, short_name
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
    keep_old: bool = False,
) -> None:
    """Carry out `steps` (writes first, then removals) and make them durable; with `check`, a
    target no longer at the step's `before` raises ConcurrentEditError before it is touched."""
    each = len(steps) <= FEW
    folders: set[Path] = set()
    real_folders: dict[str, bool] = {}
    for step in steps:  # every target first: inside the vault, no symlink on the way
        confined(root, root / step.rel, real_folders)
    for step in sorted(steps, key=is_removal):
        path = root / step.rel
        if check:
            found = digest_or_absent(path)
            if found != step.before:
                what = "was created" if step.before == ABSENT else "changed on disk"
                raise ConcurrentEditError(f"{what} since it was read; not overwriting", path)
        kept = kept_path(path, journal_id) if keep_old and step.before != ABSENT else None
        try:
            if is_removal(step):
                faults.step(path, "rename" if kept else "remove")
                if kept is not None:
                    os.replace(path, kept)  # removed, and kept for an undo in one rename
                else:
                    path.unlink(missing_ok=True)
            else:
                assert step.text is not None
                data = step.text.encode("utf-8")
                tmp = temp_path(path, journal_id)
                _replace(path, data, step.mode, tmp, each, kept, step.before if check else None)
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


def _replace(
    path: Path,
    data: bytes,
    mode: int | None,
    tmp: Path,
    sync: bool,
    kept: Path | None = None,
    before: str | None = None,
) -> None:
    """Write `data` to `tmp` and rename it over `path`; with `before`, the target is checked
    again just before the rename."""
    if not path.parent.is_dir():
        faults.step(path.parent)
        path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    faults.step(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if before is not None and digest_or_absent(path) != before:  # before any link is kept
            raise ConcurrentEditError("changed on disk while it was written; not overwriting", path)
        if kept is not None and path.exists():
            faults.step(kept, "link")
            _link(path, kept)
        faults.step(path, "rename")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _link(path: Path, kept: Path) -> None:
    """Keep `path`'s bytes under `kept`: a hard link, or a copy where the file system has none."""
    kept.unlink(missing_ok=True)
    try:
        os.link(path, kept, follow_symlinks=False)
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        shutil.copy2(path, kept, follow_symlinks=False)


def kept_path(path: Path, journal_id: str) -> Path:
    """Where `path`'s old bytes are kept while the batch `journal_id` is not committed."""
    return path.with_name(short_name(path.name, f".{journal_id}.old.tmp"))


def put_back(root: Path, rel: str, journal_id: str) -> bool:
    """Rename the kept old bytes of `rel` over it (no space needed); False when none are kept."""
    path = root / rel
    kept = kept_path(path, journal_id)
    if not kept.is_file() or kept.is_symlink():
        return False
    faults.step(path, "rename")
    os.replace(kept, path)
    return True


def digest_or_absent(path: Path) -> str:
    """The file's digest; ABSENT also when a parent is not a folder (a failed write's target)."""
    try:
        return current_digest(path)
    except (NotADirectoryError, IsADirectoryError):
        return ABSENT


def flush_file_system(root: Path) -> None:
    """Flush the file system holding `root` in one call (Linux `syncfs`; elsewhere `sync`)."""
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
    """Remove the temporary and kept files the batch `journal_id` left beside `rels` (once it
    is committed, undone, or finished after an interruption); return how many."""
    removed = 0
    for rel in rels:
        try:
            tmp = confined(root, temp_path(root / rel, journal_id))
            if tmp.is_file():
                tmp.unlink()
                removed += 1
            kept = confined(root, kept_path(root / rel, journal_id))
            if kept.is_file():
                kept.unlink()
                removed += 1
        except UnsafePathError:
            continue  # never a file of this vault's batches
        except OSError:
            continue  # a folder that cannot be read: nothing of ours can be in it
    return removed
