"""kill -9 at a random moment of a writing command, then check the vault: the crash trials of
the test suite and of `benchmarks/writers.py`.

Each scenario has a template vault (a real git repository) and a command; the state the command
intends is found once by running it to the end on a copy. A trial copies the template, starts
the command in its own process group, kills the whole group (git included) at a random moment
of that run, then runs the next command (`cardvault check --fix`, which finishes or undoes what
the killed one left) and checks: the vault's files are exactly as before or exactly as intended,
with one commit more exactly when intended; no journal, temporary file or git lock is left; the
work tree is clean; `git fsck` passes.

`sync` is tried on a folder holding the vault, its bare remote and a teammate's clone that
pushed first (a true merge: the same day's log and new cards on both sides, so MEMORY.md's table
is regenerated). After the kill, nothing of git's merge may be in the vault (no `.merge_file_*`,
no MERGE_HEAD, no half-applied file: the files are as before or as merged); the next command is
`sync` itself, which must succeed and leave the files exactly as intended (the table included:
nothing stale), everything pushed.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.support.cli import snapshot
from tests.support.machine import scaled

REPO = Path(__file__).resolve().parents[1]
NOW = "2026-06-01T09:15"
SCENARIOS = ("log", "new", "maintain", "import", "forget", "sync")
CARD = (
    "---\ntopic: {topic}\ncategory: tools\ntags: [{tag}]\ncreated: {day}\nupdated: {day}\n"
    "---\n{body}\n"
)


def cardvault(root: Path, *args: str, group: bool = False) -> subprocess.Popen[bytes]:
    """Start `cardvault ARGS` on the vault at `root` (in a new process group with `group`)."""
    scratch = root.parent / "tmp"  # what a killed process cannot clean up stays beside `root`
    scratch.mkdir(exist_ok=True)
    env = {**os.environ, "CARDVAULT_VAULT": str(root), "CARDVAULT_NOW": NOW, "TMPDIR": str(scratch)}
    return subprocess.Popen(
        [sys.executable, "-m", "cardvault", *args],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=group,
    )


def run(root: Path, *args: str) -> tuple[int, str]:
    """Run `cardvault ARGS` to the end: exit code and stderr."""
    proc = cardvault(root, *args)
    _, err = proc.communicate(timeout=scaled(600))
    return proc.returncode, err.decode("utf-8", "replace")


def _cards(root: Path, count: int, tag: str, day: str, folder: str = "cards") -> None:
    for n in range(count):
        path = root / "memory" / folder / f"{tag}-{n:03d}.md"
        body = f"Note {n} about {tag}: keep the {tag} settings in one place, number {n}."
        path.write_text(CARD.format(topic=f"{tag.title()} note {n}", tag=tag, day=day, body=body))


def _commit(root: Path) -> None:
    for args in (
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fixture"],
    ):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def build_templates(folder: Path) -> dict[str, tuple[Path, list[str]]]:
    """Each scenario's template vault and command."""
    from cardvault.app.vaults import init_vault

    base = folder / "base"
    init_vault(base)
    _cards(base, 30, "stale", "2025-01-01")  # maintain archives these: a 30-file move
    _cards(base, 4, "nginx", "2026-05-20")
    log = base / "memory" / "2026-05-20.md"
    log.write_text(
        "# 2026-05-20\n\n## 10:00 — nginx upload <!-- id:0a1b2c -->\nnginx rejected a 20 MB "
        "upload.\nFix: raise client_max_body_size.\n\n## 11:00 — other <!-- id:3d4e5f -->\n"
        "Unrelated note.\n"
    )
    _commit(base)
    source = folder / "source"
    init_vault(source)
    _cards(source, 40, "imported", "2026-05-01")
    _commit(source)
    export = folder / "export.json"
    code, err = run(source, "export", str(export))
    assert code == 0, err
    empty = folder / "empty"
    init_vault(empty)
    return {
        "sync": (sync_template(folder / "sync"), ["sync"]),
        "log": (base, ["log", "an entry written during a crash test", "--title", "crash"]),
        "new": (base, ["new", "Crash test card", "-c", "tools", "--body", "Written, then killed?"]),
        "maintain": (base, ["maintain", "--only", "archive,index", "--json"]),
        "import": (empty, ["import", str(export), "--json"]),
        "forget": (base, ["forget", "nginx", "--yes"]),
    }


