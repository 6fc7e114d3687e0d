"""Where two texts that tell the same thing disagree on a figure or a name.

"killed 12 rebels" / "killed 16 rebels": joining them without a person would keep both as if
they agreed. A disagreement is two sentences, one from each text, from `align_figures` similar,
each holding a figure the other text never mentions in that slot (a word around it in common),
or, from `align_names` (technical cards name one thing many ways), each holding a name the
other text never mentions.
"""

from __future__ import annotations

import re
from typing import Any

from cardvault.maintain.state import VaultState
from cardvault.maintain.text import figure_contexts, names, prose_sentences


def disagreement(state: VaultState, left: str, right: str) -> dict[str, Any] | None:
    """The first disagreement between two texts (the figures or names each side holds alone,
    and the two sentences), or None."""
    embeddings = state.require_embeddings()
    mine, theirs = prose_sentences(left), prose_sentences(right)
    if not mine or not theirs:
        return None
    scores = embeddings.vectors(mine) @ embeddings.vectors(theirs).T
    common = state.lower_case_words
    said = (_mentioned(left), _mentioned(right))
    limits = state.constants
    for a, b in zip(*(scores >= limits.align_figures).nonzero(), strict=True):
        first, second = mine[int(a)], theirs[int(b)]
        mine_at, theirs_at = figure_contexts(first), figure_contexts(second)
        alone = {x for x in mine_at if not _says(said[1]["figures"], x, mine_at[x])}
        other = {y for y in theirs_at if not _says(said[0]["figures"], y, theirs_at[y])}
        slot = [(x, y) for x in alone for y in other if mine_at[x] & theirs_at[y]]
        if slot:
            ours, others = sorted({x for x, _ in slot}), sorted({y for _, y in slot})
            return {"figures": [ours, others], "sentences": [first, second]}
        if scores[a, b] >= limits.align_names:
            alone = {x for x in names(first, common) if not _mentions(said[1]["names"], x)}
            other = {x for x in names(second, common) if not _mentions(said[0]["names"], x)}
            if alone and other:
                return {"names": [sorted(alone), sorted(other)], "sentences": [first, second]}
    return None


def _mentioned(body: str) -> dict[str, Any]:
    words = set(re.findall(r"[a-z][a-z'’-]*", body.lower()))
    return {"figures": figure_contexts(body), "names": words}


def _says(found: dict[str, set[str]], figure: str, near: set[str]) -> bool:
    """Whether a text holds `figure` in the same slot: "Wait 5 seconds" does not say the 5 of
    "Retry 5 times"."""
    return bool(found.get(figure, set()) & near)


def _mentions(found: set[str], item: str) -> bool:
    """Whether a name is among the words, or begins one or is begun by one ("Mac", "MacBook")."""
    if item in found:
        return True
    return any(
        min(len(item), len(w)) >= 3 and (w.startswith(item) or item.startswith(w)) for w in found
    )
