"""What a text adds to another: its blocks reduced to the sentences not already said.

A sentence is already said when its normalised form is present, or when the model finds it
close to a present sentence and it brings (almost) no detail the present text lacks. Details
are the words of code spans, numbers, identifiers and acronyms ("facts"); "covered" is the
share of its meaningful words already present. Said, when its best cosine with a present
sentence is
- at least the threshold and every fact is present ("Cortex wants the token as cookie and
  header" adds nothing to a card that says so in other words, while "Cortex 3.1.9 changed the
  header" does);
- at least NEAR (a near copy) and at least half its facts are present (a card that says
  `docker image inspect --format '{{.Architecture}}'` needs no second inspect command);
- at least COVER_FLOOR with at least COVERED of its words and FACTS_KNOWN of its facts present
  (a restatement: "Pushed as is, such an image fails with `exec format error`..." after "An
  arm64 image crashes on start with `exec format error`...").
Used by distill (folding lessons into cards) and merge (combining card bodies).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardvault.maintain.text import (
    Block,
    blocks,
    body_sentences,
    content_words,
    facts,
    normalise,
    split_sentences,
    words,
)

#: Below this cosine a sentence is never taken as said, whatever words it shares.
COVER_FLOOR = 0.55
COVERED = 0.55
FACTS_KNOWN = 0.75
NEAR = 0.85

if TYPE_CHECKING:
    import numpy as np

    from cardvault.maintain.similarity import Embeddings


class _Known:
    """Sentences already present: their normalised forms, vectors and facts."""

    def __init__(self, text: str, embeddings: Embeddings | None, threshold: float) -> None:
        import numpy as np

        sentences = body_sentences(text)
        self.norms = {normalise(s) for s in sentences}
        self.words = words(text) | content_words(text)
        self.embeddings = embeddings
        self.threshold = threshold
        prose = [s for s in sentences if not s.startswith(("```", "~~~"))]
        if embeddings is not None and prose:
            self.vectors: np.ndarray = embeddings.vectors(prose)
        else:
            self.vectors = np.zeros((0, embeddings.dim if embeddings else 1), dtype=np.float32)

    def says(self, sentence: str, vector: np.ndarray | None) -> bool:
        norm = normalise(sentence)
        if not norm or norm in self.norms:
            return True
        if vector is None or len(self.vectors) == 0:
            return False
        best = float((self.vectors @ vector).max())
        details = facts(sentence)
        known = len(details & self.words) / len(details) if details else 1.0
        meaning = content_words(sentence)
        covered = len(meaning & self.words) / len(meaning) if meaning else 1.0
        if best >= self.threshold and known == 1.0:
            return True
        if best >= NEAR and known >= 0.5:
            return True
        return best >= COVER_FLOOR and covered >= COVERED and known >= FACTS_KNOWN

    def add(self, sentence: str, vector: np.ndarray | None) -> None:
        import numpy as np

        self.norms.add(normalise(sentence))
        self.words |= words(sentence) | content_words(sentence)
        if vector is not None:
            self.vectors = (
                np.vstack([self.vectors, vector[None, :]]) if len(self.vectors) else vector[None, :]
            )


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
    """Headings with nothing kept under them are dropped."""
    out: list[Block] = []
    for index, block in enumerate(kept):
        following = kept[index + 1] if index + 1 < len(kept) else None
        if block.kind == "heading" and (following is None or following.kind == "heading"):
            continue
        out.append(block)
    return out


def warm(embeddings: Embeddings | None, texts: list[str]) -> None:
    """Embed every sentence `novel_blocks` may ask about in `texts`, in one batch (the model is
    several times faster on one large batch than on many small ones)."""
    if embeddings is None:
        return
    sentences: dict[str, None] = {}
    for text in texts:
        for block in blocks(text):
            if block.kind in ("paragraph", "item"):
                sentences.update(dict.fromkeys(split_sentences(block.text)))
        for sentence in body_sentences(text):
            if not sentence.startswith(("```", "~~~")):
                sentences.setdefault(sentence, None)
    if sentences:
        embeddings.vectors(list(sentences))
