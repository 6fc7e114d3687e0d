"""How much of real agent logs cardvault reads: `##` sections parsed as entries, and lessons.

Run `python benchmarks/real_logs.py [REAL_VAULTS] [--distill]` (default ../shared/data/real-vaults):
over every `.md` file whose name starts with a date in the `memory/` folders of the OpenClaw sets,
it counts the top-level `##` headings, the entries parse_log finds (timed and untimed) and the
signals (lessons) of those entries. A file named `DATE-suffix.md` is read as the log of DATE.
With `--distill`, the real CLI also plans one `maintain --dry-run` over a scratch vault made by
`cardvault init` holding each set's `memory/DATE.md` logs (the bundled model; slow) and prints
its counts.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
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


def distill(folder: Path) -> dict[str, int]:
    """The counts of `maintain --dry-run` over a scratch vault holding the set's DATE.md logs
    (a scratch global vault too: the run registers nothing of the user's)."""
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "CARDVAULT_HOME": str(Path(scratch) / "global")}
        vault = Path(scratch) / "vault"
        cli = [sys.executable, "-m", "cardvault"]
        subprocess.run([*cli, "init", str(vault)], env=env, check=True, capture_output=True)
        for path in sorted(folder.glob("*.md")):
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}\.md", path.name):
                shutil.copyfile(path, vault / "memory" / path.name)
        args = ["--vault", str(vault), "maintain", "--dry-run", "--json", "--commit-pending"]
        done = subprocess.run([*cli, *args], env=env, check=True, capture_output=True, text=True)
        counts: dict[str, int] = json.loads(done.stdout)["counts"]
        return counts


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--distill"]
    root = Path(args[0] if args else "../shared/data/real-vaults")
    for name in SETS:
        print(name, count(root / name / "memory"))
        if "--distill" in sys.argv:
            print(name, "maintain --dry-run:", distill(root / name / "memory"))


if __name__ == "__main__":
    main()