def sync_template(folder: Path) -> Path:
    """A vault (`vault/`) whose remote (`remote.git`, named by a relative path so a copy of
    the folder works) got a teammate's cards and log entries after the vault's own: the next
    sync is a true merge."""
    from cardvault.app.vaults import init_vault

    vault = folder / "vault"
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(folder / "remote.git")],
                   check=True)  # fmt: skip
    init_vault(vault)
    _cards(vault, 3, "shared", "2026-05-20")
    _commit(vault)
    subprocess.run(
        ["git", "-C", str(vault), "remote", "add", "origin", "../remote.git"], check=True
    )
    code, err = run(vault, "sync")
    assert code == 0, err
    mate = folder / "mate"
    subprocess.run(["git", "clone", "-q", "remote.git", "mate"], cwd=folder, check=True)
    code, err = run(mate, "sync")  # sets up its drivers
    assert code == 0, err
    for n in range(3):
        assert run(mate, "log", f"mate entry {n}", "--title", f"mate {n}")[0] == 0
        assert run(mate, "new", f"Mate card {n}", "-c", "tools", "--body", f"Mate {n}.")[0] == 0
    code, err = run(mate, "sync")
    assert code == 0, err
    for n in range(3):
        assert run(vault, "log", f"own entry {n}", "--title", f"own {n}")[0] == 0
        assert run(vault, "new", f"Own card {n}", "-c", "tools", "--body", f"Own {n}.")[0] == 0
    shutil.rmtree(mate)
    return folder


def vault_in(root: Path) -> Path:
    """The vault of a trial folder: the folder itself, or its `vault/` (sync's, beside its
    remote)."""
    return root / "vault" if (root / "remote.git").is_dir() else root


@dataclass(frozen=True)
class Intended:
    """A scenario's states: before the command, after it, and how long it takes."""

    before: dict[str, bytes]
    after: dict[str, bytes]
    commits: int
    seconds: float


def intended(template: Path, args: list[str], work: Path) -> Intended:
    """Run the command to the end on a copy of `template`: what it intends and how long it takes."""
    folder = work / "intended"
    shutil.copytree(template, folder, symlinks=True)
    root = vault_in(folder)
    before, commits = snapshot(root), commit_count(root)
    started = time.monotonic()
    code, err = run(root, *args)
    seconds = time.monotonic() - started
    assert code == 0, err
    after = snapshot(root)
    syncing = root != folder
    assert after != before and (syncing or commit_count(root) == commits + 1)
    from tests.support.writers import assert_vault_sound

    assert_vault_sound(root)
    shutil.rmtree(folder)
    return Intended(before, after, commits, seconds)


