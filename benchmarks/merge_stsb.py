"""Merging duplicates, MRPC-style: STS-B dev sentence pairs made into cards, `maintain --only
merge` run on them, its merges scored (issue 22).

    python benchmarks/merge_stsb.py [--part calibration|held-out|all] [--genre news|all]
                                    [--model bge-small-en-v1.5] [--threshold 0.90]

`--model` sets the vault's `[search] model` (so maintain reads that model's vectors and its
constants, cardvault/maintain/calibration.py); `--threshold` tries another merge threshold for
it (calibrating: run it on the calibration half only).

STS-B dev (shared/data/stsb-dev, 1,500 human-scored pairs): a pair scored ≥ 4 is a duplicate
("the same content"), ≤ 2 is not; the 589 pairs in between are left out of the vault and of
every count (neither answer would be right for them). `--genre news` keeps the news pairs
(MSRpar, headlines: 244 of the 911) as in issue 22; `all` adds the captions and forum posts,
which reuse sentences across pairs ("A man is playing a guitar." is in eight of them). Pairs
are split once by a digest of their row number into a calibration half and a held-out half.
Each half becomes one fresh git vault
(`cardvault init`) holding both sentences of every pair as cards (topic and body the sentence,
category `lessons`, tag `news`, the first side created a day before the second, each marked
`distilled` as maintain marks its own cards: curated cards are never merged alone), so a card can
merge with its partner, with a card of another pair, or with nothing. Then the real service
runs (`run_maintenance(..., only=("merge",))`, the vault's ONNX model), and the merges are read
back from the cards (`merged_from`):

- merged pairs: every two cards that ended in one card;
- right: the two sides of a duplicate pair, or two cards of different pairs whose sentences are
  the same once normalised (their words and numbers, case and punctuation aside); wrong: the
  two sides of a different pair, or two other cards of different pairs (a chain, or a
  look-alike from elsewhere: counted wrong even when a person might call them the same);
- precision within pairs (MRPC-style: the labelled pairs only) = right / (right + wrong: a
  different pair); strict precision = all right / all merged pairs (a merge across two pairs has
  no label: counted wrong unless the sentences are the same); recall = right / duplicate pairs;
- the largest merged card (how many cards it took in) and the questions asked.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from itertools import combinations
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from data_path import shared_data  # noqa: E402
from vault_model import use_model  # noqa: E402

from cardvault import history  # noqa: E402
from cardvault.app.maintenance import run_maintenance  # noqa: E402
from cardvault.app.vaults import init_vault  # noqa: E402
from cardvault.maintain import calibration  # noqa: E402
from cardvault.maintain.run import RunOptions  # noqa: E402
from cardvault.vault.card import DISTILLED_KEY, body_mark  # noqa: E402
from cardvault.vault.config import DEFAULT_MODEL  # noqa: E402
from cardvault.vault.layout import open_vault_at  # noqa: E402
from cardvault.vault.read import read_card  # noqa: E402

STSB = shared_data() / "stsb-dev" / "sts-dev.csv"
SAME, DIFFERENT = 4.0, 2.0


NEWS = ("MSRpar", "headlines")


def load_pairs(path: Path = STSB, genre: str = "all") -> list[tuple[int, float, str, str]]:
    """(row, score, sentence 1, sentence 2) for every pair scored ≥ 4 or ≤ 2."""
    found = []
    for row, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        fields = line.split("\t")
        if len(fields) < 7 or (genre == "news" and fields[1] not in NEWS):
            continue
        score = float(fields[4])
        if score >= SAME or score <= DIFFERENT:
            found.append((row, score, fields[5].strip(), fields[6].strip()))
    return found


def split_of(row: int) -> str:
    """ "held-out" for half of the rows, fixed by a digest of the row number."""
    digest = int(hashlib.sha256(f"stsb-{row}".encode()).hexdigest()[:8], 16)
    return "held-out" if digest % 2 else "calibration"


def card_text(sentence: str, created: dt.date) -> str:
    """A card as `maintain` distills one (its `distilled` mark): only such cards merge alone."""
    topic = json.dumps(sentence[:120], ensure_ascii=False)
    return (
        f"---\ntopic: {topic}\ncategory: lessons\ntags: [news]\ncreated: {created}\n"
        f"updated: {created}\n{DISTILLED_KEY}: {body_mark(sentence)}\n---\n{sentence}\n"
    )


def build(root: Path, pairs: list[tuple[int, float, str, str]], model: str | None) -> None:
    """A fresh vault (of `model`, else the default model) with two cards per pair, committed."""
    init_vault(root)
    use_model(root, model)
    cards = root / "memory" / "cards"
    first = dt.date(2026, 1, 1)
    for row, _, left, right in pairs:
        (cards / f"p{row:04d}-a.md").write_text(card_text(left, first), encoding="utf-8")
        second = first + dt.timedelta(days=1)
        (cards / f"p{row:04d}-b.md").write_text(card_text(right, second), encoding="utf-8")
    history.commit(open_vault_at(root), "STS-B pairs as cards", None)


def score(root: Path, pairs: list[tuple[int, float, str, str]]) -> dict[str, object]:
    """Merged pairs, right and wrong, read back from the cards."""
    import re

    def normalise(text: str) -> str:
        return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())

    duplicate = {row for row, gold, _, _ in pairs if gold >= SAME}
    said = {f"p{row:04d}-{side}": normalise(text) for row, _, a, b in pairs
            for side, text in (("a", a), ("b", b))}  # fmt: skip
    clusters = []
    for path in sorted((root / "memory" / "cards").glob("*.md")):
        card = read_card(path)
        merged = card.meta.get("merged_from") or []
        if merged:
            clusters.append([path.stem, *merged])
    right = wrong_pair = cross = same_text = 0
    for cluster in clusters:
        for a, b in combinations(sorted(cluster), 2):
            if a[:5] != b[:5] and said[a] == said[b]:
                same_text += 1
            elif a[:5] != b[:5]:
                cross += 1
            elif int(a[1:5]) in duplicate:
                right += 1
            else:
                wrong_pair += 1
    merged = right + same_text + wrong_pair + cross
    return {
        "duplicate pairs": len(duplicate),
        "different pairs": len(pairs) - len(duplicate),
        "merged pairs": merged,
        "right": right,
        "right: the same sentence in two pairs": same_text,
        "wrong: a different pair": wrong_pair,
        "wrong: cards of two pairs": cross,
        "precision": round((right + same_text) / merged, 3) if merged else None,
        "precision within pairs": round(right / (right + wrong_pair), 3) if right else None,
        "recall": round(right / len(duplicate), 3),
        "largest merged card": max((len(c) for c in clusters), default=1),
    }


def run(part: str, genre: str, model: str | None = None) -> dict[str, object]:
    pairs = [p for p in load_pairs(genre=genre) if part == "all" or split_of(p[0]) == part]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "vault"
        build(root, pairs, model)
        vault = open_vault_at(root)
        start = time.perf_counter()
        result = run_maintenance(vault, RunOptions(dt.datetime(2026, 2, 1, 9), only=("merge",)))
        seconds = time.perf_counter() - start
        found = score(root, pairs)
        asked = Counter(
            json.loads(line)["kind"]
            for line in (root / "memory" / "review.jsonl").read_text().splitlines()
            if line.strip()
        ) if (root / "memory" / "review.jsonl").exists() else Counter()  # fmt: skip
        found["questions"] = dict(asked)
        found["seconds"] = round(seconds, 1)
        found["merge step"] = result.plan.counts().get("merge", 0)
        return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", action="append", choices=("calibration", "held-out", "all"))
    parser.add_argument("--genre", choices=("news", "all"), default="all")
    parser.add_argument("--model", help="the vault's [search] model (default: the default model)")
    parser.add_argument("--threshold", type=float, help="another merge threshold (calibrating)")
    args = parser.parse_args()
    if args.threshold is not None:
        key = args.model or DEFAULT_MODEL
        found = calibration.CONSTANTS[key]
        calibration.CONSTANTS[key] = replace(found, merge_threshold=args.threshold)
    for part in args.part or ["calibration", "held-out"]:
        found = run(part, args.genre, args.model)
        model = args.model or DEFAULT_MODEL
        merge_at = calibration.CONSTANTS.get(model, calibration.MINILM).merge_threshold
        print(model, merge_at, args.genre, part, json.dumps(found), flush=True)


if __name__ == "__main__":
    main()
