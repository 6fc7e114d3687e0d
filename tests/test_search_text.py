"""The keyword index's terms (stems, CJK bigrams), FTS5 query quoting and snippets (no model
needed)."""

from __future__ import annotations

import sqlite3

from hypothesis import given
from hypothesis import strategies as st

from cardvault.search.index import TOKENIZER
from cardvault.search.text import (
    KeywordQuery,
    bigrams,
    index_texts,
    make_snippet,
    query_terms,
)


def test_bigrams_of_a_cjk_run() -> None:
    assert bigrams("数据库") == ["数据", "据库"]
    assert bigrams("库") == ["库"]


def test_index_text_stems_words_and_splits_cjk_runs() -> None:
    assert index_texts("Use 连接池 now", "Boxes of failing cookies", "") == (
        "use 连接 接池 now",
        "box of fail cooki",
        "",
    )


def test_query_terms_are_distinct_and_lowercase() -> None:
    assert query_terms("Foo foo --no-verify") == ["foo", "no", "verify"]
    assert fts_query("the --no-verify") == '"verifi"'  # stemmed, as the index holds it
    assert fts_query("to be") == '"to" OR "be"'


def test_fts_query_quotes_every_term() -> None:
    assert fts_query("ImportError: cannot import name 'jwt'") == (
        '"importerror" OR "cannot" OR "import" OR "name" OR "jwt"'
    )
    assert fts_query("retries failing") == '"retri" OR "fail"'  # the stems the index holds
    assert fts_query("数据库") == '"数据" OR "据库"'  # a CJK run's bigrams, as the index holds
    assert fts_query("库") == '"库"*'  # a lone character: any bigram it starts
    assert fts_query("--") is None


def fts_query(query: str) -> str | None:
    return KeywordQuery.of(query).match_any


def _fts() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute(
        f"CREATE VIRTUAL TABLE fts USING fts5(topic, tags, body, tokenize = '{TOKENIZER}')"
    )
    conn.execute(
        "INSERT INTO fts VALUES (?, ?, ?)",
        index_texts("缓存失效策略", "cache", "pip says ImportError: cannot import name 'jwt'"),
    )
    return conn


@given(st.text(max_size=60))
def test_any_user_query_is_valid_fts5(query: str) -> None:
    match = fts_query(query)
    if match is not None:
        _fts().execute("SELECT rowid FROM fts WHERE fts MATCH ?", (match,)).fetchall()


def test_cjk_substring_matches_segmented_text() -> None:
    conn = _fts()
    for query in ("失效", "缓存失效", "策略", "缓"):
        match = fts_query(query)
        assert (
            conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (match,)).fetchone()[0] == 1
        )


def test_snippet_centres_on_the_matches() -> None:
    body = "filler words here. " * 30 + "The login POST fails with 403 Forbidden. " + "tail. " * 30
    snippet = make_snippet(body, "login forbidden")
    assert "login POST fails with 403 Forbidden" in snippet.text
    assert snippet.text.startswith("…") and snippet.text.endswith("…")
    assert set(snippet.matches) == {"login", "Forbidden"}


def test_a_query_is_read_once_one_word_per_stem() -> None:
    read = KeywordQuery.of("Box boxes the BOXES retry")
    assert read.terms == ("box", "retry") and read.match_all == '"box" AND "retri"'
    assert KeywordQuery.of(read) is read


def test_snippet_highlights_inflected_words_and_cjk() -> None:
    assert "failed" in make_snippet("The job failed twice.", "failing jobs").matches
    assert make_snippet("必须清除 Redis 缓存", "缓存").matches == ("缓存",)


def test_the_window_holds_the_most_of_the_query_words_not_the_most_marks() -> None:
    filler = "filler " * 40
    body = f"{filler}every change gets changes {filler}get the db after it {filler}"
    assert set(make_snippet(body, "get the db after a change").matches) == {"get", "db", "after"}
