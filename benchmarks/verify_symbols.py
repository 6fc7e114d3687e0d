"""How long `verify`'s code-symbol check takes on a big repository, and how much it reads.

    python benchmarks/verify_symbols.py [SOURCE_FOLDER] [--runs 3]

SOURCE_FOLDER (default: the running Python's standard library, without site-packages) is
copied into a temporary git repository (its source files only) and committed. Then
`Project.source_names` (verify/symbols.py) is timed for three sets of names, each run on a
fresh `Project` (nothing cached between runs):
- present: 20 names the source has (the usual case: the scan stops once all are found);
- one missing: the same plus one name nowhere in the source (every file is read once);
- cards: a whole `cardvault verify` of a vault in that repository, 50 cards naming symbols.
It prints the median time of each, the files read and the bytes they hold.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

PRESENT = [
    "OrderedDict", "namedtuple", "ThreadPoolExecutor", "JSONDecoder", "urlparse",
    "HTTPConnection", "TemporaryDirectory", "dataclass", "ArgumentParser", "Decimal",
    "SequenceMatcher", "TextWrapper", "getLogger", "ZipFile", "SafeConfigParser",
    "BaseHTTPRequestHandler", "SimpleQueue", "ElementTree", "defaultdict", "lru_cache",
]  # fmt: skip
MISSING = "frobnicate_the_widgets"


def copy_sources(source: Path, target: Path) -> int:
    """Copy the source files of `source` (site-packages and caches left out); how many."""
    from cardvault.verify.symbols import SOURCE_EXTENSIONS

    count = 0
    for folder, subfolders, files in os.walk(source):
        subfolders[:] = [d for d in subfolders if d not in ("site-packages", "__pycache__")]
        for name in files:
            if name.rsplit(".", 1)[-1] in SOURCE_EXTENSIONS and "." in name:
                rel = Path(folder, name).relative_to(source)
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(folder, name), target / rel)
                count += 1
    return count


def git(top: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(top), *args], check=True, capture_output=True)


def timed(function: object, runs: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = function()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser()
    default = Path(sysconfig.get_paths()["stdlib"])
    parser.add_argument("source", nargs="?", type=Path, default=default)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from cardvault.verify import symbols
    from cardvault.verify.project import Project

    with tempfile.TemporaryDirectory() as folder:
        top = Path(folder) / "repo"
        top.mkdir()
        files = copy_sources(args.source, top)
        git(top, "init", "-q")
        git(top, "add", "-A")
        git(top, "-c", "user.name=b", "-c", "user.email=b@e", "commit", "-qm", "sources")
        size = sum((top / p).stat().st_size for p in _tracked(top))
        print(f"{files} source files, {size / 1e6:.1f} MB, from {args.source}")
        reads = {"n": 0, "bytes": 0}
        original = symbols.read_confined

        def counting(root: Path, path: Path, limit: int) -> bytes:
            data = original(root, path, limit)
            reads["n"] += 1
            reads["bytes"] += len(data)
            return data

        symbols.read_confined = counting  # counts what the real read returns
        for label, names in (("present", PRESENT), ("one missing", [*PRESENT, MISSING])):
            reads.update(n=0, bytes=0)
            wanted = frozenset(names)
            seconds, found = timed(lambda: Project(top).source_names(wanted), args.runs)  # noqa: B023
            assert isinstance(found, frozenset)
            per_run = reads["n"] // args.runs, reads["bytes"] / args.runs / 1e6
            print(f"{label:12} {seconds:6.2f} s median of {args.runs}; {len(found)}/{len(names)}"
                  f" found; {per_run[0]} files read, {per_run[1]:.1f} MB")  # fmt: skip
        symbols.read_confined = original
        seconds = _verify(top, args.runs)
        print(f"verify --dry-run, 50 cards (card-0 stale): {seconds:.2f} s median of {args.runs}")


def _tracked(top: Path) -> list[str]:
    out = subprocess.run(["git", "-C", str(top), "ls-files", "-z"], capture_output=True, text=True)
    return [p for p in out.stdout.split("\0") if p]


def _verify(top: Path, runs: int) -> float:
    """A vault in the repository with 50 cards naming symbols (one removed): `verify
    --dry-run` timed end to end in a fresh process."""
    cli = [sys.executable, "-m", "cardvault"]
    vault = top / "memory-vault"
    env = {**os.environ, "CARDVAULT_NO_AUTOSERVE": "1"}
    subprocess.run([*cli, "init", str(vault)], check=True, capture_output=True, env=env)
    for number in range(50):  # written as files (as a person would), committed at once
        name = PRESENT[number % len(PRESENT)] if number else MISSING
        body = f"Card {number} uses `{name}()` and `{PRESENT[(number + 3) % len(PRESENT)]}`."
        meta = (f"---\ntopic: Card {number}\ncategory: workflow\ntags: []\n"
                "created: 2026-10-01\nupdated: 2026-10-01\n---\n")  # fmt: skip
        (vault / f"memory/cards/card-{number}.md").write_text(meta + body + "\n")
    git(top, "add", "-A")
    git(top, "-c", "user.name=b", "-c", "user.email=b@e", "commit", "-qm", "cards")
    command = [*cli, "--vault", str(vault), "verify", "--dry-run", "--json"]
    seconds, done = timed(lambda: subprocess.run(command, capture_output=True, env=env), runs)
    assert isinstance(done, subprocess.CompletedProcess)
    stale = [row["slug"] for row in json.loads(done.stdout)["stale"]]
    assert stale == ["card-0"], stale  # exactly the card naming the missing function
    return seconds


if __name__ == "__main__":
    main()
