"""Chinese and Korean questions on real vaults: found in the top 3, by keywords and hybrid.

    python benchmarks/cjk_search.py [--set zh|ko] [--vault PATH]

Imports a set of `real-vaults/` (shared data, benchmarks/data_path.py) into a fresh temporary
vault with `cardvault init` and `cardvault import` (or searches `--vault`, one made so before),
then asks questions written from the notes' own text, worded otherwise than the titles,
through the real CLI, and prints each question's top 3 in both modes and the totals, for
docs/benchmarks.md. The global vault and settings go to the temporary folder.
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

#: Per set: its folder in real-vaults/, and (question, the slug of the card that answers it,
#: as the import names it).
ZH = [
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
KO = [
    ("코드 서명 인증서를 사지 않고 해시를 공개", "2026-05-21-signing-decision"),
    ("탐색기를 누르면 배지가 깜박이며 없어지는 문제", "2026-06-02-explorer-hide-flipflop-debounce"),
    ("버전 문자열을 여러 곳에서 손으로 맞추던 문제", "2026-05-21-version-singlesource"),
    ("이전 인스턴스가 비정상 종료했을 때 뮤텍스 예외", "2026-05-21-mutex-abandoned-handling"),
    ("커서 헤일로가 화면에 나타나지 않음", "2026-05-27-cursor-indicator"),
]
SETS = {"zh": ("obsidian-garden-zh", ZH), "ko": ("claude-memory-koenvue-ko", KO)}
MODES = ("keyword", "hybrid")


def cardvault(*args: str) -> str:
    """One real CLI process (the cardvault its Python finds: PYTHONPATH first); its stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "cardvault", *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def imported(folder: Path, name: str) -> Path:
    """A new vault in `folder` holding the notes of the real-vaults set `name`."""
    root = folder / "vault"
    cardvault("init", str(root))
    cardvault("--vault", str(root), "import", str(shared_data() / "real-vaults" / name))
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), default="zh", help="which vault")
    parser.add_argument("--vault", type=Path, help="a vault the set was imported into")
    args = parser.parse_args()
    name, questions = SETS[args.set]
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("CARDVAULT_HOME", str(Path(tmp) / "global"))
        os.environ.setdefault("CARDVAULT_CONFIG_DIR", str(Path(tmp) / "config"))
        os.environ["CARDVAULT_NO_AUTOSERVE"] = "1"
        root = args.vault or imported(Path(tmp), name)
        found = dict.fromkeys(MODES, 0)
        print("| question | card | " + " | ".join(f"{m} top 3" for m in MODES) + " |")
        print("| --- | --- | " + " | ".join("---" for _ in MODES) + " |")
        for question, slug in questions:
            cells = []
            for mode in MODES:
                hits = json.loads(cardvault("--vault", str(root), "search", question,
                                            "--mode", mode, "--json", "-k", "3"))  # fmt: skip
                slugs = [hit["slug"] for hit in hits]
                found[mode] += slug in slugs
                cells.append(("**found** " if slug in slugs else "") + ", ".join(slugs))
            print(f"| {question} | {slug} | " + " | ".join(cells) + " |")
        print()
        print(", ".join(f"{mode}: {found[mode]}/{len(questions)}" for mode in MODES))


if __name__ == "__main__":
    main()
