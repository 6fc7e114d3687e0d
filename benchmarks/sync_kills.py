"""kill -9 of `cardvault sync` at random moments: how many trials leave a clone stale, lost or
broken once the next command ran.

    python benchmarks/sync_kills.py [--trials 50] [--seed 41]

Each trial copies one trial folder (a vault, its bare remote and a teammate's pushed work: the
sync is a true merge that changes MEMORY.md's table; tests/writers_crash.py), starts `cardvault
sync`, kills its whole process group after a delay drawn uniformly from the length of a full
sync, then runs the next command (`log`), a sync to the end and a fresh clone of the remote
(tests/support/sync_kill.py `verdict`). A trial ends "before" or "after" (what the vault held
once the next command ran), or "stale" (MEMORY.md or AGENTS.md not those of the cards),
"lost" or "broken". Results go in docs/benchmarks.md ("A killed sync"). Which moment a delay
hits depends on the machine's load: say so.
"""

from __future__ import annotations

import argparse
import collections
import random
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--seed", type=int, default=41)
    args = parser.parse_args()
    from tests.support.sync_kill import killed_sync, sync_states, verdict
    from tests.writers_crash import sync_template

    rng = random.Random(args.seed)
    tally: collections.Counter[str] = collections.Counter()
    with tempfile.TemporaryDirectory(prefix="cardvault-sync-kills-") as work:
        folder = Path(work)
        template = sync_template(folder / "template")
        states = sync_states(template, folder)
        print(f"full sync {states.seconds:.2f} s", flush=True)
        for number in range(args.trials):
            trial = folder / f"trial-{number}"
            shutil.copytree(template, trial, symlinks=True)
            delay = rng.uniform(0.0, states.seconds)
            status = killed_sync(trial / "vault", delay=delay)
            found = verdict(trial, states)
            tally[found.split(":")[0].split(" ")[0]] += 1
            ended = "ended first" if status == 0 else "killed"
            print(f"trial {number + 1:3d}: {ended} at {delay:5.2f} s -> {found}", flush=True)
            shutil.rmtree(trial)
    bad = sum(n for key, n in tally.items() if key not in ("before", "after"))
    print(f"{args.trials} trials: {dict(tally)}; {bad} left a clone stale, lost or broken")


if __name__ == "__main__":
    main()
