"""When git first and last saw each file of a folder: the dates `import` gives a note it tracks.

One `git log` for the whole folder, read as text (GitPython would start a git per commit). The
folder may be any repository on the disk, so nothing in its configuration may run a program: no
signature check, external diff, text conversion, fsmonitor or pager.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from cardvault.history.runner import run_git, work_tree_of

_RECORD = "\x1e"  # starts each commit's line in the log output
_NOTHING_RUNS = (
    "-c", "log.showSignature=false", "-c", "core.fsmonitor=false",
    "-c", "core.quotePath=false", "--no-pager",
)  # fmt: skip


def file_dates(source: Path) -> dict[str, tuple[dt.date, dt.date]]:
    """Path in `source` -> the author dates of the first and last commit that touched it under
    that name; empty outside a repository."""
    if work_tree_of(source) is None:
        return {}
    done = run_git(
        source, *_NOTHING_RUNS,
        "log", "--no-show-signature", "--no-textconv", "--no-ext-diff", "--no-renames",
        "--relative", f"--format={_RECORD}%aI", "--name-only", "-z", "--", ".",
        check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return {}
    return _parse_log(done.stdout)


def _parse_log(out: str) -> dict[str, tuple[dt.date, dt.date]]:
    """Newest commit first: a path's first sighting is its last change, its last sighting its
    first commit."""
    dates: dict[str, tuple[dt.date, dt.date]] = {}
    for record in out.split(_RECORD)[1:]:
        head, _, names = record.partition("\n")
        try:
            when = dt.datetime.fromisoformat(head.strip("\x00").strip()).date()
        except ValueError:
            continue
        for name in names.split("\x00"):
            name = name.strip("\n")
            if not name:
                continue
            last = dates.get(name, (when, when))[1]
            dates[name] = (when, last)
    return dates
