"""A review question in words: what each kind asks, what `accept` and `reject` do (as the exact
commands), and the evidence it was asked on as a sentence. `cardvault review` prints these and
`cardvault view` shows them; the queue file and `review --json` keep the raw evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cardvault.vault.decisions import ReviewItem

#: Shared words shown for a same-lesson question at most.
SHARED_SHOWN = 6


@dataclass(frozen=True)
class Kind:
    """What a kind of question asks, what each answer does, and what `accept` may add."""

    question: str
    accept: str
    reject: str
    options: str = ""  # added to the accept command, e.g. " --keep N"
    also: str = ""  # another way to answer, in words
    queue: str = ""  # " --global" for the global vault's queue


KINDS = {
    "same-lesson": Kind(
        "the same lesson?", "they become one card (with --only 1,2: just those members)",
        "kept apart for good", " [--only 1,2]",
    ),
    "duplicate": Kind(
        "duplicate cards?", "the two become one card", "kept apart for good", " [--only 1,2]"
    ),
    "contradiction": Kind(
        "which one holds?", "member N holds; the other moves to memory/archive/",
        "both stand", " --keep N",
    ),
    "split": Kind(
        "this did not fit in the merged card: a card of its own?",
        "it becomes a card of its own, linked both ways", "it is appended to the card anyway",
    ),
    "cross-project": Kind(
        "the same lesson in several projects: one global card?",
        "one global card and rule", "kept apart for good", " [--only 1,2]", queue=" --global",
    ),
    "stale": Kind(
        "is the card stale? the project no longer has what it names",
        "it is stale: it moves to memory/archive/", "it is still right: the mark goes", "",
        "or edit the card, then `cardvault verify`",
    ),
}  # fmt: skip
OTHER = Kind("a memory decision", "as `cardvault review` says", "as `cardvault review` says")


def kind_of(item: ReviewItem) -> Kind:
    return KINDS.get(item.kind, OTHER)


def answers(item: ReviewItem) -> tuple[tuple[str, str], ...]:
    """(command, what it does) for accepting and for rejecting `item`."""
    kind = kind_of(item)
    base = f"cardvault review{kind.queue}"
    return (
        (f"{base} accept {item.id}{kind.options}", kind.accept),
        (f"{base} reject {item.id}", kind.reject),
    )


def hint(item: ReviewItem) -> str:
    """The answers on one line, as `cardvault review` prints them."""
    parts = [f"{command}  ({meaning})" for command, meaning in answers(item)]
    return "   |   ".join(parts + ([kind_of(item).also] if kind_of(item).also else []))


def evidence(item: ReviewItem) -> str:
    """Why `item` was asked, as a sentence (no field names, no JSON)."""
    found = dict(item.evidence)
    said = _EVIDENCE.get(item.kind, _other)(found)
    return said or "asked by maintenance"


def _same_lesson(e: Mapping[str, Any]) -> str:
    pairs = [p for p in e.get("pairs") or [] if isinstance(p, dict)]
    shared = sorted({str(t) for p in pairs for t in p.get("shared_terms", [])})
    said = f"alike but not certain: the closest pair scores {e.get('score')}"
    if e.get("certain_at") is not None:
        said += f" (maintenance joins them alone from {e.get('certain_at')})"
    if shared:
        said += f"; they share the words {_listed(shared[:SHARED_SHOWN])}"
    return said


def _close(e: Mapping[str, Any]) -> str:
    """Duplicates and contradictions: how close in meaning, and where they differ."""
    parts = []
    if isinstance(e.get("cosine"), int | float):
        parts.append(f"{round(100 * float(e['cosine']))}% alike in meaning")
    for field, what in (("figures", "figures"), ("names", "names")):
        sides = e.get(field)
        if isinstance(sides, list) and len(sides) == 2:
            parts.append(f"they differ in {what}: {_listed(sides[0])} against {_listed(sides[1])}")
    sentences = e.get("sentences")
    if isinstance(sentences, list) and len(sentences) == 2:
        parts.append(f"member 1 says “{sentences[0]}”; member 2 says “{sentences[1]}”")
    return "; ".join(parts)


def _split(e: Mapping[str, Any]) -> str:
    said = (
        f"the merged card has {e.get('tokens')} tokens of its budget of {e.get('budget')}; "
        f"{e.get('overflow_tokens')} more did not fit"
    )
    merged = e.get("from")
    return said + (f" (merged from {_listed(merged)})" if isinstance(merged, list) else "")


def _stale(e: Mapping[str, Any]) -> str:
    reasons = e.get("reasons") or ()
    return f"marked stale since {e.get('since')}: " + "; ".join(str(r) for r in reasons)


def _cross(e: Mapping[str, Any]) -> str:
    return str(e["why"]) if isinstance(e.get("why"), str) else _other(e)


def _other(e: Mapping[str, Any]) -> str:
    """Any other evidence: its plain values in words, nested ones left to `review --json`."""
    return "; ".join(
        f"{str(k).replace('_', ' ')} {v}" for k, v in e.items() if isinstance(v, str | int | float)
    )


def _listed(values: Sequence[object]) -> str:
    return ", ".join(str(v) for v in values) if values else "nothing"


_EVIDENCE = {
    "same-lesson": _same_lesson,
    "duplicate": _close,
    "contradiction": _close,
    "split": _split,
    "stale": _stale,
    "cross-project": _cross,
}