def commit_count(root: Path) -> int:
    done = subprocess.run(["git", "-C", str(root), "rev-list", "--count", "HEAD"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(done.stdout)


@dataclass(frozen=True)
class Outcome:
    """How a trial ended: "before" or "intended", and what the kill left for the next command
    (a journal to finish, temporary files, git's index.lock)."""

    state: str
    left: tuple[str, ...]


def trial(template: Path, args: list[str], states: Intended, delay: float, root: Path) -> Outcome:
    """Kill the command after `delay` seconds and check the vault (raises AssertionError naming
    what is wrong)."""
    shutil.copytree(template, root, symlinks=True)
    if vault_in(root) != root:
        return _sync_trial(vault_in(root), args, states, delay)
    proc = cardvault(root, *args, group=True)
    time.sleep(delay)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
    left = _left_behind(root)
    code, err = run(root, "check", "--fix")
    assert code == 0, f"the next command failed after a kill at {delay:.2f} s: {err}"
    files = snapshot(root)
    intended_files = _without_new_ids(files, states.before) == _without_new_ids(
        states.after, states.before
    )
    outcome = "before" if files == states.before else "intended" if intended_files else None
    if outcome is None:
        changed = sorted(k for k in {*files, *states.after} if files.get(k) != states.after.get(k))
        raise AssertionError(f"partial vault after a kill at {delay:.2f} s: {changed[:10]}")
    expected = states.commits + (1 if outcome == "intended" else 0)
    assert commit_count(root) == expected, f"{commit_count(root)} commits, expected {expected}"
    from tests.support.writers import assert_vault_sound

    assert_vault_sound(root)
    return Outcome(outcome, left)


_ENTRY_ID = re.compile(rb"<!-- id:([0-9a-f]{6,16}) -->")
_RECORD = re.compile(r"(memory/forgotten/\d{4}-\d{2}-\d{2})-[0-9a-f]+\.txt")


def _without_new_ids(files: dict[str, bytes], before: dict[str, bytes]) -> dict[str, bytes]:
    """`files` with the ids of entries new since `before` masked: a new entry's id is random
    by design (vault/entry_ids.py's `append_entry`), so the entry a killed `log` wrote (or the
    next command finished from its journal) has another id than the one of the intended run;
    so is the name of a forget's new record of what it removed."""
    old = {m for text in before.values() for m in _ENTRY_ID.findall(text)}

    def masked(match: re.Match[bytes]) -> bytes:
        return match.group(0) if match.group(1) in old else b"<!-- id:new -->"

    def named(path: str) -> str:  # a forget's new record has a random name too (vault/forgotten.py)
        found = _RECORD.fullmatch(path)
        return f"{found.group(1)}-new.txt" if found and path not in before else path

    return {named(path): _ENTRY_ID.sub(masked, text) for path, text in files.items()}


def _sync_trial(root: Path, args: list[str], states: Intended, delay: float) -> Outcome:
    """A kill during `sync`: nothing of the merge in the vault, then the next sync finishes."""
    from tests.support.writers import assert_vault_sound, git

    proc = cardvault(root, *args, group=True)
    time.sleep(delay)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
    left = _left_behind(root)
    merge_files = sorted(p.name for p in root.rglob(".merge_file_*"))
    assert not merge_files, f"git's merge files left in the vault: {merge_files}"
    assert not (root / ".git" / "MERGE_HEAD").exists(), "a merge left in progress"
    files = snapshot(root)
    if not {"journal", "undo"} & set(left):  # else the next command finishes or undoes it
        dirty = git(root, "status", "--porcelain", "--untracked-files=all")
        assert dirty == "", f"half-merged vault after a kill at {delay:.2f} s: {dirty[:300]}"
    state = (
        "before" if files == states.before else "intended" if files == states.after else "merged"
    )  # merged: a half-written merge, whose journal the next command finishes
    code, err = run(root, *args)
    assert code == 0, f"the next sync failed after a kill at {delay:.2f} s: {err}"
    files = snapshot(root)
    if files != states.after:
        changed = sorted(k for k in {*files, *states.after} if files.get(k) != states.after.get(k))
        raise AssertionError(f"not as intended after the next sync (kill at {delay:.2f} s): "
                             f"{changed[:10]}")  # fmt: skip
    assert_vault_sound(root)
    pushed = git(root, "rev-parse", "refs/remotes/origin/main").strip()
    assert pushed == git(root, "rev-parse", "HEAD").strip(), "the next sync did not push"
    return Outcome(state, left)


def _left_behind(root: Path) -> tuple[str, ...]:
    """What a kill left for the next command to clean up."""
    from tests.support.writers import temp_files

    left = []
    if (root / ".cardvault" / "journal.json").exists():
        left.append("journal")
    if (root / ".cardvault" / "undo.json").exists():
        left.append("undo")
    if temp_files(root):
        left.append("temp files")
    if (root / ".git" / "index.lock").exists():
        left.append("index.lock")
    return tuple(left)


def today() -> dt.date:
    return dt.datetime.fromisoformat(NOW).date()
