"""Text preparation for the keyword index: CJK segmentation, safe FTS5 queries, snippets.

SQLite's unicode61 tokenizer keeps a run of Chinese or Japanese characters as one token, so
"数据库连接" could only be found by typing the whole run. Both indexed text and queries therefore
go through `segment`, which rewrites every CJK run as its overlapping bigrams ("数据 据库 库连
连接"); a query run becomes the phrase of its bigrams, which matches the same run anywhere.

User queries never reach FTS5 syntax: `fts_query` keeps only word tokens and quotes each one,
so `--no-verify`, `ImportError: cannot import name 'jwt'` or `AND (` are plain words to search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
CJK_RUN = re.compile(f"[{_CJK}]+")
# A word as unicode61 sees it (letters/digits), or one CJK run.
_TERM = re.compile(rf"[{_CJK}]+|[^\W_]+", re.UNICODE)
MAX_QUERY_TERMS = 64
#: Lucene's English stop words: dropped from keyword queries unless nothing else is left.
_STOP_LIST = (
    "a an and are as at be but by for if in into is it no not of on or "
    "such that the their then there these they this to was will with"
)
STOP_WORDS = frozenset(_STOP_LIST.split())
SNIPPET_CHARS = 180


def bigrams(run: str) -> list[str]:
    """Overlapping pairs of a CJK run ("数据库" -> ["数据", "据库"]); a lone char stays."""
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def segment(text: str) -> str:
    """`text` with each CJK run replaced by its space-separated bigrams (for indexing)."""
    return CJK_RUN.sub(lambda m: f" {' '.join(bigrams(m.group()))} ", text)


def query_terms(query: str) -> list[str]:
    """The distinct search terms of a query, lower-cased, in order (CJK runs kept whole)."""
    seen: dict[str, None] = {}
    for match in _TERM.finditer(query):
        seen.setdefault(match.group().lower(), None)
    return list(seen)[:MAX_QUERY_TERMS]


def coverage_terms(query: str) -> list[str]:
    """The words a keyword search looks for: the query's terms without stop words (unless
    nothing else is left)."""
    terms = query_terms(query)
    return [t for t in terms if t not in STOP_WORDS] or terms


def fts_term(term: str) -> str:
    """One query term as an FTS5 expression (a CJK run as the phrase of its bigrams)."""
    if CJK_RUN.fullmatch(term):
        grams = bigrams(term)
        if len(grams) == 1 and len(term) == 1:
            return f'"{term}"*'  # a lone ideograph: any bigram starting with it
        return '"' + " ".join(grams) + '"'
    return f'"{term}"'


def fts_query(query: str) -> str | None:
    """An FTS5 MATCH expression: any of the query's terms (OR), each quoted; None if no terms.

    OR (not AND) gives BM25 ranking over partial matches, as classic BM25 engines do; a card
    holding every word of an error message still ranks first.
    """
    parts = [fts_term(term) for term in coverage_terms(query)]
    return " OR ".join(parts) if parts else None


def fts_all_terms(query: str) -> str | None:
    """An FTS5 MATCH expression requiring every one of the query's terms (AND); None if none."""
    parts = [fts_term(term) for term in coverage_terms(query)]
    return " AND ".join(parts) if parts else None


@dataclass(frozen=True)
class Snippet:
    """A short excerpt of a document and the query terms it contains (for highlighting)."""

    text: str
    matches: tuple[str, ...]


def make_snippet(body: str, query: str, width: int = SNIPPET_CHARS) -> Snippet:
    """The `width`-character window of `body` holding the most query terms, on one line."""
    flat = " ".join(body.split())
    terms = [
        t
        for t in query_terms(query)
        if (len(t) > 1 and t.lower() not in STOP_WORDS) or CJK_RUN.fullmatch(t)
    ]
    pattern = _terms_pattern(terms)
    hits = [m.start() for m in pattern.finditer(flat)] if pattern else []
    if len(flat) <= width:
        return Snippet(flat, _found(flat, pattern))
    start = _best_start(hits, width) if hits else 0
    start = max(0, min(start, len(flat) - width))
    if start > 0:
        space = flat.find(" ", start, start + 20)
        start = space + 1 if space != -1 else start
    window = flat[start : start + width].rstrip()
    text = ("…" if start > 0 else "") + window + ("…" if start + width < len(flat) else "")
    return Snippet(text, _found(window, pattern))


def _stem(term: str) -> str:
    """A crude stem for highlighting ("failing" -> "fail"); the index itself uses Porter."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(term) > len(suffix) + 3 and term.endswith(suffix):
            return term[: -len(suffix)]
    return term


def _terms_pattern(terms: list[str]) -> re.Pattern[str] | None:
    latin = [re.escape(_stem(t)) for t in terms if not CJK_RUN.fullmatch(t)]
    cjk = {g for t in terms if CJK_RUN.fullmatch(t) for g in (t, *bigrams(t))}
    alternatives = []
    if latin:
        # Word starts only, so "port" marks "ports" but not "import"; short terms whole words.
        long_terms = "|".join(sorted((t for t in latin if len(t) > 3), key=len, reverse=True))
        short_terms = "|".join(sorted((t for t in latin if len(t) <= 3), key=len, reverse=True))
        if long_terms:
            alternatives.append(rf"(?<![^\W_])(?:{long_terms})[^\W_]*")
        if short_terms:
            alternatives.append(rf"(?<![^\W_])(?:{short_terms})(?![^\W_])")
    if cjk:
        alternatives.extend(re.escape(g) for g in sorted(cjk, key=len, reverse=True))
    return re.compile("|".join(alternatives), re.IGNORECASE) if alternatives else None


def _best_start(hits: list[int], width: int) -> int:
    """Start of the window (a little before a hit) that covers the most hits."""
    best, best_count = hits[0], 0
    for index, first in enumerate(hits):
        count = sum(1 for h in hits[index:] if h < first + width - 20)
        if count > best_count:
            best, best_count = first, count
    return max(0, best - 30)


def _found(window: str, pattern: re.Pattern[str] | None) -> tuple[str, ...]:
    if pattern is None:
        return ()
    return tuple(dict.fromkeys(m.group() for m in pattern.finditer(window)))
