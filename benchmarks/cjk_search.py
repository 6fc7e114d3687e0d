"""Chinese questions on a real Chinese vault: found in the top 3, by keywords and hybrid.

    python benchmarks/cjk_search.py [--vault PATH]

Imports `real-vaults/obsidian-garden-zh` (shared data, benchmarks/data_path.py) into a fresh
temporary vault with `cardvault init` and `cardvault import` (or searches `--vault`, one made
so before), then asks ten questions written from the notes' own text, worded otherwise than
the titles, through the real CLI, and prints each question's top 3 in both modes and the
totals, for docs/benchmarks.md. The global vault and settings go to the temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from data_path import shared_data

#: (question, the slug of the card that answers it, as the import names it)
QUESTIONS = [
    ("难以集中精力和冲动行为的心理疾病", "adhd"),
    ("阿里云盘突破客户端限速", "alist"),
    ("怎么备份微信聊天记录和图片", "android"),
    ("不用空格分词的语言", "cjk"),
    ("把域名指向另一个域名的别名记录", "dns"),
    ("每天先吃掉最重要的青蛙", "fast"),
    ("笔记是存量市场没有增量", "flomo"),
    ("剪藏的文档用同步盘保存", "cubox"),
    ("被微信消息打断影响效率", "context"),
    ("地推人工成本和铺设密度", "2023"),
]
MODES = ("keyword", "hybrid")


def cardvault(*args: str) -> str:
    """One real CLI process (the cardvault its Python finds: PYTHONPATH first); its stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "cardvault", *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def imported(folder: Path) -> Path:
    """A new vault in `folder` holding the Chinese garden's notes."""
    root = folder / "zh"
    cardvault("init", str(root))
    cardvault(
        "--vault", str(root), "import", str(shared_data() / "real-vaults" / "obsidian-garden-zh")
    )
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, help="a vault the garden was imported into")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("CARDVAULT_HOME", str(Path(tmp) / "global"))
        os.environ.setdefault("CARDVAULT_CONFIG_DIR", str(Path(tmp) / "config"))
        os.environ["CARDVAULT_NO_AUTOSERVE"] = "1"
        root = args.vault or imported(Path(tmp))
        found = dict.fromkeys(MODES, 0)
        print("| question | card | " + " | ".join(f"{m} top 3" for m in MODES) + " |")
        print("| --- | --- | " + " | ".join("---" for _ in MODES) + " |")
        for question, slug in QUESTIONS:
            cells = []
            for mode in MODES:
                hits = json.loads(cardvault("--vault", str(root), "search", question,
                                            "--mode", mode, "--json", "-k", "3"))  # fmt: skip
                slugs = [hit["slug"] for hit in hits]
                found[mode] += slug in slugs
                cells.append(("**found** " if slug in slugs else "") + ", ".join(slugs))
            print(f"| {question} | {slug} | " + " | ".join(cells) + " |")
        print()
        print(", ".join(f"{mode}: {found[mode]}/{len(QUESTIONS)}" for mode in MODES))


if __name__ == "__main__":
    main()
