"""The vault lock: one writer at a time; a second writer waits its turn instead of failing.

`.cardvault/write.lock` is held with an exclusive `flock`, which the operating system releases
when the holder's process ends, even after `kill -9`: a lock never needs cleaning up. A waiting
writer gives up after `[write] lock_timeout` seconds with LockedError naming the holder (pid,
command and start time, written in the file). Readers never take the lock. `sync` also holds
`.cardvault/sync.lock` from start to end and the vault lock only around its merge: two syncs of
one clone take turns (git's fetch and push each lock the remote-tracking ref) while other writers
wait for the vault lock only. Without `fcntl` (Windows), an O_EXCL lock file is polled instead.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from cardvault.errors import CardvaultError, LockedError
from cardvault.vault.layout import Vault

LOCK_NAME = "write.lock"
SYNC_LOCK = "sync.lock"
#: After this many seconds of waiting, `on_wait` is told who holds the lock.
NOTICE_AFTER = 1.0
_held = threading.local()


@dataclass(frozen=True)
class Holder:
    """Who holds the lock, as its file says."""

    pid: str
    command: str
    since: float | None

    def describe(self) -> str:
        held = f", for {time.time() - self.since:.0f} s" if self.since else ""
        return f"pid {self.pid}, `{self.command}`{held}"


def lock_path(vault: Vault, name: str = LOCK_NAME) -> Path:
    """Where the lock file lives."""
    return vault.cache_dir / name


@contextlib.contextmanager
def vault_lock(
    vault: Vault,
    timeout: float | None = None,
    on_wait: Callable[[Holder], None] | None = None,
    name: str = LOCK_NAME,
) -> Iterator[Path]:
    """Hold the vault's lock (or the lock file `name`) for the block, waiting up to `timeout`
    seconds (default: the vault's `lock_timeout`); LockedError when it does not come free."""
    path = lock_path(vault, name)
    held: set[Path] = getattr(_held, "paths", set())
    if path in held:
        raise CardvaultError("internal error: this thread already holds the vault lock", path)
    limit = vault.config.lock_timeout if timeout is None else timeout
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise CardvaultError(
            f"cannot open the vault's lock file ({exc.strerror}); {vault.cache_dir.name}/ must "
            "be a writable folder (cardvault keeps its caches and its write lock there)",
            path,
        ) from exc
    try:
        import fcntl  # noqa: F401
    except ImportError:  # pragma: no cover - Windows
        os.close(fd)
        with _exclusive_file(path.with_suffix(".excl"), limit):
            yield path
        return
    if not _acquire(fd, limit, on_wait, path):  # the waiting thread now owns `fd`
        holder = read_holder(path)
        raise LockedError(
            f"another cardvault process ({holder.describe()}) is writing to this vault; gave "
            f"up after waiting {limit:g} s (raise [write] lock_timeout in cardvault.toml to wait "
            "longer)",
            path,
        )
    try:
        _write_holder(fd)
        _held.paths = held | {path}
        try:
            yield path
        finally:
            _held.paths = getattr(_held, "paths", set()) - {path}
    finally:
        os.close(fd)  # closing the file releases the flock


def _acquire(fd: int, limit: float, on_wait: Callable[[Holder], None] | None, path: Path) -> bool:
    """Take the flock on `fd`, waiting in a helper thread so the wait can be bounded. False when
    `limit` passed first: the helper thread then owns `fd` and closes it when it gets the lock."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        pass
    handoff = threading.Lock()
    got = threading.Event()
    state = {"gave_up": False}

    def wait_for_it() -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with handoff:
            if state["gave_up"]:
                os.close(fd)  # too late: the caller is gone; let the next writer have it
            else:
                got.set()

    threading.Thread(target=wait_for_it, name="cardvault-lock-wait", daemon=True).start()
    deadline = time.monotonic() + limit
    if on_wait is not None and not got.wait(min(NOTICE_AFTER, limit)):
        on_wait(read_holder(path))
    got.wait(max(0.0, deadline - time.monotonic()))
    with handoff:
        if got.is_set():
            return True
        state["gave_up"] = True
        return False


def _write_holder(fd: int) -> None:
    command = " ".join(["cardvault", *sys.argv[1:3]]) if sys.argv else "cardvault"
    record = f"{os.getpid()}\n{command}\n{time.time():.3f}\n".encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, record, 0)


def read_holder(path: Path) -> Holder:
    """The holder recorded in the lock file (fields are "?" when unreadable)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    pid = lines[0].strip() if lines else "?"
    command = lines[1].strip() if len(lines) > 1 else "?"
    try:
        since: float | None = float(lines[2])
    except (IndexError, ValueError):
        since = None
    return Holder(pid or "?", command or "?", since)


@contextlib.contextmanager
def _exclusive_file(path: Path, limit: float) -> Iterator[None]:  # pragma: no cover - Windows
    deadline = time.monotonic() + limit
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            break
        except FileExistsError as exc:
            if time.monotonic() >= deadline:
                raise LockedError(
                    f"another cardvault run holds the lock; delete {path} if none is running",
                    path,
                ) from exc
            time.sleep(0.05)
    os.write(fd, f"{os.getpid()}\n".encode())
    os.close(fd)
    try:
        yield
    finally:
        path.unlink(missing_ok=True)
