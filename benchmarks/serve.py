"""What the resident process and the MCP server buy: cold `cardvault search` / `context` with and
without `cardvault serve`, the fast path's cost when no server runs, and MCP tool-call latency.

    python benchmarks/serve.py [--sizes 1000 10000] [--runs 9] [--workdir DIR] [--skip-mcp]
                               [--only-autoserve]

Warm by default (issue 24): with auto-serve on, a plain `cardvault search` in a fresh process
with no server running (cold: it answers and launches the resident process), then, once the
server answers, a second plain `search` (warm); both beside a plain Python + SQLite FTS5 script
that searches the same notes (its index built once, not timed).

Vaults are generated once under the work folder (benchmarks/synthetic.py), put in git (so
`remember` commits as in real use) and indexed; reruns reuse them. Every figure is the median of
`--runs` fresh processes after a warm-up, run through the installed `cardvault` console script,
as an agent runs it. CPU time is the client's (user + sys); the server's CPU per request is
read from /proc. The load average is printed: the machine is shared, so wall times are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from speed import _run, median_seconds
from synthetic import QUERIES, build_synthetic_vault

from cardvault import open_vault

CLI = str(Path(sys.executable).with_name("cardvault"))
#: The entry point before the fast path: straight into typer.
OLD_ENTRY = "import sys; from cardvault.cli.app import main; sys.argv[0] = 'cardvault'; main()"


def median_process(command: list[str], runs: int, env: dict[str, str]) -> dict[str, float]:
    """speed.py's median wall and CPU seconds of fresh processes, rounded to milliseconds."""
    return {name: round(value, 3) for name, value in median_seconds(command, runs, env).items()}


def prepared_vault(workdir: Path, size: int) -> Path:
    """A generated vault of `size` cards, in git, indexed."""
    root = build_synthetic_vault(workdir / f"synth-{size}", size)
    if not (root / ".git").exists():
        (root / ".gitignore").write_text(".cardvault/\n.built\n")
        who = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost"}
        who.update(GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@localhost")
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "generated vault"]):
            subprocess.run(["git", "-C", str(root), *args], check=True, env={**os.environ, **who})
    open_vault(root).index()
    return root


def commands(root: Path) -> dict[str, list[str]]:
    """The cold commands timed with and without the server."""
    cli = [CLI, "--vault", str(root)]
    return {
        "search (hybrid) --json": [*cli, "search", QUERIES[1], "--json"],
        "search --mode keyword --json": [*cli, "search", QUERIES[1], "-m", "keyword", "--json"],
        "context --task": [*cli, "context", "--task", QUERIES[2]],
    }


def server_cpu(pid: int) -> float:
    """CPU seconds (user + sys) the process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cold_figures(root: Path, runs: int, env: dict[str, str]) -> dict[str, Any]:
    """Each command without a server, through the old entry point, and with a server."""
    figures: dict[str, Any] = {
        "python -c pass": median_process([sys.executable, "-c", "pass"], runs, env)
    }
    for name, command in commands(root).items():
        figures[f"{name}, no server"] = median_process(command, runs, env)
    old = [sys.executable, "-c", OLD_ENTRY, *commands(root)["search (hybrid) --json"][1:]]
    figures["search (hybrid) --json, no server, old entry point"] = median_process(old, runs, env)
    _run([CLI, "--vault", str(root), "serve", "--background"], env)
    try:
        status = json.loads(_status_json(root))
        for name, command in commands(root).items():
            cpu_before = server_cpu(status["pid"])
            figures[f"{name}, server running"] = median_process(command, runs, env)
            per_request = (server_cpu(status["pid"]) - cpu_before) / (runs + 1)
            figures[f"{name}, server running"]["server cpu s per request"] = round(per_request, 3)
        figures["round trip from a warm client (ms)"] = warm_round_trip(root, runs)
    finally:
        _run([CLI, "--vault", str(root), "serve", "--stop"], env)
    return figures


def autoserve_figures(root: Path, runs: int, env: dict[str, str]) -> dict[str, Any]:
    """Median wall seconds of the first plain `search` (no server; auto-serve launches one) and
    of the second (served), over `runs` rounds, and of the FTS5 script on the same notes."""
    env = {k: v for k, v in env.items() if k != "CARDVAULT_NO_AUTOSERVE"}
    search = [CLI, "--vault", str(root), "search", QUERIES[1], "--json"]
    firsts, seconds = [], []
    for _ in range(runs):
        _run([CLI, "--vault", str(root), "serve", "--stop"], env)
        firsts.append(_timed_run(search, env))
        _wait_for_server(root)
        seconds.append(_timed_run(search, env))
    _run([CLI, "--vault", str(root), "serve", "--stop"], env)
    fts = fts5_command(root)
    return {
        "first search, auto-serve on, no server (wall s)": round(statistics.median(firsts), 3),
        "second search, served (wall s)": round(statistics.median(seconds), 3),
        "plain sqlite FTS5 script (wall s)": median_process(fts, runs, env)["wall s"],
    }


def _timed_run(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    _run(command, env)
    return time.perf_counter() - started


def _wait_for_server(root: Path) -> None:
    from cardvault.serve.control import server_status

    deadline = time.monotonic() + 300
    while server_status(root) is None:
        if time.monotonic() > deadline:
            raise RuntimeError("the auto-started server never answered")
        time.sleep(0.05)


FTS5_SCRIPT = """
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute(
    "SELECT slug, bm25(notes) FROM notes WHERE notes MATCH ? ORDER BY bm25(notes) LIMIT 10",
    (" OR ".join(w for w in sys.argv[2].split() if w.isalnum()),),
).fetchall()
print(json.dumps(rows))
"""


def fts5_command(root: Path) -> list[str]:
    """A plain Python + SQLite FTS5 search of the vault's cards (the index built here, once)."""
    import sqlite3

    db_path = root.parent / f"{root.name}-fts5.sqlite"
    if not db_path.exists():
        db = sqlite3.connect(db_path)
        db.execute("CREATE VIRTUAL TABLE notes USING fts5(slug, body)")
        cards = sorted((root / "memory" / "cards").glob("*.md"))
        db.executemany(
            "INSERT INTO notes VALUES (?, ?)",
            [(card.stem, card.read_text(encoding="utf-8")) for card in cards],
        )
        db.commit()
        db.close()
    return [sys.executable, "-c", FTS5_SCRIPT, str(db_path), QUERIES[1]]


