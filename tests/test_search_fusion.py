"""The hybrid fusion's promises with each model's shipped constants, on rankings made by hand: a
side that is unsure of every document leaves the other side's order as it is; a document both
sides vouch for rises above one only one side does; single modes keep their side's order;
scores are probabilities; where a model's fusion reads ranks and the semantic spread, a side's
rank counts only where it vouches, and over flat cosines the words decide."""

from __future__ import annotations

import pytest

from cardvault.search.fusion import (
    CALIBRATIONS,
    SPREAD_SEEN,
    Evidence,
    hybrid,
    keyword_scored,
    semantic_scored,
)

MODELS = sorted(CALIBRATIONS)
#: Three query words of IDF 2 each: a BM25 score of 6 is a share of 1 (every word matched).
EVIDENCE = Evidence.of("three query words", {"three": 2.0, "query": 2.0, "words": 2.0})


def cosines(best: float) -> list[tuple[int, float]]:
    """A confident semantic list: documents 1..20, each a little below the one before."""
    return [(doc, best - 0.004 * (doc - 1)) for doc in range(1, 21)]


def confident_cosine(model: str) -> float:
    """A cosine at which the model's semantic side is clearly strong (probability 0.3 or more,
    well above the weak floor)."""
    calibration = CALIBRATIONS[model]
    for step in range(100):
        cosine = 0.5 + step * 0.005
        if calibration.semantic_score(cosine, cosine) >= 0.3:
            return cosine
    pytest.fail(f"{model}: no cosine makes the semantic side sure")


@pytest.mark.parametrize("model", MODELS)
def test_an_unsure_keyword_side_leaves_the_semantic_order(model: str) -> None:
    semantic = cosines(confident_cosine(model))
    # The keyword side matches one common word in other documents, all alike (share 0.1).
    keyword = [(doc, 0.6 - 0.01 * n) for n, doc in enumerate(range(101, 121))]
    fused = hybrid(keyword, semantic, EVIDENCE, CALIBRATIONS[model])
    assert [doc for doc, _ in fused.hits[:5]] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("model", MODELS)
def test_an_unsure_semantic_side_leaves_the_keyword_order(model: str) -> None:
    # An exact command: BM25 finds every word in documents 101.. (share 1.0 and falling).
    keyword = [(doc, 6.0 - 0.3 * n) for n, doc in enumerate(range(101, 121))]
    # Meaning finds nothing that stands out: low, flat cosines over other documents.
    semantic = [(doc, 0.30 - 0.001 * n) for n, doc in enumerate(range(1, 21))]
    fused = hybrid(keyword, semantic, EVIDENCE, CALIBRATIONS[model])
    assert [doc for doc, _ in fused.hits[:5]] == [101, 102, 103, 104, 105]


@pytest.mark.parametrize("model", MODELS)
def test_a_document_both_sides_vouch_for_comes_first(model: str) -> None:
    best = confident_cosine(model)
    semantic = [(1, best), (2, best - 0.001)] + [(d, best - 0.1) for d in range(3, 20)]
    keyword = [(2, 4.0), (1, 1.0)] + [(d, 0.5) for d in range(30, 40)]
    fused = hybrid(keyword, semantic, EVIDENCE, CALIBRATIONS[model])
    assert fused.hits[0][0] == 2  # second by meaning by a hair, first by its words


@pytest.mark.parametrize("model", MODELS)
def test_single_modes_keep_their_order_and_scores_are_probabilities(model: str) -> None:
    calibration = CALIBRATIONS[model]
    semantic = cosines(confident_cosine(model))
    keyword = [(doc, 6.0 - 0.25 * n) for n, doc in enumerate(range(101, 121))]
    for scored, ranking in (
        (semantic_scored(semantic, calibration), semantic),
        (keyword_scored(keyword, EVIDENCE, calibration), keyword),
    ):
        assert [doc for doc, _ in scored] == [doc for doc, _ in ranking]
        values = [p for _, p in scored]
        assert values == sorted(values, reverse=True)
        assert all(0.0 <= p <= 1.0 for p in values)
    fused = hybrid(keyword, semantic, EVIDENCE, calibration)
    assert all(0.0 <= p <= 1.0 for _, p in fused.hits)


ADAPTIVE = [model for model in MODELS if any(CALIBRATIONS[model].spread)]


@pytest.mark.parametrize("model", ADAPTIVE)
def test_where_meanings_best_barely_stands_out_the_words_decide(model: str) -> None:
    """The semantic spread (best cosine minus the 10th): over flat cosines the keyword side's
    first hit, which it vouches for, comes first; where meaning's first stands out, it stays."""
    calibration = CALIBRATIONS[model]
    keyword = [(101, 3.0)] + [(doc, 1.5 - 0.01 * n) for n, doc in enumerate(range(102, 121))]
    assert not calibration.keyword_score(0.5, 0.5) < calibration.weak_below  # 101 is vouched
    leaning = []
    for step, first in ((0.002, 101), (0.025, 1)):
        semantic = [(doc, 0.55 - step * (doc - 1)) for doc in range(1, 31)]
        fused = hybrid(keyword, semantic, EVIDENCE, calibration)
        assert fused.hits[0][0] == first, (step, fused.hits[:3])
        leaning.append(fused.weights.keyword / fused.weights.semantic)
    assert leaning[0] > leaning[1]  # the weights it reports say so too


@pytest.mark.parametrize("model", [m for m in MODELS if any(CALIBRATIONS[m].ranks)])
def test_a_side_that_does_not_vouch_adds_no_rank(model: str) -> None:
    """A side's rank counts only where its own score clears the floor: a keyword first hit
    too weak to vouch for scores as if the keyword side had not ranked it at all."""
    calibration = CALIBRATIONS[model]
    semantic = cosines(confident_cosine(model))
    weak_first = [(101, 0.3)]  # share 0.05: below the floor on its own
    assert calibration.keyword_score(0.05, 0.05) < calibration.weak_below
    alone = dict(hybrid(weak_first, semantic, EVIDENCE, calibration).hits)
    deeper = dict(hybrid([(102, 0.3), *weak_first], semantic, EVIDENCE, calibration).hits)
    assert alone[101] == pytest.approx(deeper[101])
    assert 101 in hybrid(weak_first, semantic, EVIDENCE, calibration).weak


@pytest.mark.parametrize("model", ADAPTIVE)
def test_a_short_list_spread_wider_than_the_fit_saw_is_taken_as_its_widest(model: str) -> None:
    """A vault of a few cards: the "10th" cosine is its last, far below the best; the fusion
    reads no spread beyond the widest of its benchmark queries, so both sides still count."""
    semantic = [(1, 0.7), (2, 0.2), (3, -0.1)]  # spread 0.8
    keyword = [(2, 4.0), (1, 3.0)]
    fused = hybrid(keyword, semantic, EVIDENCE, CALIBRATIONS[model])
    assert fused.weights.keyword > 0 and fused.weights.semantic > 0
    widest = hybrid(keyword, [(1, 0.7), (2, 0.2), (3, 0.7 - SPREAD_SEEN)], EVIDENCE,
                    CALIBRATIONS[model])  # fmt: skip
    assert fused.weights == widest.weights
