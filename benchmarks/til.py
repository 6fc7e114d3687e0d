"""Build (once) a cardvault vault from the til-jbranchaud notes, and load the hand-written
evaluation queries over it (benchmarks/eval/til-jbranchaud.tsv).

Each note `notes/<category>/<slug>.md` becomes a card `memory/cards/<category>/<slug>.md`:
topic = the note's `# ` title, category `tools`, tag = the note's folder, body = the note
without its title line. The vault is built under a work folder and reused while it exists.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

from data_path import shared_data

DATA = shared_data() / "til-jbranchaud"
EVAL = Path(__file__).resolve().parent / "eval" / "til-jbranchaud.tsv"
#: The second author's notes (longer, less atomic) and their held-out queries.
SIMONW = shared_data() / "til-simonw"
SIMONW_EVAL = Path(__file__).resolve().parent / "eval" / "til-simonw.tsv"


def build_vault(root: Path, data: Path = DATA) -> int:
    """Write one card per note under `root` (skipped when already there); return the count."""
    cards = root / "memory" / "cards"
    marker = root / ".built"
    if marker.exists():
        return sum(1 for _ in cards.rglob("*.md"))
    count = 0
    (root / "cardvault.toml").parent.mkdir(parents=True, exist_ok=True)
    (root / "cardvault.toml").write_text("", encoding="utf-8")
    for note in sorted((data / "notes").glob("*/*.md")):
        title, body = split_title(note.read_text(encoding="utf-8"))
        tag = note.parent.name.lower()
        target = cards / note.parent.name / note.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(
            "---\n"
            f"topic: {json.dumps(title or note.stem, ensure_ascii=False)}\n"
            f"category: tools\ntags: [{tag}]\n"
            "created: 2026-01-01\nupdated: 2026-01-01\n---\n"
            f"{body.strip()}\n",
            encoding="utf-8",
        )
        count += 1
    marker.write_text("ok\n", encoding="utf-8")
    return count


def split_title(text: str) -> tuple[str, str]:
    """The note's first `# ` heading and the rest of its text."""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if line.startswith("# "):
            return line[2:].strip(), "\n".join(lines[number + 1 :])
    return "", text


@dataclass(frozen=True)
class EvalQuery:
    """One hand-written query: its id, kind (paraphrase or exact), split, text and target."""

    qid: str
    kind: str
    split: str  # "dev" (used while designing the fusion) or "test" (reported only)
    text: str
    target: str  # the card's path in the vault, memory/cards/<category>/<slug>.md


def load_eval(path: Path = EVAL) -> list[EvalQuery]:
    """The evaluation queries (tab-separated: id, kind, split, target note, query)."""
    queries = []
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.reader((line for line in handle if not line.startswith("#")), delimiter="\t")
        for row in rows:
            if not row:
                continue
            qid, kind, split, note, text = row
            queries.append(EvalQuery(qid, kind, split, text, f"memory/cards/{note}"))
    return queries
