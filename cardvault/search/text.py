"""The keyword side's text: the index's terms, safe FTS5 queries, snippets with highlights.

Words and stems come from `cardvault.words` for the indexed text and the query alike: the index
holds each word's stem (FTS5 only splits at spaces) and every CJK run as its overlapping bigrams
(SQLite would keep a run as one token), and a query asks for the same, so "boxes" finds "box"
and highlighting marks exactly the words whose stem was asked for. User queries never reach
FTS5 syntax: only word tokens are kept, each quoted, so `--no-verify` or `AND (` are plain words.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from cardvault.words import bigrams, index_terms, is_cjk, stem, stem_spans, terms, words

MAX_QUERY_TERMS = 64
#: Lucene's English stop words: dropped from keyword queries unless nothing else is left.
_STOP_LIST = (
    "a an and are as at be but by for if in into is it no not of on or "
    "such that the their then there these they this to was will with"
)
STOP_WORDS = frozenset(_STOP_LIST.split())
SNIPPET_CHARS = 180


def index_texts(*texts: str) -> tuple[str, ...]:
    """Each of `texts` as the keyword index holds it: its terms (`words.index_terms`),
    space-separated (a document's topic, tags and body in one call)."""
    return tuple(map(" ".join, index_terms(*texts)))


def query_terms(query: str) -> list[str]:
    """The distinct words of a query, in order, split as the index splits text (a CJK run as
    its bigrams: `cardvault.words.terms`)."""
    return list(dict.fromkeys(terms(query)))[:MAX_QUERY_TERMS]


def fts_term(stemmed: str) -> str:
    """One query word's stem as an FTS5 expression: quoted (a lone CJK character, its own
    stem: any bigram that starts with it)."""
    if len(stemmed) == 1 and not stemmed.isascii() and is_cjk(stemmed):
        return f'"{stemmed}"*'
    return f'"{stemmed}"'


@dataclass(frozen=True)
class KeywordQuery:
    """A query as the keyword side reads it, once for every vault: its text, the words it looks
    for (stop words aside unless nothing else is left) with their FTS5 expressions, and what a
    snippet highlights (`marked` stems, `cjk` runs)."""

    text: str
    terms: tuple[str, ...]
    expressions: tuple[str, ...]
    marked: frozenset[str]
    cjk: tuple[str, ...]

    @classmethod
    def of(cls, query: str | KeywordQuery) -> KeywordQuery:
        """`query` read (a query already read is returned as it is)."""
        if isinstance(query, KeywordQuery):
            return query
        every = query_terms(query)
        stems = {term: stem(term) for term in every}
        first: dict[str, str] = {}  # FTS5 expression -> the first word asking for it
        for term in [t for t in every if t not in STOP_WORDS] or every:
            first.setdefault(fts_term(stems[term]), term)
        latin = query.isascii()  # no CJK run: no word to tell apart
        return cls(
            query,
            tuple(first.values()),
            tuple(first),
            frozenset(
                stems[t]
                for t in every
                if len(t) > 1 and t not in STOP_WORDS and (latin or not is_cjk(t))
            ),
            () if latin else tuple(dict.fromkeys(w for w in words(query) if is_cjk(w))),
        )

    @property
    def match_any(self) -> str | None:
        """An FTS5 MATCH expression: any of the words (OR, so BM25 ranks partial matches too);
        None if no words."""
        return " OR ".join(self.expressions) if self.expressions else None

    @property
    def says_something(self) -> bool:
        """Whether the query holds a word other than a stop word (stop words alone, held by
        nearly every text, are no evidence)."""
        return any(term not in STOP_WORDS for term in self.terms)

    @functools.cached_property
    def ascii_candidates(self) -> re.Pattern[str]:
        """What finds, in an ASCII text, the words that may have one of the `marked` stems
        (see `_candidates`), made once per query."""
        marked = self.marked
        starts = {s[:2] for s in marked} | {s[0] + "y" for s in marked if s[1:2] == "i"}
        alternatives = "|".join(re.escape(start) for start in sorted(starts))
        return re.compile(rf"(?<![^\W_])(?:{alternatives})[^\W_]*", re.IGNORECASE)

    @property
    def match_all(self) -> str | None:
        """An FTS5 MATCH expression requiring every one of the words (AND); None if none."""
        return " AND ".join(self.expressions) if self.expressions else None


@dataclass(frozen=True)
class Snippet:
    """A short excerpt of a document and the query terms it contains (for highlighting)."""

    text: str
    matches: tuple[str, ...]


def make_snippet(body: str, query: str | KeywordQuery, width: int = SNIPPET_CHARS) -> Snippet:
    """The `width`-character window of `body` holding the most query words, on one line; a
    word is marked when its stem is one the query asked for (and a CJK run where it occurs)."""
    return make_snippets([body], KeywordQuery.of(query), width)[0]


def make_snippets(
    bodies: Sequence[str], query: KeywordQuery, width: int = SNIPPET_CHARS
) -> list[Snippet]:
    """`make_snippet` of each of `bodies`: a search's hits, the query read once for all."""
    made = []
    for body in bodies:
        flat = " ".join(body.split())
        if not flat.isascii():
            flat = unicodedata.normalize("NFC", flat)  # as `words` reads it: the marks' offsets
        found = _marks(flat, query)
        if len(flat) > width:
            start = _best_start(found, width) if found else 0
            start = max(0, min(start, len(flat) - width))
            if start > 0:
                space = flat.find(" ", start, start + 20)
                start = space + 1 if space != -1 else start
            window = flat[start : start + width].rstrip()
            dots = "…" if start + width < len(flat) else ""
            flat, end = ("…" if start > 0 else "") + window + dots, start + len(window)
            found = [m for m in found if m.at >= start and m.end <= end]
        made.append(Snippet(flat, tuple(dict.fromkeys(mark.written for mark in found))))
    return made


@dataclass(frozen=True)
class _Mark:
    """A query word in the text: where, as written, and which query word (its stem, or the
    CJK run or bigram)."""

    at: int
    end: int
    written: str
    key: str


def _marks(flat: str, wanted: KeywordQuery) -> list[_Mark]:
    found: list[_Mark] = []
    if wanted.marked:
        for at, end, key in _candidates(flat, wanted):
            if key in wanted.marked:  # (a CJK run is its own stem, and never in `marked`)
                found.append(_Mark(at, end, flat[at:end], key))
    if wanted.cjk:
        grams = {g for t in wanted.cjk for g in (t, *bigrams(t))}
        pattern = re.compile("|".join(re.escape(g) for g in sorted(grams, key=len, reverse=True)))
        found.extend(
            _Mark(m.start(), m.end(), m.group(), m.group()) for m in pattern.finditer(flat)
        )
        found.sort(key=lambda mark: mark.at)
    return found


def _candidates(flat: str, wanted: KeywordQuery) -> Iterator[tuple[int, int, str]]:
    """(start, end, stem) of the words of `flat` that may have one of the `marked` stems:
    every word where `flat` is not ASCII, else only those starting as a marked stem starts (a
    Snowball stem keeps its word's first two letters, but "dying" -> "die": "dy" is tried too)."""
    if not flat.isascii():
        yield from stem_spans(flat)
        return
    for match in wanted.ascii_candidates.finditer(flat):
        yield match.start(), match.end(), stem(match.group().lower())


def _best_start(marks: list[_Mark], width: int) -> int:
    """Start of the window (a little before a mark) that covers the most of the query's words,
    then the most marks."""
    from collections import Counter

    best, best_count = marks[0].at, (0, 0)
    inside: Counter[str] = Counter()  # the keys of marks[index:end], the window from `first`
    end = 0
    for index, first in enumerate(marks):  # one pass: a long card holds 100,000s of marks
        end = max(end, index)
        while end < len(marks) and marks[end].at < first.at + width - 20:
            inside[marks[end].key] += 1
            end += 1
        count = (len(inside), end - index)
        if count > best_count:
            best, best_count = first.at, count
        if end > index:
            inside[first.key] -= 1
            if not inside[first.key]:
                del inside[first.key]
    return max(0, best - 30)
