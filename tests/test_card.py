"""Card parsing and rewriting: byte-exact round trips and one-line updates."""

from __future__ import annotations

import datetime as dt
import difflib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardvault.errors import CardFormatError
from cardvault.vault.card import (
    parse_card,
    render_card,
    replace_body,
    update_card_text,
)
from cardvault.vault.config import DEFAULT_CATEGORIES
from cardvault.vault.schema import schema_problems

PATH = Path("memory/cards/x.md")

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=10)
tags = st.lists(st.from_regex(r"[a-z0-9]{1,6}(-[a-z0-9]{1,6}){0,2}", fullmatch=True), max_size=5)
dates = st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2100, 1, 1))
body_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x00"),
    max_size=400,
)
extra_value = st.one_of(st.integers(-1000, 1000), words, st.booleans(), st.lists(words, max_size=3))


@st.composite
def cards(draw: st.DrawFn) -> str:
    meta = {
        "topic": draw(words),
        "category": draw(st.sampled_from(DEFAULT_CATEGORIES)),
        "tags": draw(tags),
        "created": draw(dates),
        "updated": draw(dates),
    }
    for key in draw(
        st.lists(st.sampled_from(["owner", "x_custom", "zeta", "review"]), unique=True)
    ):
        meta[key] = draw(extra_value)
    return render_card(meta, draw(body_text))


HAND_WRITTEN = """---
topic: "Cortex CSRF Automation"   # quoted on purpose
category: infrastructure
tags:
  - cortex
  - csrf
created: 2026-03-19
updated: 2026-03-19
owner: {name: dana, team: infra}
# a comment the user keeps
---
Cortex 3.1.8 uses non-standard CSRF.

Trailing spaces stay.\x20\x20\x20
"""


@given(cards())
@settings(max_examples=150, deadline=None)
def test_untouched_card_round_trips_byte_for_byte(text: str) -> None:
    card = parse_card(text, PATH)
    assert update_card_text(text, dict(card.meta)) == text
    assert replace_body(text, card.body) == text


@given(cards(), st.integers(1, 999))
@settings(max_examples=150, deadline=None)
def test_one_key_update_changes_exactly_one_line(text: str, seen: int) -> None:
    card = parse_card(text, PATH)
    new_date = (card.date("updated") or dt.date(2000, 1, 1)) + dt.timedelta(days=1)
    updated = update_card_text(text, {"updated": new_date})
    diff = [
        line
        for line in difflib.unified_diff(text.splitlines(), updated.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert diff == [f"-updated: {card.date('updated')}", f"+updated: {new_date}"]
    assert parse_card(updated, PATH).body == card.body


def test_hand_written_formatting_survives_an_update() -> None:
    updated = update_card_text(HAND_WRITTEN, {"seen": 2, "updated": dt.date(2026, 4, 1)})
    expected = HAND_WRITTEN.replace("updated: 2026-03-19", "updated: 2026-04-01").replace(
        "# a comment the user keeps\n---", "# a comment the user keeps\nseen: 2\n---"
    )
    assert updated == expected
    card = parse_card(updated, PATH)
    assert card.meta["owner"] == {"name": "dana", "team": "infra"}
    assert card.tags == ("cortex", "csrf")


def test_multiline_value_is_replaced_whole_and_removal_drops_its_lines() -> None:
    updated = update_card_text(HAND_WRITTEN, {"tags": ["cortex"]}, remove=["owner"])
    assert "  - csrf" not in updated
    assert "tags: [cortex]" in updated
    assert "owner" not in updated
    assert updated.endswith("Trailing spaces stay.\x20\x20\x20\n")


def test_crlf_card_keeps_its_line_endings() -> None:
    text = HAND_WRITTEN.replace("\n", "\r\n")
    updated = update_card_text(text, {"seen": 3})
    assert "seen: 3\r\n" in updated
    assert "\n" not in updated.replace("\r\n", "")


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("", 1, "empty file"),
        ("no frontmatter\n", 1, "no frontmatter"),
        ("---\ntopic: a\n", 1, "not closed"),
        ("---\ntopic: a\ntags: [a, b\n---\nbody\n", 4, "invalid YAML"),
        ("---\n- a\n- b\n---\nbody\n", 2, "mapping"),
    ],
)
def test_unparsable_cards_name_the_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(CardFormatError) as info:
        parse_card(text, PATH)
    assert info.value.line == line
    assert fragment in info.value.message


def test_schema_names_each_problem() -> None:
    meta = {"topic": "x", "category": "nope", "tags": ["Bad Tag"], "created": "2026-13-01"}
    problems = dict(schema_problems(meta, DEFAULT_CATEGORIES))
    assert "updated" in problems
    assert "unknown category 'nope'" in problems["category"]
    assert "not lowercase-hyphenated" in problems["tags"]
    assert "ISO date" in problems["created"]
    assert (
        schema_problems(
            {
                "topic": "x",
                "category": "tools",
                "tags": [],
                "created": dt.date(2026, 1, 1),
                "updated": dt.date(2026, 1, 2),
                "seen": 2,
                "custom": "kept",
            },
            DEFAULT_CATEGORIES,
        )
        == []
    )


# --- python-frontmatter's handler API, with cardvault's handler (vault/frontmatter_handler.py)


def test_the_frontmatter_handler_is_python_frontmatters_and_splits_byte_exact() -> None:
    import frontmatter

    from cardvault.vault.frontmatter_handler import HANDLER

    assert isinstance(HANDLER, frontmatter.YAMLHandler)
    text = "---\r\ntopic: T\r\ntags: [a]\r\n---  \r\n\r\n  Body, indented.\r\n\r\n\r\n"
    assert HANDLER.detect(text) and not HANDLER.detect("--- \nnot frontmatter\n")
    front, body = HANDLER.split(text)
    assert front == "topic: T\r\ntags: [a]" and body == "\r\n  Body, indented.\r\n\r\n\r\n"
    assert HANDLER.load(front) == {"topic": "T", "tags": ["a"]}


def test_the_frontmatter_handler_loads_within_limits_and_names_the_line() -> None:
    from cardvault.vault.frontmatter_handler import HANDLER
    from tests.support.hostile import alias_bomb

    where = Path("memory/cards/bomb.md")
    with pytest.raises(CardFormatError) as raised:
        HANDLER.load(alias_bomb(9, 9), path=where, first_line=2)
    assert raised.value.path == where and raised.value.line is not None
    with pytest.raises(CardFormatError):
        HANDLER.load("a: &a [*a]", path=where, first_line=2)


def test_the_frontmatter_handler_exports_in_the_house_style() -> None:
    from cardvault.vault.frontmatter_handler import HANDLER

    meta = {"topic": "T", "tags": ["a", "b"], "sources": ["2026-01-01#10:00"]}
    assert HANDLER.export(meta) == "topic: T\ntags: [a, b]\nsources:\n- 2026-01-01#10:00"
    assert render_card(meta, "Body.") == f"---\n{HANDLER.export(meta)}\n---\nBody.\n"
