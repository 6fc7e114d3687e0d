"""Two waits a newcomer meets on a big vault (issue 42): the first hybrid search, and a `log`
started while a long `sync` runs.

    python benchmarks/long_writes.py [--cards 2000] [--notes 30000] [--json]

- first search: a fresh vault of `--cards` generated cards (four paragraphs each) that was never
  indexed; the seconds of `cardvault search` (hybrid), what its notice says is left to embed,
  then the seconds of `cardvault index` finishing the rest.
- long sync: `--notes` notes dropped into a vault with a remote (pending hand edits); `sync`
  starts, and 2 s later a `log` starts in its own process; the seconds the `log` took (most of
  it waiting for the vault lock) and the seconds of the whole sync.

Each command is the real CLI in its own process, with no resident server. Seconds depend on the
machine and its load: note both (`uptime`) beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS = (
    "deploy", "cache", "token", "retry", "schema", "queue", "worker", "index", "backup",
    "mirror", "proxy", "header", "cookie", "session", "timeout", "pool", "replica", "shard",
    "migration", "rollback", "canary", "probe", "budget", "quota",
)  # fmt: skip


def cardvault(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardvault", *args], env=env, capture_output=True, text=True,
        check=False,
    )  # fmt: skip


def environment(home: Path) -> dict[str, str]:
    return {
        **os.environ, "CARDVAULT_NO_AUTOSERVE": "1", "CARDVAULT_HOME": str(home),
        "PYTHONPATH": str(ROOT), "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@x",
        "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@x",
    }  # fmt: skip


def card_text(number: int) -> str:
    pick = [WORDS[(number * k + k) % len(WORDS)] for k in range(1, 9)]
    paragraphs = "\n\n".join(
        f"The {pick[i]} {pick[i + 1]} of service {number} needs care: step {i} of its runbook "
        f"covers the {pick[(i + 2) % 8]} and the {pick[(i + 3) % 8]} settings." * 3
        for i in range(4)
    )
    return (
        f"---\ntopic: Runbook {number} {pick[0]} {pick[1]}\ncategory: operations\n"
        f"tags: [{pick[0]}]\ncreated: 2026-01-01\nupdated: 2026-01-01\n---\n{paragraphs}\n"
    )


def new_vault(env: dict[str, str], root: Path, cards: int) -> None:
    done = cardvault(env, "init", str(root))
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    folder = root / "memory" / "cards"
    for number in range(cards):
        (folder / f"runbook-{number:05}.md").write_text(card_text(number), encoding="utf-8")
    git = ["git", "-C", str(root)]
    if cards:
        subprocess.run([*git, "add", "-A"], check=True, env=env)
        subprocess.run([*git, "commit", "-qm", "cards"], check=True, env=env)


def first_search(work: Path, cards: int) -> dict[str, object]:
    env = environment(work / "home")
    root = work / "search-vault"
    new_vault(env, root, cards)
    start = time.perf_counter()
    found = cardvault(env, "--vault", str(root), "search", "rollback of a canary deploy", "--json")
    searched = time.perf_counter() - start
    said = (found.stdout + found.stderr).splitlines()  # --json: hits on stdout, notices on stderr
    start = time.perf_counter()
    indexed = cardvault(env, "--vault", str(root), "index")
    return {
        "cards": cards, "search_exit": found.returncode, "search_s": round(searched, 1),
        "left": [line.strip() for line in said if "to embed" in line][:1],
        "index_exit": indexed.returncode,
        "index_s": round(time.perf_counter() - start, 1),
    }  # fmt: skip


def long_sync(work: Path, notes: int) -> dict[str, object]:
    env = environment(work / "home")
    root, remote = work / "sync-vault", work / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    new_vault(env, root, 0)
    subprocess.run(["git", "-C", str(root), "remote", "add", "origin", str(remote)], check=True)
    folder = root / "memory" / "cards"
    for number in range(notes):
        (folder / f"note-{number:05}.md").write_text(card_text(number), encoding="utf-8")
    start = time.perf_counter()
    sync = subprocess.Popen(
        [sys.executable, "-m", "cardvault", "--vault", str(root), "sync"], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(2)
    logged_at = time.perf_counter()
    log = cardvault(env, "--vault", str(root), "log", "written while a sync runs", "--title", "x")
    log_s = time.perf_counter() - logged_at
    sync.wait()
    return {
        "notes": notes, "sync_exit": sync.returncode,
        "sync_s": round(time.perf_counter() - start, 1),
        "log_exit": log.returncode, "log_s": round(log_s, 1), "log_said": log.stderr.strip()[-300:],
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cards", type=int, default=2000)
    parser.add_argument("--notes", type=int, default=30000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        found = {
            "first search": first_search(work, args.cards),
            "long sync": long_sync(work, args.notes),
        }
    if args.json:
        print(json.dumps(found, indent=2))
        return
    for name, figures in found.items():
        print(name, " ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
