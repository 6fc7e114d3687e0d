"""What a text adds to another: its blocks reduced to the sentences not already said.

No fact is ever dropped. A sentence is already said only when its normalised form is present,
or when every meaning word, figure and identifier of it is already in the present text AND the
model finds a close present sentence (`distill.threshold`) holding those figures and identifiers
itself, with the same negation, at least its conditions, and its words in the same order. A
sentence with a new word is kept: a repeated lesson costs a line, a dropped one costs the fact.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from cardvault.maintain.text import (
    Block,
    blocks,
    body_sentences,
    conditions,
    figures,
    identifiers,
    meaning_words,
    negations,
    normalise,
    prose_sentences,
    split_sentences,
    word_pairs,
)

if TYPE_CHECKING:
    import numpy as np

    from cardvault.maintain.similarity import Embeddings


def adds_detail(sentence: str, present: str) -> bool:
    """Whether `sentence` brings a word, figure or identifier `present` does not hold."""
    return bool(new_words(sentence, present)) or _adds_facts(sentence, present)


def new_words(sentence: str, present: str) -> set[str]:
    """The meaning words of `sentence` that `present` does not hold."""
    return meaning_words(sentence) - meaning_words(present)


def _adds_facts(sentence: str, present: str) -> bool:
    return bool(
        figures(sentence) - figures(present)
        or {f for f in identifiers(sentence) if not _holds(present, f)}
    )


def _holds(text: str, fact: str) -> bool:
    pattern = rf"(?<![\w.-]){re.escape(fact)}(?![\w-]|\.\d)"
    return re.search(pattern, text.lower().replace("`", " ")) is not None


def _says(sentence: str, match: str, facts: bool) -> bool:
    """Whether `match`, a sentence the model puts close to `sentence`, says it: the same
    negation, at least its conditions, its words in the same order and (`facts`) its figures and
    identifiers held in `match` itself ("Retry 5 times." is new to "Retry 3 times. Wait 5 s.")."""
    same_polarity = bool(negations(sentence)) == bool(negations(match))
    bound = not facts or not _adds_facts(sentence, match)
    ordered = word_pairs(sentence) <= word_pairs(match)
    return same_polarity and bound and ordered and conditions(sentence) <= conditions(match)


class _Known:
    def __init__(self, text: str, embeddings: Embeddings | None, threshold: float) -> None:
        import numpy as np

        self.norms = {normalise(s) for s in body_sentences(text)}
        self.text = text
        self.embeddings = embeddings
        self.threshold = threshold
        self.prose = prose_sentences(text)
        if embeddings is not None and self.prose:
            self.vectors: np.ndarray = embeddings.vectors(self.prose)
        else:
            self.vectors = np.zeros((0, embeddings.dim if embeddings else 1), dtype=np.float32)

    def says(self, sentence: str, vector: np.ndarray | None, facts: bool = True) -> bool:
        """Whether the present text says `sentence`; `facts=False`: perhaps with other figures
        or identifiers."""
        norm = normalise(sentence)
        if not norm or norm in self.norms:
            return True
        new = adds_detail(sentence, self.text) if facts else bool(new_words(sentence, self.text))
        if vector is None or len(self.vectors) == 0 or new:
            return False
        # any close sentence may be the one that says it: the closest may be a paraphrase in
        # another word order while a copy (a listed sighting: "2026-12-01: ...") says it
        scores = self.vectors @ vector
        close = (scores >= self.threshold).nonzero()[0]
        return any(_says(sentence, self.prose[int(n)], facts) for n in close)

    def add(self, sentence: str, vector: np.ndarray | None) -> None:
        import numpy as np

        self.norms.add(normalise(sentence))
        self.text = f"{self.text}\n{sentence}"
        if vector is not None:
            self.prose.append(sentence)
            self.vectors = (
                np.vstack([self.vectors, vector[None, :]]) if len(self.vectors) else vector[None, :]
            )


def already_said(
    existing: str,
    sentences: list[str],
    embeddings: Embeddings | None,
    threshold: float,
    facts: bool = True,
) -> list[bool]:
    """For each of `sentences`, whether `existing` already says it."""
    known = _Known(existing, embeddings, threshold)
    vectors = embeddings.vectors(sentences) if embeddings is not None and sentences else None
    return [
        known.says(s, None if vectors is None else vectors[n], facts)
        for n, s in enumerate(sentences)
    ]


def novel_blocks(
    existing: str, candidate: str, embeddings: Embeddings | None, threshold: float
) -> list[Block]:
    """The blocks of `candidate`, each cut down to what `existing` does not already say."""
    known = _Known(existing, embeddings, threshold)
    parts = blocks(candidate)
    vectors = _sentence_vectors(parts, embeddings)
    kept: list[Block] = []
    for block in parts:
        if block.kind in ("code", "heading"):
            if normalise(block.text) not in known.norms:
                known.add(block.text, None)
                kept.append(block)
            continue
        sentences = []
        for sentence in split_sentences(block.text):
            vector = vectors.get(sentence)
            if not known.says(sentence, vector):
                known.add(sentence, vector)
                sentences.append(sentence)
        if sentences:
            kept.append(Block(block.kind, block.prefix, " ".join(sentences)))
    return _drop_bare_headings(kept)


def _sentence_vectors(parts: list[Block], embeddings: Embeddings | None) -> dict[str, np.ndarray]:
    if embeddings is None:
        return {}
    sentences = list(
        dict.fromkeys(
            s for b in parts if b.kind in ("paragraph", "item") for s in split_sentences(b.text)
        )
    )
    if not sentences:
        return {}
    return dict(zip(sentences, embeddings.vectors(sentences), strict=True))


def _drop_bare_headings(kept: list[Block]) -> list[Block]:
    out: list[Block] = []
    for index, block in enumerate(kept):
        following = kept[index + 1] if index + 1 < len(kept) else None
        if block.kind == "heading" and (following is None or following.kind == "heading"):
            continue
        out.append(block)
    return out


def warm(embeddings: Embeddings | None, texts: list[str]) -> None:
    """Embed every sentence of `texts` in one batch (several times faster than many small)."""
    if embeddings is None:
        return
    sentences = dict.fromkeys(s for text in texts for s in prose_sentences(text))
    if sentences:
        embeddings.vectors(list(sentences))
