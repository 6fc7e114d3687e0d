"""How much of the package one command walks through: calls, modules, folder hops, and how often
the nouns every command needs (vault root, config, scope, agent, vault read, lock) are resolved.

    python benchmarks/flows.py [--json] [--workdir DIR]

Makes a fresh small vault (`cardvault init` plus a few cards and log entries), then runs each
flow in a new process under `sys.setprofile`, counting only frames of the `cardvault` package:
- `log`: `cardvault log "..." --title ...` (a write: lock, append, commit);
- `search (cold)`: `cardvault search "..." --json` with no resident process, index already built
  (what every agent's first search of a session costs past the model's load);
- `maintain`: `cardvault maintain --json` after new log entries (distill, merge, promote, ...).

Reported per flow:
- calls: Python function calls into cardvault's code (a generator resumed is not a new call);
- modules: distinct cardvault modules entered;
- folder hops: calls whose caller is in another folder of the package than the callee
  (`cardvault/cli/` -> `cardvault/search/` is one hop; a call within a folder is none);
- one count per noun: how many times its resolving function ran (NOUNS below), and (`--json`,
  `per_vault`) the most times for any one vault: a read of two vaults (`search --scope all`
  reads the project's and the global vault's config) is once per vault. The targets of
  issue 41: `log` <= 650 calls, cold `search` <= 700 calls and <= 40 hops, `maintain` one lock
  and one vault read per vault; each noun resolved once per command.

Counts, not seconds: they do not depend on the machine or its load, so two commits can be
compared run against run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOW = "2026-12-01T10:00"

#: noun -> the functions (module:qualname) that resolve, read or take it.
NOUNS: dict[str, tuple[str, ...]] = {
    "vault root": ("cardvault.vault.root:locate_root",),
    "config": ("cardvault.vault.config:load_config",),
    "scope": ("cardvault.app.wiring:Wiring._resolve",),
    "agent": ("cardvault.vault.agent_names:agent_name",),
    "vault read": ("cardvault.vault.read:_read",),
    "lock": ("cardvault.edits.lock:vault_lock",),
    "commit": ("cardvault.history.commits:commit",),
}

FLOWS: dict[str, list[str]] = {
    "log": ["log", "Deploy kept timing out. Lesson: raise the health-check grace period.",
            "--title", "Deploy timeouts"],
    "search (cold)": ["search", "why does the deploy time out", "--json"],
    "maintain": ["maintain", "--json"],
}  # fmt: skip

#: Runs in the child: profile one CLI command in-process and print the counts as JSON.
CHILD = r"""
import json, sys, os
from collections import Counter
PACKAGE = os.path.join(sys.argv[1], "cardvault") + os.sep
argv = json.loads(sys.argv[2])
names = json.loads(sys.argv[3])
calls = 0
modules = set()
hops = 0
named = Counter()
per_vault = {}  # function -> Counter of its first argument (a vault's root when it has one)
resumable = {}  # generator and coroutine frames entered once: a resume is not a call
RESUMABLE = 0x20 | 0x80 | 0x100 | 0x200  # CO_GENERATOR, CO_COROUTINE, *_ITERABLE_*, ASYNC_GEN

def folder(path):
    rest = path[len(PACKAGE):]
    return rest.split(os.sep)[0] if os.sep in rest else ""

def profile(frame, event, arg):
    global calls, hops
    if event != "call":
        return
    code = frame.f_code
    path = code.co_filename
    if not path.startswith(PACKAGE):
        return
    if code.co_flags & RESUMABLE:
        if id(frame) in resumable:
            return
        resumable[id(frame)] = frame
    calls += 1
    module = frame.f_globals.get("__name__", path)
    modules.add(module)
    key = f"{module}:{code.co_qualname}"
    if key in names:
        named[key] += 1
        first = frame.f_locals.get(code.co_varnames[0]) if code.co_argcount else None
        # a Vault's root, read from its fields: a property (a session's) must not run here
        root = getattr(first, "__dict__", {}).get("root")
        where = root if isinstance(root, os.PathLike) else first
        per_vault.setdefault(key, Counter())[str(where)] += 1
    caller = frame.f_back
    while caller is not None and not caller.f_code.co_filename.startswith(PACKAGE):
        caller = caller.f_back
    if caller is not None and folder(caller.f_code.co_filename) != folder(path):
        hops += 1

