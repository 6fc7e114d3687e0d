"""kill -9 of `cardvault sync`, then the next command: every clone must end as before the sync
or as the sync intended, MEMORY.md's table and AGENTS.md's rules included. Shared by
tests/test_unit_of_work.py (kills at set write steps) and benchmarks/sync_kills.py (kills at
random moments).

A trial folder is the one `tests/writers_crash.py` builds for sync: `vault/`, its bare remote
`remote.git/` and a teammate's work already pushed there, so the sync is a true merge that
changes MEMORY.md's table. After the kill the next command is a `log` (not a sync: whatever a
killed sync left must not wait for the next sync to be put right), then a sync to the end,
then a fresh clone of the remote is read as a teammate would.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.support.cli import snapshot
from tests.support.machine import scaled
from tests.writers_crash import NOW, REPO, run

#: The command run after the killed sync.
NEXT = ("log", "written after a killed sync", "--title", "after the kill")
DERIVED = ("MEMORY.md", "AGENTS.md")


@dataclass(frozen=True)
class SyncStates:
    """The vault's cards and derived files before the sync and once it ran to the end, and how
    long it took."""

    before: dict[str, bytes]
    after: dict[str, bytes]
    seconds: float


def memory_files(root: Path) -> dict[str, bytes]:
    """The cards (live and archived), MEMORY.md and AGENTS.md under `root`."""
    return {
        rel: data
        for rel, data in snapshot(root).items()
        if rel.startswith(("memory/cards/", "memory/archive/")) or rel in DERIVED
    }


def sync_states(template: Path, work: Path) -> SyncStates:
    """Run the sync to the end on a copy of the trial folder `template`."""
    folder = work / "intended"
    shutil.copytree(template, folder, symlinks=True)
    vault = folder / "vault"
    before = memory_files(vault)
    started = time.monotonic()
    code, err = run(vault, "sync")
    seconds = time.monotonic() - started
    assert code == 0, err
    after = memory_files(vault)
    assert after != before and after["MEMORY.md"] != before["MEMORY.md"], "no table to regenerate"
    shutil.rmtree(folder)
    return SyncStates(before, after, seconds)


def killed_sync(vault: Path, *, delay: float | None = None, step: int | None = None) -> int:
    """Run `cardvault sync` on `vault` and kill it (its whole process group, git included)
    after `delay` seconds, or at exactly its write step `step` (edits/faults.py `N:KILL`).
    Returns its exit status (-9 when the kill came before it ended)."""
    scratch = vault.parent / "tmp"  # what the killed process cannot clean up stays in the trial
    scratch.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "CARDVAULT_VAULT": str(vault),
        "CARDVAULT_NOW": NOW,
        "TMPDIR": str(scratch),
    }
    if step is not None:
        env["CARDVAULT_FAIL_AT"] = f"{step}:KILL"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardvault", "sync"],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    if delay is not None:
        time.sleep(delay)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=scaled(600))
    with contextlib.suppress(ProcessLookupError):  # a git the kill orphaned
        os.killpg(proc.pid, signal.SIGKILL)
    return proc.returncode


def verdict(folder: Path, states: SyncStates) -> str:
    """After a killed sync in the trial `folder`: run the next command, then a sync to the end,
    then clone the remote. "before" or "after": what the vault's cards and derived files were
    once the next command ran; else what went wrong, and where: "broken" (a command failed or
    the repository is unsound), "stale" (MEMORY.md or AGENTS.md not those of its cards) or
    "lost" (cards neither as before nor as after)."""
    from tests.support.writers import assert_vault_sound

    vault = folder / "vault"
    code, err = run(vault, *NEXT)
    if code != 0:
        return f"broken: the next command failed: {err.strip()[-300:]}"
    found = _against(memory_files(vault), states)
    if found not in ("before", "after"):
        return f"{found} once the next command ran"
    code, err = run(vault, "sync")
    if code != 0:
        return f"broken: the sync after failed: {err.strip()[-300:]}"
    subprocess.run(["git", "clone", "-q", "remote.git", "clone"], cwd=folder, check=True)
    for name, root in (("the vault", vault), ("a fresh clone", folder / "clone")):
        ended = _against(memory_files(root), states)
        if ended != "after":
            return f"{ended} in {name} after the next sync"
    try:
        assert_vault_sound(vault)
    except (AssertionError, subprocess.CalledProcessError) as exc:
        return f"broken: {exc}"
    return found


def _against(files: dict[str, bytes], states: SyncStates) -> str:
    """Which of the states `files` is: "before", "after", "stale" (the cards of one, a derived
    file not theirs) or "lost"."""
    for name, state in (("before", states.before), ("after", states.after)):
        if files == state:
            return name
        if _cards(files) == _cards(state):
            return "stale"
    return "lost"


def _cards(files: dict[str, bytes]) -> dict[str, bytes]:
    return {rel: data for rel, data in files.items() if rel not in DERIVED}
