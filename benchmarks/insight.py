"""Time stats, graph, export, import and forget on generated vaults of 1,000 and 10,000 cards.

    python benchmarks/insight.py [--sizes 1000,10000]

Each size uses benchmarks/synthetic.py's deterministic vault (random words, two or three tags
from a 130-word vocabulary, so every tag is on ~20 cards at 1,000 and ~190 at 10,000), copied
into a fresh git repository. Figures are in-process wall times of the service functions (the CLI
adds ~0.4 s of Python start-up); import is into an empty vault, so no model is loaded. Results
go in docs/benchmarks.md, "Stats, graph, export, import, forget".
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.synthetic import build_synthetic_vault


def timed(what: str, action: Callable[[], Any]) -> Any:
    """Run `action`; print its wall time and this process's CPU time (which a busy machine does
    not inflate; it leaves out git subprocesses and time spent waiting for fsync)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = action()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"  {what:<28} wall {wall:7.2f} s   cpu {cpu:6.2f} s", flush=True)
    return result


def git_repo(root: Path) -> None:
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "cards"]):
        subprocess.run(
            ["git", "-C", str(root), *args],
            check=True,
            env={"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
                 "GIT_COMMITTER_EMAIL": "b@b", "PATH": "/usr/bin:/bin"},
        )  # fmt: skip


def run(size: int, work: Path) -> None:
    from cardvault.app.vaults import init_vault
    from cardvault.edits.door import Door
    from cardvault.forget.plan import apply_forget, plan_forget
    from cardvault.insight.graph import build_graph
    from cardvault.insight.stats import vault_stats
    from cardvault.portable.format import export_data, export_text, read_export
    from cardvault.portable.importer import apply_import, plan_import
    from cardvault.vault.layout import open_vault_at
    from cardvault.vault.read import read_vault

    source = build_synthetic_vault(Path(tempfile.gettempdir()) / f"cardvault-synth-{size}", size)
    root = work / f"v{size}"
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".cardvault", ".built"))
    git_repo(root)
    vault = open_vault_at(root)
    print(f"{size} cards")
    stats = timed("stats", lambda: vault_stats(vault))
    cards = timed("graph: read cards", lambda: read_vault(vault).live)
    graph = timed("graph: build", lambda: build_graph(cards))
    pairs, broad = len(graph.shared), len(graph.broad_tags)
    print(f"  ({stats.cards} cards, {pairs} tag pairs, {broad} broad tags)")
    now = dt.datetime(2026, 11, 30, 9, 15)
    text = timed("export", lambda: export_text(export_data(vault, now).data))
    empty = init_vault(work / f"empty{size}").vault
    parsed = timed("import: read + validate", lambda: read_export(json.loads(text), empty))
    plan = timed("import: plan", lambda: plan_import(empty, parsed, now.date()))
    timed(
        "import: write + commit", lambda: Door(empty).land(apply_import(empty, plan, "bench.json"))
    )
    query = cards[0].topic.split()[0]
    plan_f = timed(f"forget '{query}': plan", lambda: plan_forget(vault, query, now.date()))
    timed("forget: write + commit", lambda: Door(vault).land(apply_forget(vault, plan_f)))
    print(f"  (forgot {len(plan_f.cards)} cards)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="cardvault-insight-") as work:
        for size in sizes:
            run(size, Path(work))


if __name__ == "__main__":
    main()