sys.argv = ["cardvault", *argv]
from cardvault.cli.app import main
sys.setprofile(profile)
code = 0
try:
    main()
except SystemExit as exc:
    code = exc.code or 0
finally:
    sys.setprofile(None)
sys.stdout.flush()
print("\n@@FLOWS@@" + json.dumps(
    {"code": code, "calls": calls, "modules": len(modules), "hops": hops, "named": named,
     "per_vault": {key: max(found.values()) for key, found in per_vault.items()}}
))
"""


def cli(env: dict[str, str], cwd: Path, *args: str) -> None:
    """Run the real CLI (set-up steps, not measured)."""
    subprocess.run(
        [sys.executable, "-m", "cardvault", *args], cwd=cwd, env=env, check=True,
        capture_output=True, text=True,
    )  # fmt: skip


def make_vault(workdir: Path, env: dict[str, str]) -> Path:
    """A fresh small vault: init, three cards, two log entries, an index."""
    root = workdir / "vault"
    cli(env, workdir, "init", str(root))
    cards = [
        ("Deploy health checks", "infrastructure", "deploy", "The load balancer drops a "
         "container that fails its health check within 30 s of start."),
        ("Postgres pooling", "infrastructure", "postgres", "Use pgbouncer in transaction "
         "mode; prepared statements need server-side names off."),
        ("Release tagging", "workflow", "release", "Tag releases vX.Y.Z on main after CI."),
    ]  # fmt: skip
    for topic, category, tag, body in cards:
        cli(env, root, "new", topic, "-c", category, "-t", tag, "--body", body)
    cli(env, root, "log", "Health check failed on cold start. Lesson: warm the cache first.",
        "--title", "Cold start")  # fmt: skip
    cli(env, root, "index")
    return root


def measure(root: Path, env: dict[str, str], argv: list[str]) -> dict[str, object]:
    """Counts for one command, run in a new process."""
    names = sorted({name for found in NOUNS.values() for name in found})
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT), json.dumps(argv), json.dumps(names)],
        cwd=root, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    marker = done.stdout.rfind("@@FLOWS@@")
    if marker < 0:
        raise SystemExit(f"{argv[0]} failed:\n{done.stderr[-2000:]}")
    found = json.loads(done.stdout[marker + len("@@FLOWS@@") :])
    named, most = found.pop("named"), found.pop("per_vault")
    found["nouns"] = {noun: sum(named.get(f, 0) for f in fs) for noun, fs in NOUNS.items()}
    found["per_vault"] = {noun: max(most.get(f, 0) for f in fs) for noun, fs in NOUNS.items()}
    return found


def run_flows(workdir: Path, flows: dict[str, list[str]]) -> dict[str, dict[str, object]]:
    """Make the vault in `workdir` and measure `flows` on it, in order."""
    env = {
        **os.environ, "CARDVAULT_NOW": NOW, "CARDVAULT_NO_AUTOSERVE": "1",
        "CARDVAULT_HOME": str(workdir / "home"), "PYTHONPATH": str(ROOT),
        "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "b@x",
    }  # fmt: skip
    root = make_vault(workdir, env)
    return {name: measure(root, env, argv) for name, argv in flows.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--workdir", type=Path, help="where to make the vault (default: a tmp dir)")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="cvflows-"))
    workdir.mkdir(parents=True, exist_ok=True)
    results = run_flows(workdir, FLOWS)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    nouns = list(NOUNS)
    print(f"{'flow':<15} {'exit':>4} {'calls':>7} {'modules':>7} {'hops':>5}  "
          + "  ".join(nouns))  # fmt: skip
    for name, found in results.items():
        counts = "  ".join(f"{found['nouns'][n]:>{len(n)}}" for n in nouns)  # type: ignore[index]
        print(f"{name:<15} {found['code']:>4} {found['calls']:>7} {found['modules']:>7} "
              f"{found['hops']:>5}  {counts}")  # fmt: skip


if __name__ == "__main__":
    main()
