"""`cardvault check` on real technical notes: links found only outside code (issue 22).

    python benchmarks/check_links.py [--show 20]

Builds vaults of the til-jbranchaud (1,871 notes) and til-simonw (577 notes) notes as cards
(benchmarks/til.py: one card per note, its folder as tag) in a temporary folder, runs the check
service (`run_checks`, what `cardvault check` prints) and counts the findings by code. These
notes link to each other with URLs, never with `[[wiki-links]]`, so every `broken-link` finding
on them is false: the target is 0. Each broken-link finding is printed with the note's line, so
a person can see what was read as a link.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from til import DATA, SIMONW, build_vault  # noqa: E402

from cardvault.check.run import run_checks  # noqa: E402
from cardvault.vault.layout import open_vault_at  # noqa: E402


def findings_of(data: Path, show: int) -> Counter[str]:
    """Check a vault built from `data`'s notes; print its link findings; count all by code."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "vault"
        count = build_vault(root, data)
        found = run_checks(open_vault_at(root), secrets=False)
        codes = Counter(f.code for f in found)
        print(f"{data.name}: {count} cards; findings by code: {dict(sorted(codes.items()))}")
        links = [f for f in found if f.code == "broken-link"]
        for finding in links[:show]:
            line = (root / finding.path).read_text(encoding="utf-8").splitlines()[finding.line - 1]
            print(f"  {finding.path}:{finding.line}: {finding.message}  | {line.strip()[:80]}")
        return codes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=20, help="broken-link findings to print")
    args = parser.parse_args()
    total: Counter[str] = Counter()
    for data in (DATA, SIMONW):
        total += findings_of(data, args.show)
    print(f"broken-link findings in all: {total['broken-link']} (target 0: these notes use URLs)")


if __name__ == "__main__":
    main()
