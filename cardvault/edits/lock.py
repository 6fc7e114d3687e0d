"""The vault lock: one maintenance (or hand promote/archive) run at a time.

`.cardvault/maintain.lock` is held with an exclusive, non-blocking `flock`, so the operating
system releases it when the process ends, even after a crash: a stale lock never needs manual
cleanup. The file holds the holder's pid for the error message. Where `fcntl` does not exist
(Windows), an O_EXCL lock file is used instead and removed on exit.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from cardvault.errors import LockedError
from cardvault.vault.layout import Vault

LOCK_NAME = "maintain.lock"


def lock_path(vault: Vault) -> Path:
    """Where the lock file lives."""
    return vault.cache_dir / LOCK_NAME


@contextlib.contextmanager
def vault_lock(vault: Vault) -> Iterator[Path]:
    """Hold the vault's lock for the block; raise LockedError when another process has it."""
    path = lock_path(vault)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        with _exclusive_file(path):
            yield path
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            raise LockedError(
                f"another cardvault run (pid {holder}) is maintaining this vault; try again "
                "when it has finished",
                path,
            ) from exc
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        try:
            yield path
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _exclusive_file(path: Path) -> Iterator[None]:  # pragma: no cover - Windows
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError as exc:
        raise LockedError(
            f"another cardvault run holds the lock; delete {path} if none is running", path
        ) from exc
    os.write(fd, f"{os.getpid()}\n".encode())
    os.close(fd)
    try:
        yield
    finally:
        path.unlink(missing_ok=True)
