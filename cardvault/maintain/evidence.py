"""Is this the same lesson? Evidence from several signals, combined into one calibrated score.

A telling is a log entry's lesson lines (`signal`) and whole text (`whole`), or a card's
paragraph. The score of two tellings combines the cosines of their signals and of their wholes
and the rarity-weighted share of salient terms they share; its weights are a logistic regression
fitted by `benchmarks/lessons.py`, per model (maintain/calibration.py): from `certain` a pair is
the same lesson for maintenance to act on alone; from `review` it is worth asking a person.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cardvault.maintain.calibration import ModelConstants
from cardvault.maintain.contradict import Contradiction, conflicting_pairs
from cardvault.maintain.text import FUNCTION_WORDS, word_set

if TYPE_CHECKING:
    import numpy as np

    from cardvault.maintain.similarity import Embeddings

#: Advice against is a clause that starts with it ("Never use X", "Prevention: don't ..."), not
#: a "don't" in a side clause ("copy it first so you don't overwrite the original"). A pair where
#: only one side advises against is never certain: a missed contradiction looks just like that.
_AGAINST = re.compile(
    r"^\W*(?:(?:you|we|i|one|agents?|people|teams?)\s+)?(?:should\s+|must\s+|will\s+)?"
    r"(?:never|don'?t|do\s+not|must\s+not|mustn'?t|should\s+not|shouldn'?t|no\s+longer|avoid|"
    r"stop|not)\b",
    re.IGNORECASE,
)
_CLAUSE = re.compile(
    r"[.;:!?]\s+|\s[—–]\s|\s*\n\s*|,\s+(?:and\s+|but\s+)?(?=never\b|don'?t\b|do not\b|avoid\b)",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[a-z0-9][a-z0-9_.\-/]*[a-z0-9]|[a-z0-9]")
#: Words no term is made of: the function words meaning skips (text.py), and the words every
#: lesson uses whatever it is about.
COMMON_WORDS = FUNCTION_WORDS | word_set(
    "use used using uses every all any one must should never always now after before our we "
    "you your out off via per get got set lesson gotcha rule decision preference correction "
    "need needs"
)


@dataclass(frozen=True)
class Telling:
    """What the scorer reads of one telling."""

    key: str  # the entry's source ref, or the card's path
    signal: str  # the lesson lines
    whole: str  # title and body


def terms(text: str) -> frozenset[str]:
    """Salient terms: meaningful words of three letters or more, identifiers whole and in parts
    (`lock_timeout` gives lock_timeout, lock, timeout), crudely singular."""
    found: set[str] = set()
    for token in _TOKEN.findall(text.lower()):
        parts = [p for p in re.split(r"[_.\-/]", token) if p]
        for part in parts + ([token] if len(parts) > 1 else []):
            if len(part) < 3 or part in COMMON_WORDS or part.isdigit():
                continue
            if part.endswith("s") and len(part) > 4 and not part.endswith("ss"):
                part = part[:-1]
            found.add(part)
    return frozenset(found)


class Vocabulary:
    """How rare each term is in the vault: idf = log((N + 1) / (df + 1)) over N documents."""

    def __init__(self, documents: Iterable[str]) -> None:
        self._df: Counter[str] = Counter()
        self._total = 0
        for text in documents:
            self._df.update(terms(text))
            self._total += 1

    def idf(self, term: str) -> float:
        """The term's weight (an unseen term weighs like a rare one)."""
        return math.log((self._total + 1) / (self._df.get(term, 0) + 1))

    def salient(self, found: Iterable[str], limit: int = 5) -> list[str]:
        """The rarest of `found`, rarest first (ties by name)."""
        return sorted(found, key=lambda t: (-self.idf(t), t))[:limit]


def negated(text: str) -> bool:
    """Whether a clause of a lesson starts with advice against."""
    flat = text.replace("’", "'")
    return any(_AGAINST.match(clause) for clause in _CLAUSE.split(flat))


class Evidence:
    """Scores between tellings, block by block, with what each score rests on."""

    def __init__(
        self,
        tellings: Sequence[Telling],
        embeddings: Embeddings,
        vocabulary: Vocabulary,
        constants: ModelConstants,
    ) -> None:
        import numpy as np

        self.constants = constants
        self.tellings = list(tellings)
        self.vocabulary = vocabulary
        self._signal = embeddings.vectors([t.signal for t in tellings])
        self._whole = embeddings.vectors([t.whole for t in tellings])
        self._signal_terms = [terms(t.signal) for t in tellings]
        self._whole_terms = [terms(t.whole) for t in tellings]
        self.negated = np.array([negated(t.signal) for t in tellings], dtype=bool)

    def scores(self, left: Sequence[int], right: Sequence[int]) -> np.ndarray:
        """The score of every telling of `left` with every one of `right`."""
        total: Any = self.constants.intercept
        for weight, signal in zip(self.constants.weights, self.features(left, right), strict=True):
            total = total + weight * signal
        return total

    def features(self, left: Sequence[int], right: Sequence[int]) -> list[np.ndarray]:
        """The four signals for every pair, in the order of the weights."""
        a, b = list(left), list(right)
        return [
            self._signal[a] @ self._signal[b].T,
            self._whole[a] @ self._whole[b].T,
            self._overlap(self._signal_terms, a, b),
            self._overlap(self._whole_terms, a, b),
        ]

    def _overlap(self, sets: list[frozenset[str]], left: list[int], right: list[int]) -> np.ndarray:
        """Shared weight / the smaller side's weight, for every pair."""
        import numpy as np

        vocab = sorted(set().union(*(sets[i] for i in left + right)))
        index = {t: n for n, t in enumerate(vocab)}
        weights = np.array([self.vocabulary.idf(t) for t in vocab], dtype=np.float64)

        def present(rows: list[int]) -> np.ndarray:
            found = np.zeros((len(rows), len(vocab)), dtype=np.float64)
            for row, item in enumerate(rows):
                found[row, [index[t] for t in sets[item]]] = 1.0
            return found

        mine, theirs = present(left), present(right)
        shared = (mine * weights) @ theirs.T
        smaller = np.minimum((mine @ weights)[:, None], (theirs @ weights)[None, :])
        return np.divide(shared, smaller, out=np.zeros_like(shared), where=smaller > 0)

    def contradicting(self, rows: Sequence[int]) -> dict[tuple[int, int], Contradiction]:
        """Every contradicting pair among `rows`, as (smaller, larger)."""
        named = [(str(row), self.tellings[row].signal) for row in rows]
        pairs = [(int(left), int(right), claim) for left, right, claim in conflicting_pairs(named)]
        return {(min(i, j), max(i, j)): claim for i, j, claim in pairs}

    def detail(self, i: int, j: int) -> dict[str, object]:
        """What the score of (i, j) rests on, for a person reading the review queue."""
        shared = self._whole_terms[i] & self._whole_terms[j]
        return {
            "score": round(float(self.scores([i], [j])[0, 0]), 2),
            "cosine": round(float(self._signal[i] @ self._signal[j]), 3),
            "shared_terms": self.vocabulary.salient(shared),
        }
