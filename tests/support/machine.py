"""How long a test waits on the wall clock for work that should end: the seconds it takes on
an idle machine, stretched by the machine's load. Every wall-clock hang guard of the suite (a
subprocess `timeout=`, a `wait`, a polling deadline) goes through `scaled`, so a run on a busy
machine waits longer instead of failing; a guard that can count work (steps, bytes, CPU time:
`support.hostile.hang_guard`) counts that instead."""

from __future__ import annotations

import os


def scaled(seconds: float) -> float:
    """`seconds` times the run queue per core, at least once: a machine whose queue is twice
    its cores runs everything about half as fast. The highest of the 1-, 5- and 15-minute load
    averages, so a load that rose a moment ago (or just eased) still counts."""
    load = max(os.getloadavg()) / (os.cpu_count() or 1)
    return seconds * max(1.0, load)