def _status_json(root: Path) -> str:
    from cardvault.serve.control import server_status

    status = server_status(root)
    assert status is not None
    return json.dumps({"pid": status.pid})


def warm_round_trip(root: Path, runs: int) -> float:
    """Median ms of `answer_from_server` in this process: socket, server work, reply (no
    process start-up)."""
    import contextlib
    import io

    from cardvault.cli.entry import answer_from_server

    argv = ["--vault", str(root), "search", QUERIES[3], "--json"]
    times = []
    for _ in range(runs + 1):
        with contextlib.redirect_stdout(io.StringIO()):
            started = time.perf_counter()
            assert answer_from_server(argv) == 0
            times.append(time.perf_counter() - started)
    return round(statistics.median(times[1:]) * 1000, 1)


def mcp_figures(root: Path, runs: int) -> dict[str, float]:
    """Handshake, first search, and warm tool-call latencies (ms) of `cardvault mcp`."""
    import anyio

    return anyio.run(_mcp_figures, root, runs)


def _mcp_server_pid(root: Path) -> int:
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if entry.name.isdigit() and b"mcp" in argv and os.fsencode(root) in argv:
            return int(entry.name)
    raise RuntimeError("the MCP server process was not found")


async def _mcp_figures(root: Path, runs: int) -> dict[str, float]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=CLI, args=["mcp", "--vault", str(root)], env=dict(os.environ)
    )
    started = time.perf_counter()
    figures: dict[str, float] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        figures["start + handshake"] = time.perf_counter() - started
        figures["first search (waits for the warm-up)"] = await _timed(
            client, "search", {"query": QUERIES[0]}
        )
        query = lambda n: QUERIES[n % len(QUERIES)]  # noqa: E731
        calls = {
            "search (hybrid)": lambda n: ("search", {"query": query(n)}),
            "search (keyword)": lambda n: ("search", {"query": query(n), "mode": "keyword"}),
            "read (a card)": lambda n: ("read", {"name": _a_card(root, n)}),
            "remember (log entry + git commit)": lambda n: (
                "remember", {"text": f"benchmark lesson {time.time_ns()}"},
            ),
            "context --task": lambda n: ("context", {"task": query(n)}),
        }  # fmt: skip
        pid = _mcp_server_pid(root)
        for name, make in calls.items():
            cpu_before = server_cpu(pid)
            times = [await _timed(client, *make(n)) for n in range(runs)]
            figures[name] = statistics.median(times)
            figures[f"{name}: server cpu per call"] = (server_cpu(pid) - cpu_before) / runs
    return {name: round(seconds * 1000, 1) for name, seconds in figures.items()}


async def _timed(client: Any, tool: str, arguments: dict[str, Any]) -> float:
    started = time.perf_counter()
    result = await client.call_tool(tool, arguments)
    elapsed = time.perf_counter() - started
    if result.is_error:
        raise RuntimeError(f"{tool} failed: {result.content[0].text}")
    return elapsed


def _a_card(root: Path, number: int) -> str:
    cards = sorted((root / "memory" / "cards").glob("*.md"))
    return cards[(number * 97) % len(cards)].stem


def main() -> None:
    """Run every measurement and print JSON (docs/benchmarks.md holds the tables)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cardvault-serve-bench"))
    parser.add_argument("--skip-mcp", action="store_true")
    parser.add_argument("--only-autoserve", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("CARDVAULT_CACHE", str(args.workdir / "cache"))
    # No global vault: the figures are for one vault (a global one adds its own search).
    os.environ["CARDVAULT_HOME"] = str(args.workdir / "no-global-vault")
    # the figures without a server must not start one (warm by default); autoserve_figures
    # drops this again
    env = {**os.environ, "CARDVAULT_NO_AUTOSERVE": "1"}
    for size in args.sizes:
        root = prepared_vault(args.workdir, size)
        figures: dict[str, Any] = {"load average before": os.getloadavg()[0]}
        figures["warm by default"] = autoserve_figures(root, args.runs, env)
        if args.only_autoserve:
            figures["load average after"] = os.getloadavg()[0]
            print(json.dumps({f"{size} cards": figures}, indent=2), flush=True)
            continue
        figures["cold processes"] = cold_figures(root, args.runs, env)
        if not args.skip_mcp:
            figures["mcp tool calls (ms)"] = mcp_figures(root, args.runs)
        figures["load average after"] = os.getloadavg()[0]
        print(json.dumps({f"{size} cards": figures}, indent=2), flush=True)


if __name__ == "__main__":
    main()
