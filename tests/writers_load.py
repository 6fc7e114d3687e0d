"""Many writers at once on one vault: the workload of the stress test and its benchmark.

`python -m tests.writers_load worker ROOT ID COUNT SEED OUT` is one writer process: it runs
COUNT mixed writing commands (log, remember, new, capture of a failing command) through the
real CLI, in-process (the typer app, as `cardvault` runs it, minus the interpreter start), each
marked with a unique token, and writes what it did to OUT as JSON lines: the command, its token,
its exit code, its wall time and how long it waited for the vault lock (timed around the lock
the write door takes). `check_vault` then verifies the vault: every command's entry or card
present exactly once, the capture counters of a shared failure counted 1..n, one commit per
write, a clean work tree, `git fsck` passing.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

KINDS = ("log", "remember", "new", "capture")
SHARED_FAILURE = "error: shared flaky dependency download failed"
WORDS = ("cortex", "redis", "nginx", "kafka", "tls", "pool", "vault", "queue", "cache", "proxy")


def command_for(kind: str, token: str, rng: random.Random) -> tuple[list[str], int]:
    """The CLI arguments of one write marked with `token`, and the exit code it must give."""
    if kind == "log":
        return ["log", f"Worked on {token}.", "--title", token], 0
    if kind == "remember":
        return ["remember", f"{token} needs a retry on the first call"], 0
    if kind == "new":
        topic = f"{token} {' '.join(rng.sample(WORDS, 2))}"
        return ["new", topic, "-c", "tools", "-t", "stress", "--body", f"Card body {token}."], 0
    message = SHARED_FAILURE if rng.random() < 0.3 else f"error: step {token} failed"
    script = f"echo '{message}' >&2; exit 3"
    return ["capture", "--", "sh", "-c", script], 3


@contextlib.contextmanager
def timed_lock_waits(waits: list[float]) -> Iterator[None]:
    """Record how long each write waited for the vault lock (wraps the door's lock)."""
    from cardvault.edits import door

    real = door.vault_lock

    @contextlib.contextmanager
    def timing(*args: Any, **kwargs: Any) -> Iterator[Path]:
        started = time.monotonic()
        with real(*args, **kwargs) as path:
            waits.append(time.monotonic() - started)
            yield path

    door.vault_lock = timing  # type: ignore[assignment]
    try:
        yield
    finally:
        door.vault_lock = real  # type: ignore[assignment]


def worker(root: Path, ident: int, count: int, seed: int, out: Path) -> None:
    """One writer process (see the module docstring)."""
    from cardvault.cli.app import app

    os.environ["CARDVAULT_VAULT"] = str(root)
    rng = random.Random(seed * 1000 + ident)
    with out.open("w", encoding="utf-8") as report:
        for number in range(count):
            kind = KINDS[(ident + number) % len(KINDS)] if count >= 4 else rng.choice(KINDS)
            token = f"w{ident}n{number}x{rng.randrange(10**6):06d}"
            args, expected = command_for(kind, token, rng)
            waits: list[float] = []
            started = time.monotonic()
            with (
                timed_lock_waits(waits),
                open(os.devnull, "w") as sink,
                contextlib.redirect_stdout(sink),
                contextlib.redirect_stderr(sink),
            ):
                code = _run(app, args)
            record = {
                "kind": kind,
                "token": token,
                "code": code,
                "expected": expected,
                "seconds": time.monotonic() - started,
                "wait": max(waits, default=0.0),
                "shared": SHARED_FAILURE in " ".join(args),
            }
            report.write(json.dumps(record) + "\n")


def _run(app: Any, args: list[str]) -> int:
    try:
        result = app(args, standalone_mode=False)
    except SystemExit as exc:
        return int(exc.code or 0)
    return int(result or 0)


def start_workers(root: Path, workers: int, count: int, seed: int, folder: Path) -> list[Any]:
    """Start `workers` writer processes; their reports go to `folder`."""
    repo = Path(__file__).resolve().parents[1]
    return [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.writers_load",
                "worker",
                str(root),
                str(ident),
                str(count),
                str(seed),
                str(folder / f"worker-{ident}.jsonl"),
            ],
            cwd=repo,
        )
        for ident in range(workers)
    ]


def read_reports(folder: Path) -> list[dict[str, Any]]:
    """Every record the workers wrote."""
    records = []
    for path in sorted(folder.glob("worker-*.jsonl")):
        records += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return records


