"""Cold-process times of the everyday commands on big vaults, first run and repeat (issue 9).

    python benchmarks/vault_commands.py [--sizes 1000 10000] [--til] [--runs 5]
                                        [--workdir /tmp/cardvault-bench]

Vaults: the generated ones of benchmarks/synthetic.py (N cards) with a year of daily logs
(three entries a day, one with a `Lesson:`), and, with `--til`, the 1,871 real notes of
../shared/data/til-jbranchaud as cards. Each is a git repository (new, log and import commit).

For every command, "first" is a cold process with no catalog (`.cardvault/catalog.sqlite`
removed before each run: every file is parsed), "repeat" a cold process on an unchanged vault
with the catalog in place. Medians of `--runs` processes, wall and CPU seconds (the machine is
shared; CPU time is what the command itself needed). `new`/`log` add to the vault each run;
`forget` of one card's slug is answered "no" (its plan is what is timed); `import` writes a
fresh export of the vault into a new empty vault each run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import build_synthetic_vault

TIL = Path(__file__).resolve().parents[2] / "shared" / "data" / "til-jbranchaud"
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@b"}  # fmt: skip


def add_logs(root: Path, days: int = 365) -> None:
    """A daily log for each of `days` days: a standup, a lesson, a link to a card."""
    cards = sorted((root / "memory" / "cards").glob("*.md"))
    for number in range(days):
        day = f"2026-{1 + number // 31 % 12:02d}-{1 + number % 28:02d}"
        card = cards[number % len(cards)].stem
        text = (
            f"# {day}\n\n## 09:{number % 60:02d} — Standup\nWorked on the queue.\n\n"
            f"## 11:00 — Retry storm {number}\nLesson: cap retries with backoff (run {number}).\n\n"
            f"## 16:30 — Notes\nSee the card.\n→ card: {card}\n"
        )
        (root / "memory" / f"{day}.md").write_text(text, encoding="utf-8")


def til_vault(root: Path) -> Path:
    """The til-jbranchaud notes as cards (topic = title, tags = the note's category)."""
    if (root / ".built").exists():
        return root
    cards = root / "memory" / "cards"
    cards.mkdir(parents=True, exist_ok=True)
    (root / "cardvault.toml").write_text("", encoding="utf-8")
    for line in (TIL / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
        note = json.loads(line)
        body = (TIL / note["path"]).read_text(encoding="utf-8").split("\n", 1)[-1].strip()
        tag = "".join(c if c.isalnum() else "-" for c in note["category"].lower()).strip("-")
        day = (note["first_committed"] or "2020-01-01")[:10]
        text = (
            f"---\ntopic: {json.dumps(note['title'], ensure_ascii=False)}\ncategory: tools\n"
            f"tags: [{tag}]\n"
            f"created: {day}\nupdated: {day}\n---\n{body}\n"
        )
        slug = Path(note["path"]).stem
        (cards / f"{tag}-{slug}.md").write_text(text, encoding="utf-8")
    (root / ".built").write_text("ok\n", encoding="utf-8")
    return root


def git_vault(source: Path, root: Path, logs: bool) -> Path:
    """A git copy of `source` (made once, reused)."""
    if (root / ".git").is_dir():
        return root
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".cardvault", ".built"))
    if logs:
        add_logs(root)
    (root / ".gitignore").write_text(".cardvault/\n", encoding="utf-8")
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "generated"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env)
    return root


def median_run(
    command: list[str],
    runs: int,
    env: dict[str, str],
    before: Callable[[], None] = lambda: None,
    stdin: str | None = None,
    ok: tuple[int, ...] = (0,),
) -> dict[str, float]:
    """Median wall and CPU (user + sys of the child) seconds over `runs` fresh processes."""
    walls, cpus = [], []
    for _ in range(runs):
        before()
        start_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, env=env, input=stdin, capture_output=True, text=True)
        walls.append(time.perf_counter() - start)
        end_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in ok:
            raise RuntimeError(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr}")
        cpus.append(end_cpu.ru_utime - start_cpu.ru_utime + end_cpu.ru_stime - start_cpu.ru_stime)
    return {
        "wall s": round(statistics.median(walls), 3),
        "cpu s": round(statistics.median(cpus), 3),
    }


