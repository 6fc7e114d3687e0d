"""`cardvault view` on real vaults: time to write the page, its size, and the browser's layout.

Vaults:
- the bundled sample vault (32 cards, 2 archived);
- the 577 til-simonw notes (../shared/data/til-simonw) as cards: topic = the note's `# ` title,
  category `tools`, tag = its folder, created/updated = the note's first commit date, and each
  link to another note (`[text](https://til.simonwillison.net/<folder>/<slug>)`, 96 of them)
  turned into `[[slug|text]]`, as an import that resolves links would;
- optionally a generated vault of N cards (benchmarks/synthetic.py), `--synthetic 10000`.

For each: the median wall time of `cardvault --vault V view --out FILE` as a subprocess (the
whole command, Python start-up included; the first, cold-catalog run is reported apart), the
page's bytes, and with `--browser` the layout time the page itself reports (`data-layout-ms`)
and its node count in headless Chromium (--dump-dom). Prints the machine's load beside it.

    python benchmarks/view.py [--runs 5] [--browser] [--synthetic 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from data_path import shared_data
from til import split_title

REPO = Path(__file__).resolve().parents[1]
SIMONW = shared_data() / "til-simonw"
TIL_LINK = re.compile(r"\[([^\]\n]+)\]\(https?://til\.simonwillison\.net/[\w.-]+/([\w.-]+?)\)")
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)  # fmt: skip


def build_simonw_vault(root: Path) -> int:
    """The til-simonw notes as a vault under `root` (see the module docstring); returns the
    number of cards."""
    first = {}
    for line in (SIMONW / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        first[row["path"]] = (row["first_committed"] or "2026-01-01")[:10]
    (root / "memory" / "cards").mkdir(parents=True)
    (root / "cardvault.toml").write_text("", encoding="utf-8")
    count = 0
    for note in sorted((SIMONW / "notes").glob("*/*.md")):
        title, body = split_title(note.read_text(encoding="utf-8"))
        body = TIL_LINK.sub(lambda m: f"[[{m.group(2)}|{m.group(1)}]]", body)
        day = first[note.relative_to(SIMONW).as_posix()]
        target = root / "memory" / "cards" / note.parent.name / note.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(
            f"---\ntopic: {json.dumps(title or note.stem, ensure_ascii=False)}\n"
            f"category: tools\ntags: [{note.parent.name.lower()}]\n"
            f"created: {day}\nupdated: {day}\n---\n{body.strip()}\n",
            encoding="utf-8",
        )
        count += 1
    _git(root)
    return count


def _git(root: Path) -> None:
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b", "PATH": os.environ["PATH"]}  # fmt: skip
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "cards"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env)


def cardvault() -> str:
    found = shutil.which("cardvault", path=str(Path(sys.executable).parent))
    return found or "cardvault"


def time_view(root: Path, page: Path, runs: int) -> tuple[float, list[float], dict[str, object]]:
    """(first run, later runs, the --json summary of the last) in seconds."""
    times = []
    summary: dict[str, object] = {}
    for _ in range(runs + 1):
        start = time.perf_counter()
        done = subprocess.run(
            [cardvault(), "--vault", str(root), "view", "--out", str(page), "--json"],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        times.append(time.perf_counter() - start)
        summary = json.loads(done.stdout)
    return times[0], times[1:], summary


def browser_layout(page: Path, work: Path) -> dict[str, str]:
    """The body's data-* attributes after load in headless Chromium (nodes, layout-ms, ...)."""
    chromium = shutil.which("chromium")
    if chromium is None:
        return {}
    done = subprocess.run(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={work / 'profile'}", "--dump-dom",
         page.as_uri()],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    body = re.search(r"<body([^>]*)>", done.stdout)
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', body.group(1))) if body else {}


def report(name: str, root: Path, work: Path, runs: int, browser: bool) -> None:
    page = work / f"{name}.html"
    first, later, summary = time_view(root, page, runs)
    print(
        f"{name}: {summary['cards']} cards, {summary['archived']} archived, "
        f"{summary['links']} links; page {summary['bytes']:,} bytes; "
        f"view --out: first {first:.2f} s, median of {runs} after {statistics.median(later):.2f} s"
        f" (min {min(later):.2f}, max {max(later):.2f})"
    )
    if browser:
        found = browser_layout(page, work)
        print(f"  chromium: {found.get('nodes')} nodes drawn, layout {found.get('layout-ms')} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--browser", action="store_true", help="Also load each page in Chromium.")
    parser.add_argument("--synthetic", type=int, default=0, help="Also a generated vault of N.")
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1 and 5 min), "
          f"{os.cpu_count()} cores")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="cardvault-view-bench-") as folder:
        work = Path(folder)
        sample = work / "sample"
        shutil.copytree(REPO / "sample-vault", sample)
        _git(sample)
        report("sample", sample, work, args.runs, args.browser)
        simonw = work / "til-simonw"
        build_simonw_vault(simonw)
        report("til-simonw", simonw, work, args.runs, args.browser)
        if args.synthetic:
            from benchmarks.synthetic import build_synthetic_vault

            source = build_synthetic_vault(work / "synthetic-source", args.synthetic)
            synthetic = work / f"synthetic-{args.synthetic}"
            shutil.copytree(
                source, synthetic, ignore=shutil.ignore_patterns(".cardvault", ".built")
            )
            _git(synthetic)
            report(f"synthetic-{args.synthetic}", synthetic, work, args.runs, args.browser)
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