def check_vault(root: Path, records: list[dict[str, Any]]) -> list[str]:
    """Everything wrong with the vault after the workload (empty: all invariants hold)."""
    problems = [f"{r['kind']} {r['token']} exited {r['code']}" for r in records
                if r["code"] != r["expected"]]  # fmt: skip
    logs = {p.name: p.read_text(encoding="utf-8") for p in (root / "memory").glob("2*.md")}
    entries = [e for text in logs.values() for e in re.split(r"(?m)^## ", text)[1:]]
    cards = [p.read_text(encoding="utf-8") for p in (root / "memory").rglob("cards/**/*.md")]
    for r in records:
        where = cards if r["kind"] == "new" else entries
        found = sum(1 for text in where if r["token"] in text)
        if r["kind"] == "capture" and r["shared"]:
            continue
        if found != 1:
            problems.append(f"{r['kind']} {r['token']}: found {found} times")
    problems += _shared_counts(entries, sum(1 for r in records if r["shared"]))
    problems += _git_problems(root, records)
    return problems


def _shared_counts(entries: list[str], expected: int) -> list[str]:
    """The shared failure's captures must count `Seen: 1`, `2`, ... `n`, each once."""
    first = next((e for e in entries if SHARED_FAILURE in e and "Signature: " in e), None)
    if first is None:
        return [] if expected == 0 else [f"shared failure never logged ({expected} captures)"]
    signature = re.search(r"(?m)^Signature: (\w+)", first)
    assert signature is not None
    counts = sorted(
        int(match.group(1))
        for entry in entries
        if f"Signature: {signature.group(1)}" in entry
        for match in [re.search(r"(?m)^Seen: (\d+)", entry)]
        if match
    )
    if counts != list(range(1, expected + 1)):
        return [f"shared failure counted {counts}, expected 1..{expected}"]
    return []


def _git_problems(root: Path, records: list[dict[str, Any]]) -> list[str]:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              check=True).stdout  # fmt: skip

    problems = []
    if git("status", "--porcelain", "--untracked-files=all"):
        problems.append("work tree not clean: " + git("status", "--short"))
    subjects = Counter(s.split(":", 1)[0] for s in git("log", "--format=%s").splitlines())
    logged = sum(1 for r in records if r["kind"] != "new")
    made = sum(1 for r in records if r["kind"] == "new")
    if subjects["log"] != logged or subjects["card"] != made:
        problems.append(f"commits: {dict(subjects)}; expected log {logged}, card {made}")
    fsck = subprocess.run(["git", "-C", str(root), "fsck", "--strict", "--no-progress"],
                          capture_output=True, text=True, check=False)  # fmt: skip
    if fsck.returncode != 0:
        problems.append("git fsck: " + fsck.stderr + fsck.stdout)
    leftovers = [p.name for p in root.rglob("*.tmp") if ".git" not in p.parts]
    if leftovers or (root / ".cardvault" / "journal.json").exists():
        problems.append(f"left behind: {leftovers} / journal")
    return problems


def background(root: Path, args: list[str], stop: Path, pause: float = 1.0) -> Any:
    """A process running `cardvault ARGS` over and over (`pause` seconds apart) until `stop`
    exists; its exit codes go to `stop`.ARGS[0].codes, one line per run."""
    script = (
        "import subprocess, sys, time\n"
        "from pathlib import Path\n"
        "stop, pause = Path(sys.argv[1]), float(sys.argv[2]); codes = []\n"
        "while not stop.exists():\n"
        "    done = subprocess.run([sys.executable, '-m', 'cardvault', *sys.argv[3:]],\n"
        "                          capture_output=True, text=True)\n"
        "    codes.append(f'{done.returncode} {done.stderr.strip()[-300:]!r}')\n"
        "    time.sleep(pause)\n"
        "Path(str(stop) + '.' + sys.argv[3] + '.codes').write_text('\\n'.join(codes) + '\\n')\n"
    )
    env = {**os.environ, "CARDVAULT_VAULT": str(root)}
    return subprocess.Popen([sys.executable, "-c", script, str(stop), str(pause), *args], env=env)


if __name__ == "__main__":
    if sys.argv[1] == "worker":
        worker(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]),
               Path(sys.argv[6]))  # fmt: skip
