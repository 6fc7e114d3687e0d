"""One word, one stem everywhere (cardvault/words.py): the keyword index and its queries, the
highlighting of a hit, and maintenance's word matching read "boxes", "retries", "failing" and
"cookies" as their other forms, through the one stemmer."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardvault import open_vault
from cardvault.maintain.text import meaning_words
from cardvault.search.text import index_texts, make_snippet
from cardvault.words import index_terms, stem, stems, words
from tests.support.search import write_card

#: (what a query or a new lesson says, how a card wrote it)
FORMS = [
    ("boxes", "box"),
    ("retries", "retry"),
    ("retries", "retried"),
    ("failing", "fails"),
    ("failing", "failed"),
    ("cookies", "cookie"),
]


@pytest.mark.parametrize(("asked", "written"), FORMS)
def test_the_forms_of_a_word_share_one_stem(asked: str, written: str) -> None:
    assert stem(asked) == stem(written)
    assert index_texts(f"the {written}") == (f"the {stem(asked)}",)


def test_words_are_lower_case_without_diacritics_and_cjk_runs_whole() -> None:
    assert words("Café CAFE naïve --no-verify 连接池 x_y") == [
        "cafe", "cafe", "naive", "no", "verify", "连接池", "x", "y",
    ]  # fmt: skip
    assert words("cafe\u0301") == ["cafe"]  # a combining accent is part of its letter
    assert stems("Boxes, retries") == ["box", "retri"]
    assert index_terms("use 连接池 now", "") == [["use", "连接", "接池", "now"], []]
    assert stem("arm64") == "arm64" and stem("连接池") == "连接池"
    assert stem("x" * 80 + "ing") == "x" * 80 + "ing"  # a blob is its own stem


@pytest.mark.slow  # a keyword search still embeds what its sync finds new
@pytest.mark.parametrize(("asked", "written"), FORMS)
def test_search_finds_and_highlights_the_other_form(
    vault_path: Path, asked: str, written: str
) -> None:
    write_card(vault_path, "stored", "Where things are kept", f"The deploy {written} twice.")
    write_card(vault_path, "other", "Something else", "Nothing to see here at all.")
    hits = open_vault(vault_path).search(asked, mode="keyword")
    assert [hit.slug for hit in hits] == ["stored"]
    assert hits[0].matches == (written,)


@pytest.mark.parametrize(("asked", "written"), FORMS)
def test_a_snippet_marks_the_other_form_not_a_longer_word(asked: str, written: str) -> None:
    body = f"Unrelated {written}zz words. The deploy {written.capitalize()} twice."
    assert make_snippet(body, asked).matches == (written.capitalize(),)


@pytest.mark.parametrize(("asked", "written"), FORMS)
def test_maintenance_matches_the_other_form(asked: str, written: str) -> None:
    assert meaning_words(f"the deploy {asked}") == meaning_words(f"a deploy {written}")


def test_search_maintenance_and_highlighting_agree_on_every_stem() -> None:
    text = "Retries of failing uploads; the cookies expire and the boxes fill."
    searched = set(index_texts(text)[0].split())
    assert meaning_words(text) <= searched
    assert set(stems(" ".join(make_snippet(text, text).matches))) == meaning_words(text)


@pytest.mark.slow
def test_a_scoped_search_reads_its_query_once(
    vault_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default scope searches the project and the global vault: the query's words are read
    once for both (counted), not once per vault and again per hit."""
    import cardvault.search.text as text

    write_card(vault_path, "stored", "Where things are kept", "The deploy box is full.")
    with open_vault(vault_path) as session:
        session.new("Global boxes", "tools", "A box kept for every project.", to_global=True)
        read: list[str] = []
        real = text.query_terms
        monkeypatch.setattr(text, "query_terms", lambda query: read.append(query) or real(query))
        found = session.search_hits("boxes", mode="keyword", scope="all")
    assert sorted(name for name, _ in found.hits) == ["global", "project"]
    assert read == ["boxes"]


def test_highlighting_finds_stems_that_do_not_start_as_their_words() -> None:
    """The snippet looks only at words starting as a query stem starts; the stems that do not
    ("dying" is "die") and words with diacritics are found all the same."""
    assert stem("dying") == stem("died") == "die"
    assert make_snippet("He was dying. Skis!", "died ski").matches == ("dying", "Skis")
    assert make_snippet("Der Café ist zu. Éclairs!", "cafe eclair").matches == ("Café", "Éclairs")
