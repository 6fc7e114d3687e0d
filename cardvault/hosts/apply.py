"""Writing planned host-file changes: each file replaced atomically, keeping its permissions; a
file install made is removed by uninstall, with the folders made for it; the records of what
install added are updated last.

These are the host's files, not the vault's: no write door, no commit. A user-level file that
is a symbolic link (dotfiles kept elsewhere) is written where the link points; in a project,
links were refused when the plan read the files.
"""

from __future__ import annotations

import contextlib
import difflib
import os
from dataclasses import replace
from pathlib import Path

from cardvault.edits.atomic import atomic_write
from cardvault.hosts.plan import FileChange
from cardvault.hosts.state import read_records, write_records
from cardvault.vault.files import current_digest


def apply_changes(changes: list[FileChange]) -> None:
    """Write every changed file, then the records."""
    records = read_records()
    emptied: set[str] = set()
    made_now: list[Path] = []  # folders made in this run (files in one folder share them)
    for change in changes:
        if not change.changed:
            continue
        key = str(change.path)
        if change.after is None:
            change.path.unlink(missing_ok=True)
            known = records.pop(key, None)
            emptied.update(known.created_dirs if known else ())
        else:
            made_now += _write(change.path, change.after)
            if change.record is None:
                records.pop(key, None)
            else:
                known = records.get(key)
                mine = [str(d) for d in made_now if d in change.path.parents]
                dirs = known.created_dirs if known else tuple(mine)
                records[key] = replace(change.record, created_dirs=dirs)
    _remove_folders(emptied)
    write_records(records)


def unified_diff(change: FileChange, shown: str) -> str:
    """The change as a unified diff, the file named `shown` (/dev/null for an absent side)."""
    before = (change.before or "").splitlines(keepends=True)
    after = (change.after or "").splitlines(keepends=True)
    lines = difflib.unified_diff(
        before,
        after,
        fromfile=shown if change.before is not None else "/dev/null",
        tofile=shown if change.after is not None else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)  # fmt: skip


def _write(path: Path, text: str) -> list[Path]:
    """Write `text` to `path` (through a link); the folders made for it, outermost first."""
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    made = _make_parents(target.parent)
    atomic_write(target, text, current_digest(target), mode=0o666 & ~_umask())  # keeps a mode
    return made


def _remove_folders(folders: set[str]) -> None:
    """Remove the folders install made for files now gone, innermost first, when empty."""
    for folder in sorted(folders, key=lambda f: len(Path(f).parts), reverse=True):
        with contextlib.suppress(OSError):  # not empty (something else is there): kept
            Path(folder).rmdir()


def _make_parents(folder: Path) -> list[Path]:
    missing = []
    here = folder
    while not here.exists():
        missing.append(here)
        here = here.parent
    for made in reversed(missing):
        made.mkdir()
    return list(reversed(missing))


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
