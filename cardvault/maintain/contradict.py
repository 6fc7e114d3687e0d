"""Contradictions between two cards, found lexically: the same action on the same object with
opposite polarity ("Always use `npm ci`" / "Never use `npm ci`", "enable X" / "disable X").

Each clause yields its polar claims (verb, object of up to three words, ±1); two texts conflict
when they claim one (verb, object) with opposite signs. Imports nothing heavy: `check` uses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cardvault.maintain.text import prose_sentences

_CLAUSE = re.compile(r";|\s[—–]\s|:\s")
_WORDS = re.compile(r"don't|[a-z0-9][a-z0-9._+/-]*")
_NEGATED = (
    (re.compile(r"\b(?:do|does|must|should|shall|can) ?not\b"), " don't "),
    (re.compile(r"\b(?:doesn't|mustn't|shouldn't|can't)\b"), " don't "),
    (re.compile(r"\bno longer\b"), " stop "),
)
NEGATIVE = ("never", "don't")
POSITIVE = ("always", "must", "should")
IMPERATIVES = {
    "use", "run", "pass", "set", "commit", "add", "keep", "prefer", "install", "call",
    "push", "merge", "deploy", "pin", "store", "put", "build", "send", "write", "enable",
    "mock", "squash", "rebase", "retry", "cache", "log", "expose", "track", "trust", "skip",
}  # fmt: skip
_VERB_FORMS = {"using": "use", "used": "use", "uses": "use", "running": "run", "runs": "run"}
_SKIP = {"the", "a", "an", "your", "our", "their", "its", "this", "that", "these", "those", "any"}
_STOP = {
    "it", "them", "for", "in", "on", "to", "with", "when", "if", "by", "from", "at", "of", "as",
    "and", "or", "but", "so", "unless", "until", "before", "after", "because", "there", "here",
    "instead", "only", "again", "ever", "be", "is", "are", "was", "yet", "anymore", "now", "not",
    "don't", "never", "always", "stop", "avoid",
}  # fmt: skip


@dataclass(frozen=True)
class Claim:
    """One polar statement: `polarity` +1 (do it) or -1 (don't), about `verb` `obj`."""

    verb: str
    obj: tuple[str, ...]
    polarity: int
    sentence: str


@dataclass(frozen=True)
class Contradiction:
    """Two claims about the same action with opposite polarity."""

    first: Claim
    second: Claim


def tokens(sentence: str) -> list[str]:
    """Lower-case word tokens; "do not", "must not", "doesn't" ... become "don't"."""
    flat = sentence.lower().replace("`", " ").replace("’", "'")
    for pattern, replacement in _NEGATED:
        flat = pattern.sub(replacement, flat)
    return [w.rstrip("._-/") or w for w in _WORDS.findall(flat)]


def claims(text: str) -> list[Claim]:
    """The polar claims of a card body or a lesson (code blocks are not read)."""
    found: list[Claim] = []
    for sentence in prose_sentences(text):
        flat = " ".join(sentence.split())
        for clause in _CLAUSE.split(sentence):
            found.extend(_clause_claims(tokens(clause), flat))
    return found


def _clause_claims(words: list[str], sentence: str) -> list[Claim]:
    found = []
    index = 0
    while index < len(words):
        start = _claim_at(words, index)
        if start is None:
            index += 1
            continue
        polarity, verb, obj_start = start
        obj = _object(words, obj_start)
        if obj:
            found.append(Claim(verb, obj, polarity, sentence))
        index = obj_start
    return found


def _claim_at(words: list[str], index: int) -> tuple[int, str, int] | None:
    """(polarity, verb, where the object starts) when a claim starts at `index`."""
    word = words[index]
    following = words[index + 1] if index + 1 < len(words) else ""
    if word in ("avoid", "stop") and following in ("using", "use"):
        return -1, "use", index + 2
    if word == "avoid":
        return -1, "use", index + 1
    if word in ("disable", "enable"):
        return (-1 if word == "disable" else 1), "enable", index + 1
    if word in NEGATIVE or word in POSITIVE:
        if not following or following in _STOP or following in _SKIP:
            return None
        polarity = 1 if word in POSITIVE else -1
        verb = _VERB_FORMS.get(following, following)
        if verb == "disable":  # "never disable X" = enable X
            return -polarity, "enable", index + 2
        return polarity, verb, index + 2
    if index == 0 and word in IMPERATIVES:
        return 1, word, index + 1
    return None


def _object(words: list[str], start: int) -> tuple[str, ...]:
    """Up to three words after the verb, articles and determiners left out."""
    obj: list[str] = []
    for word in words[start:]:
        if word in _SKIP:
            continue
        if word in _STOP or len(obj) == 3:
            break
        obj.append(word)
    return tuple(obj)


def _same_object(left: Claim, right: Claim) -> bool:
    """The same verb, and the same first word with the same second (when both have one), or
    two object words in common ("pin Docker base images" / "pin base images")."""
    if left.verb != right.verb:
        return False
    if left.obj[0] == right.obj[0]:
        return len(left.obj) == 1 or len(right.obj) == 1 or left.obj[1] == right.obj[1]
    return len(set(left.obj) & set(right.obj)) >= 2


def contradict(left_text: str, right_text: str) -> Contradiction | None:
    """The first pair of claims, one from each text, about the same action with opposite
    polarity, or None."""
    found = conflicting_claims([("left", claims(left_text)), ("right", claims(right_text))])
    return found[0][2] if found else None


def substitution(left_text: str, right_text: str) -> Contradiction | None:
    """Two texts that advise the same action on different things ("use Jest for the dashboard
    tests" / "use Vitest for the dashboard tests"): not a contradiction, but never proof of the
    same lesson either, however many words they share."""
    theirs: dict[tuple[str, int], list[Claim]] = {}
    for claim in claims(right_text):
        theirs.setdefault((claim.verb, claim.polarity), []).append(claim)
    for claim in claims(left_text):
        for other in theirs.get((claim.verb, claim.polarity), []):
            if claim.obj[0] != other.obj[0] and not set(claim.obj) & set(other.obj):
                return Contradiction(claim, other)
    return None


def conflicting_pairs(texts: list[tuple[str, str]]) -> list[tuple[str, str, Contradiction]]:
    """(name, other name, contradiction) for every pair of named texts that contradict."""
    return conflicting_claims([(name, claims(text)) for name, text in texts])


def conflicting_claims(
    named: list[tuple[str, list[Claim]]],
) -> list[tuple[str, str, Contradiction]]:
    """Like `conflicting_pairs`, over claims already worked out; joined on their verb, so the
    cost grows with the number of claims, not pairs."""
    by_verb: dict[str, list[tuple[int, Claim]]] = {}
    for index, (_, found) in enumerate(named):
        for claim in found:
            by_verb.setdefault(claim.verb, []).append((index, claim))
    pairs: dict[tuple[int, int], Contradiction] = {}
    for group in by_verb.values():
        for i, left in group:
            for j, right in group:
                if i < j and left.polarity != right.polarity and _same_object(left, right):
                    pairs.setdefault((i, j), Contradiction(left, right))
    return [(named[i][0], named[j][0], c) for (i, j), c in sorted(pairs.items())]
