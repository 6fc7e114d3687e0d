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
lock. Unset (always, outside tests), `step` only reads one variable.
"""

from __future__ import annotations

import errno
import os
import signal
from pathlib import Path

FAULT_VAR = "CARDVAULT_FAIL_AT"
#: The kinds of step that need no new space on a file system.
SPACE_FREE = frozenset({"rename", "remove", "link"})
_count = [0]


def begin() -> None:
    """A writer took the lock: its steps are counted from 1."""
    _count[0] = 0


def step(path: Path, kind: str = "create") -> None:
    """One write step (`kind`: create, rename, remove, link) about to touch `path`: raise the
    injected OSError if the fault covers it."""
    spec = os.environ.get(FAULT_VAR)
    if not spec:
        return
    _count[0] += 1
    at, _, name = spec.partition(":")
    if at.strip().endswith("+"):
        start = at.strip()[:-1]
        full = start.isdigit() and _count[0] >= int(start)
        hit = full and (kind not in SPACE_FREE or _count[0] == int(start))
    else:
        hit = str(_count[0]) in (number.strip() for number in at.split(","))
    if not hit:
        return
    if name.strip() == "KILL":
        os.kill(os.getpid(), signal.SIGKILL)
    code = getattr(errno, name.strip() or "ENOSPC", errno.ENOSPC)
    raise OSError(code, os.strerror(code), str(path))
