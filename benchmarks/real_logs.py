"""How much of real agent logs cardvault reads: `##` sections parsed as entries, and lessons.

Run `python benchmarks/real_logs.py [REAL_VAULTS]` (default ../shared/data/real-vaults): over every
`.md` file whose name starts with a date in the `memory/` folders of the OpenClaw sets, it counts
the top-level `##` headings, the entries parse_log finds (timed and untimed) and the signals
(lessons) of those entries. A file named `DATE-suffix.md` is read as the log of DATE.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from cardvault.vault import prose
from cardvault.vault.config import DEFAULT_SIGNALS
from cardvault.vault.daily import parse_log

SETS = ("openclaw-catalyst-zh", "openclaw-dharmic-claw-en")
_DATED = re.compile(r"^(\d{4}-\d{2}-\d{2})")


def count(folder: Path) -> dict[str, int]:
    """Files, `##` sections, entries (timed) and signals of a workspace's dated logs."""
    totals = dict.fromkeys(("files", "sections", "entries", "timed", "signals"), 0)
    for path in sorted(folder.glob("*.md")):
        dated = _DATED.match(path.name)
        if dated is None:
            continue
        text = path.read_text("utf-8")
        tokens = prose.parse(text)
        entries = parse_log(text, path.with_name(f"{dated.group(1)}.md"), DEFAULT_SIGNALS)
        totals["files"] += 1
        totals["sections"] += sum(
            1 for t in tokens if t.type == "heading_open" and t.tag == "h2" and t.level == 0
        )
        totals["entries"] += len(entries)
        totals["timed"] += sum(1 for e in entries if e.time)
        totals["signals"] += sum(len(e.signals) for e in entries)
    return totals


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/real-vaults")
    for name in SETS:
        print(name, count(root / name / "memory"))


if __name__ == "__main__":
    main()
