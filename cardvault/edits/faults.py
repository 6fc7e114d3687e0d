"""A fault injected into the write path: how the failed-write tests make the disk fail at
exactly the Nth write step of a command, or fill up from it on (tests/test_failed_writes.py).

`CARDVAULT_FAIL_AT=N` (or several, `N,M`; optionally `:ERRNO`, e.g. `3:EROFS`; ENOSPC when not
given) makes the Nth step of the next write through the door raise that OSError, as the kernel
would. `CARDVAULT_FAIL_AT=N+` is a disk that is full from the Nth step on: every later step that
needs new space (a file created or written, a folder made, a commit) fails with ENOSPC, while
those that need none (a rename, a removal, a hard link) still work, as on a real full disk.
`CARDVAULT_FAIL_AT=N:KILL` is a `kill -9` of the process at exactly the Nth step (the kill
trials of tests/test_unit_of_work.py).
Each file the journal, the batch writer and the rollback create, rename, link or remove is one
step, and so is the write's commit; the count starts again each time a writer takes the vault
lock. The variable is read once there (`begin`), which installs `step`: unset (always, outside
tests) it is an empty function, so a write step costs one call that does nothing.
"""

from __future__ import annotations

import errno
import os
import signal
from collections.abc import Callable
from pathlib import Path

FAULT_VAR = "CARDVAULT_FAIL_AT"
#: The kinds of step that need no new space on a file system.
SPACE_FREE = frozenset({"rename", "remove", "link"})


def _none(path: Path, kind: str = "create") -> None:
    """No fault asked for: a write step does nothing more."""


#: One write step (`kind`: create, rename, remove, link) about to touch `path`: raises the
#: injected OSError when the fault `begin` installed covers it.
step: Callable[..., None] = _none


def begin() -> None:
    """A writer took the lock: install the fault CARDVAULT_FAIL_AT asks for, its steps counted
    from 1, or none."""
    global step
    spec = os.environ.get(FAULT_VAR)
    step = _injected(spec) if spec else _none


def _injected(spec: str) -> Callable[..., None]:
    at, _, name = spec.partition(":")
    at, name = at.strip(), name.strip()
    count = 0

    def injected(path: Path, kind: str = "create") -> None:
        nonlocal count
        count += 1
        if at.endswith("+"):
            full = at[:-1].isdigit() and count >= int(at[:-1])
            hit = full and (kind not in SPACE_FREE or count == int(at[:-1]))
        else:
            hit = str(count) in (number.strip() for number in at.split(","))
        if not hit:
            return
        if name == "KILL":
            os.kill(os.getpid(), signal.SIGKILL)
        code = getattr(errno, name or "ENOSPC", errno.ENOSPC)
        raise OSError(code, os.strerror(code), str(path))

    return injected
