"""A fault injected into the write path, for the failed-write and kill tests.

`CARDVAULT_FAIL_AT=N` (or `N,M`; optionally `:ERRNO`, e.g. `3:EROFS`; ENOSPC by default) makes
the Nth write step raise that OSError, as the kernel would. `N+` is a disk full from the Nth step
on: later steps that need new space fail with ENOSPC, while a rename, removal or hard link still
works. `N:KILL` is a `kill -9` at exactly the Nth step. Each file the journal, the batch writer
and the rollback touch is one step, and so is the commit; the count restarts each time a writer
takes the lock (`begin`). Unset (always, outside tests) `step` is an empty function.
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
    """A writer took the lock: install the fault CARDVAULT_FAIL_AT asks for, or none."""
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
