"""What an interrupted first index costs: `cardvault index` run whole, then killed (SIGKILL) once
half its vectors are saved and run again, on the same vault of SciFact abstracts.

    python benchmarks/resume_index.py [--abstracts 1000] [--workdir /tmp/cardvault-bench]

Prints, as JSON: the passages, the uninterrupted index's wall time, when the kill came and how
many vectors the checkpoint held then, the resumed run's wall time and what it kept and embedded,
the least cosine between the resumed and the uninterrupted index's vectors (1.0: the same), and
the median time of one checkpoint save (`checkpoint.EVERY` rows, in-process). Before the
checkpoint (search/checkpoint.py) the run after a kill embedded every passage again: its cost
was the uninterrupted time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    """Run the three indexes and the save timing; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--abstracts", type=int, default=1000)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cardvault-bench"))
    args = parser.parse_args()
    os.environ.setdefault("CARDVAULT_CACHE", str(args.workdir / "cache"))
    root = _vault(args.workdir / f"scifact-{args.abstracts}", args.abstracts)

    whole = root.with_name(root.name + "-whole")
    shutil.rmtree(whole, ignore_errors=True)
    shutil.copytree(root, whole)
    began = time.monotonic()
    _index(whole)
    uninterrupted = time.monotonic() - began
    passages = len(_vectors(whole))

    killed_at, saved = _kill_halfway(root, passages)
    began = time.monotonic()
    resumed = _index(root)
    resumed_s = time.monotonic() - began
    mine, theirs = _vectors(root), _vectors(whole)
    least = (
        min(float(mine[key] @ theirs[key]) for key in theirs)
        if mine.keys() == theirs.keys()
        else None
    )
    print(json.dumps({
        "passages": passages,
        "uninterrupted_s": round(uninterrupted, 1),
        "killed_after_s": round(killed_at, 1),
        "saved_when_killed": saved,
        "resumed_s": round(resumed_s, 1),
        "resumed_said": resumed,
        "least_cosine_to_uninterrupted": least,
        "save_ms_median": _save_ms(),
    }, indent=2))  # fmt: skip


def _vault(root: Path, count: int) -> Path:
    """A vault of the first `count` SciFact abstracts (made once; its index removed each run)."""
    from data_path import shared_data

    if not (root / ".built").exists():
        cards = root / "memory" / "cards"
        cards.mkdir(parents=True, exist_ok=True)
        (root / "cardvault.toml").write_text("", encoding="utf-8")
        with (shared_data() / "scifact-train" / "corpus.jsonl").open(encoding="utf-8") as handle:
            for _, line in zip(range(count), handle, strict=False):
                doc = json.loads(line)
                (cards / f"doc-{doc['_id']}.md").write_text(
                    "---\n"
                    f"topic: {json.dumps(doc['title'].strip() or doc['_id'])}\n"
                    "category: projects\ntags: [scifact]\n"
                    "created: 2026-01-01\nupdated: 2026-01-01\n---\n"
                    f"{doc['text'].strip()}\n",
                    encoding="utf-8",
                )
        (root / ".built").write_text("ok\n", encoding="utf-8")
    shutil.rmtree(root / ".cardvault", ignore_errors=True)
    return root


def _index(root: Path) -> str:
    """Run `cardvault index` to its end; what it said (its last line and notices)."""
    done = subprocess.run(
        [sys.executable, "-m", "cardvault", "index"], cwd=root, capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    kept = [line for line in done.stderr.splitlines() if "kept" in line]
    return " / ".join([*kept, done.stdout.strip().splitlines()[-1]])


def _kill_halfway(root: Path, passages: int) -> tuple[float, int]:
    """Start `cardvault index`, SIGKILL it once its checkpoint holds half the passages."""
    from cardvault.search.checkpoint import FILE_NAME

    began = time.monotonic()
    run = subprocess.Popen(
        [sys.executable, "-m", "cardvault", "index"], cwd=root,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    path = root / ".cardvault" / FILE_NAME
    saved = 0
    while run.poll() is None and saved < passages // 2:
        time.sleep(0.2)
        if path.exists():
            try:
                with sqlite3.connect(path, timeout=1) as conn:
                    saved = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
            except sqlite3.Error:
                pass
    if run.poll() is not None:
        raise SystemExit("the index ended before it was killed: use more --abstracts")
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    return time.monotonic() - began, saved


def _vectors(root: Path) -> dict:  # type: ignore[type-arg]
    from cardvault.search.index import open_index
    from cardvault.search.vector_store import verified_vectors

    index = open_index(root / ".cardvault")
    try:
        return verified_vectors(index)
    finally:
        index.close()


def _save_ms() -> float:
    """The median time of one checkpoint save of `EVERY` 384-wide rows (20 saves)."""
    import numpy as np

    from cardvault.search.checkpoint import EVERY, Checkpoint

    rows = np.random.default_rng(0).normal(size=(EVERY, 384)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    times = []
    with tempfile.TemporaryDirectory() as folder:
        saved = Checkpoint(Path(folder), "bench")
        for round_ in range(20):
            hashes = [f"{round_}-{i}" for i in range(EVERY)]
            began = time.perf_counter()
            saved.add(hashes, rows)
            times.append(time.perf_counter() - began)
        saved.close()
    return round(statistics.median(times) * 1000, 2)


if __name__ == "__main__":
    main()
