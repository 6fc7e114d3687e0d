"""The cache folder `.cardvault/`: derived state, local to this clone and this user, never taken
from git (docs/security.md).

Everything in it is rebuilt on demand, so anything there cardvault did not make is set aside
(to `.cardvault/untrusted/`, never read) rather than used: `heal_cache_dir` runs on every
opening of a vault, with a few `lstat` calls. A vault this user cannot write is still searched:
`index_folder` puts its index in the user's cache; writers keep to `.cardvault/` and refuse.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from pathlib import Path

from cardvault.errors import CardvaultError

UNTRUSTED = "untrusted"
#: Points cardvault's machine-wide cache (models' ONNX copies, indexes of read-only vaults).
CACHE_ENV = "CARDVAULT_CACHE"
#: `.cardvault/.gitignore`: everything in the folder is this clone's own.
IGNORE_ALL = "# cardvault's cache: local to this clone, never committed\n*\n"


def heal_cache_dir(path: Path) -> tuple[str, ...]:
    """Make `path` (a vault's `.cardvault`) fit to be the cache folder; what was done, one line
    each. CardvaultError (naming the folder) when something there cannot be put right."""
    notes = _healed(path)
    _ignore_everything(path)
    return notes


def _healed(path: Path) -> tuple[str, ...]:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return ()
    except OSError as exc:
        raise CardvaultError(f"cannot look at the cache folder: {exc.strerror}", path) from exc
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        what = "a symlink (never followed)" if stat.S_ISLNK(info.st_mode) else "not a folder"
        _remove(path, what)
        return (f"{path}: was {what}; removed it to make room for cardvault's cache folder",)
    if _foreign(info):
        moved = _move_foreign(path, info.st_uid)
        return (
            f"{path}: belonged to another user (uid {info.st_uid}); moved it to {moved} and "
            "started a cache folder of your own",
        )
    return tuple(_remove_links(path))


def _ignore_everything(path: Path) -> None:
    """The cache folder, made if need be, with a `.gitignore` of its own that ignores all of it
    (as `.pytest_cache` does): out of `git status` and `git add -A` whatever the vault's own
    .gitignore says. Best effort: a folder that cannot be written gets no cache anyway."""
    try:
        path.mkdir(exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        descriptor = os.open(path / ".gitignore", flags, 0o644)
    except OSError:  # there already (or unwritable: no cache, nothing to ignore)
        return
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(IGNORE_ALL)


def _foreign(info: os.stat_result) -> bool:
    getuid = getattr(os, "getuid", None)
    return getuid is not None and info.st_uid != getuid()


def _remove(path: Path, what: str) -> None:
    try:
        path.unlink()
    except OSError as exc:
        raise CardvaultError(
            f"is {what} and cannot be removed ({exc.strerror}); cardvault keeps its cache here: "
            "remove it",
            path,
        ) from exc


def _move_foreign(path: Path, uid: int) -> Path:
    """Rename another user's `.cardvault` away, make a new one, and put the old one inside."""
    parking = path.with_name(f"{path.name}.foreign-{os.getpid()}")
    try:
        os.rename(path, parking)
        path.mkdir(mode=0o700)
        return set_aside(path, parking, f"foreign-uid{uid}")
    except OSError as exc:
        raise CardvaultError(
            f"belongs to another user (uid {uid}) and cannot be moved aside ({exc.strerror}); "
            "cardvault uses only a cache folder of your own: remove it or run as its owner",
            path,
        ) from exc


def _remove_links(folder: Path) -> list[str]:
    """Remove symlinks directly inside the cache folder; a line for each."""
    notes = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        if entry.is_symlink():
            Path(entry.path).unlink(missing_ok=True)
            notes.append(f"{entry.path}: was a symlink in cardvault's cache folder; removed it")
    return notes


def set_aside(cache_dir: Path, path: Path, label: str) -> Path:
    """Move `path` (a file, link or folder: renamed, never followed) into the cache folder's
    `untrusted/` part, under a name saying when and what; the new place."""
    folder = cache_dir / UNTRUSTED
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = folder / f"{stamp}-{label}"
    number = 1
    while os.path.lexists(target):
        number += 1
        target = folder / f"{stamp}-{label}-{number}"
    os.rename(path, target)
    return target


def machine_cache() -> Path:
    """This user's folder for machine-wide derived files (model copies, read-only vault indexes)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cardvault"


def index_folder(cache: Path) -> Path:
    """Where the search index of the vault whose cache folder is `cache` lives: there, when this
    user may write in it (or create it), else `machine_cache()/vaults/<digest of its path>`."""
    target = cache if cache.is_dir() else cache.parent
    if os.access(target, os.W_OK | os.X_OK):
        return cache
    digest = hashlib.sha256(os.fsencode(cache)).hexdigest()[:16]
    return machine_cache() / "vaults" / digest