def figures(root: Path, runs: int, workdir: Path) -> dict[str, dict[str, dict[str, float]]]:
    """First-run and repeat medians of each command on the vault at `root`."""
    cli = [sys.executable, "-m", "cardvault", "--vault", str(root)]
    env = {**os.environ, **GIT_ENV, "CARDVAULT_NOW": "2026-11-30T10:00"}
    export = workdir / f"{root.name}-export.json"
    subprocess.run([*cli, "export", str(export), "--force"], check=True, env=env)
    target = workdir / f"{root.name}-import-target"

    def fresh_target() -> None:
        shutil.rmtree(target, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "cardvault", "init", str(target)], check=True,
                       env=env, capture_output=True)  # fmt: skip

    commands: dict[str, tuple[list[str], dict[str, object]]] = {
        "list --json": ([*cli, "list", "--json"], {}),
        "stats --json": ([*cli, "stats", "--json"], {}),
        "graph --format json": ([*cli, "graph", "--format", "json"], {}),
        "check": ([*cli, "check"], {"ok": (0, 1)}),
        "context": ([*cli, "context"], {}),
        "forget (plan)": ([*cli, "forget", _first_slug(root)], {"stdin": "n\n", "ok": (0, 1)}),
        "export": ([*cli, "export", "-"], {}),
        "new": ([*cli, "new", "Benchmark card", "-c", "tools", "-t", "bench", "--body", "b"], {}),
        "log": ([*cli, "log", "Lesson: benchmarks write one commit each"], {}),
        "import": (
            # --redact: real notes hold example tokens the guard refuses (signed cookies, curl
            # auth); without it the whole import stops, by design
            [
                sys.executable,
                "-m",
                "cardvault",
                "--vault",
                str(target),
                "import",
                str(export),
                "--redact",
            ],
            {"before": fresh_target},
        ),
    }
    catalog = root / ".cardvault" / "catalog.sqlite"

    def cold() -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{catalog}{suffix}").unlink(missing_ok=True)

    out: dict[str, dict[str, dict[str, float]]] = {}
    for name, (command, options) in commands.items():
        setup = options.get("before")
        first_setup = (lambda s=setup: (cold(), s and s())) if name != "import" else setup
        first = median_run(command, runs, env, first_setup or cold, **_io(options))  # type: ignore[arg-type]
        subprocess.run([*cli, "list", "--json"], env=env, capture_output=True)  # warm the catalog
        repeat = median_run(command, runs, env, setup or (lambda: None), **_io(options))  # type: ignore[arg-type]
        out[name] = {"first": first, "repeat": repeat}
        print(f"{root.name:>14} {name:<20} first {first}  repeat {repeat}", file=sys.stderr)
    return out


def _first_slug(root: Path) -> str:
    """A card to plan forgetting (the plan of a typical forget: one card and what names it)."""
    return min(p.stem for p in (root / "memory" / "cards").glob("*.md"))


def _io(options: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in options.items() if k in ("stdin", "ok")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--til", action="store_true", help="also the til-jbranchaud notes")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cardvault-bench"))
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    report = {}
    for size in args.sizes:
        source = build_synthetic_vault(args.workdir / f"synth-{size}", size)
        root = git_vault(source, args.workdir / f"commands-{size}", logs=True)
        report[f"generated {size}"] = figures(root, args.runs, args.workdir)
    if args.til:
        source = til_vault(args.workdir / "til-source")
        root = git_vault(source, args.workdir / "commands-til", logs=False)
        report["til-jbranchaud 1871"] = figures(root, args.runs, args.workdir)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
