"""8 writer processes × 25 mixed writes (log, remember, new, capture of a failing command) on
one vault while `maintain` and `search` run: nothing lost, nothing twice, every change in git.

Sized for the suite: maintain runs its steps that need no model and search is keyword-only,
each again every 3 seconds (the model would add tens of seconds of CPU on a shared machine);
`benchmarks/writers.py stress` runs the full maintenance and hybrid search at 8 × 100.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.machine import scaled
from tests.writers_load import background, check_vault, read_reports, start_workers

WORKERS = 8
WRITES = 25


def test_parallel_writers_lose_nothing(vault_path: Path, tmp_path: Path) -> None:
    stop = tmp_path / "stop"
    maintain = ["maintain", "--only", "promote,archive,index", "--json"]
    search = ["search", "--mode", "keyword", "--json", "retry"]
    helpers = [background(vault_path, args, stop, pause=3.0) for args in (maintain, search)]
    workers = start_workers(vault_path, WORKERS, WRITES, seed=11, folder=tmp_path)
    codes = [proc.wait(timeout=scaled(600)) for proc in workers]
    stop.touch()
    for proc in helpers:
        proc.wait(timeout=scaled(600))
    assert codes == [0] * WORKERS
    records = read_reports(tmp_path)
    assert len(records) == WORKERS * WRITES
    assert check_vault(vault_path, records) == []
    for name in ("maintain", "search"):
        runs = Path(f"{stop}.{name}.codes").read_text(encoding="utf-8").splitlines()
        assert runs and all(line.startswith("0 ") for line in runs), runs
