"""Frontmatter YAML within limits: alias bombs, cycles and deep nesting refused at their line,
impossible dates and huge integers kept as text, benign aliases allowed."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from cardvault.errors import CardFormatError
from cardvault.limits import YAML_DEPTH as MAX_DEPTH
from cardvault.vault.bounded_yaml import load_bounded
from cardvault.vault.card import parse_card
from cardvault.vault.schema import schema_problems
from tests.support.hostile import alias_bomb

PATH = Path("memory/cards/x.md")


def test_an_alias_bomb_is_refused_at_the_line_where_it_grows_too_big() -> None:
    text = alias_bomb(9, 9)
    assert len(text) < 600
    with pytest.raises(CardFormatError) as caught:
        load_bounded(text, PATH, first_line=2)
    assert "alias bomb" in caught.value.message
    assert caught.value.line == 2 + 4  # l4 is the first level past 20,000 values


def test_a_recursive_alias_is_refused() -> None:
    with pytest.raises(CardFormatError, match="refers to itself"):
        load_bounded("topic: x\ntags: &t [a, *t]\n", PATH, first_line=2)


def test_nesting_deeper_than_the_limit_is_refused() -> None:
    deep = "tags: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    with pytest.raises(CardFormatError, match="nested more than"):
        load_bounded(deep, PATH, first_line=2)
    # past what libyaml's recursive composer survives: one clear error, never a crash (a
    # libyaml built with its own nesting limit may be the one to say it)
    very_deep = "tags: " + "[" * 50_000 + "]" * 50_000
    with pytest.raises(CardFormatError, match=r"nested more than|nesting depth"):
        load_bounded(very_deep, PATH, first_line=2)
    dashes = "tags:\n" + "- " * 60_000 + "x"  # block style: two characters a level
    with pytest.raises(CardFormatError, match=r"nested more than|nesting depth"):
        load_bounded(dashes, PATH, first_line=2)


def test_a_small_alias_is_allowed() -> None:
    meta = load_bounded("created: &d 2026-01-02\nupdated: *d\n", PATH, first_line=2)
    assert meta == {"created": dt.date(2026, 1, 2), "updated": dt.date(2026, 1, 2)}


def test_an_impossible_date_stays_text_and_is_a_schema_finding_at_its_line() -> None:
    text = "---\ntopic: T\ncategory: tools\ntags: [a]\ncreated: 2026-02-30\nupdated: 2026-03-01\n"
    text += "---\nbody\n"
    card = parse_card(text, PATH)
    assert card.meta["created"] == "2026-02-30"
    assert card.date("created") is None
    problems = dict(schema_problems(card.meta, ["tools"]))
    assert "2026-02-30" in problems["created"]
    assert card.key_line("created") == 5


def test_a_huge_integer_stays_text() -> None:
    meta = load_bounded("seen: " + "9" * 10_000, PATH, first_line=2)
    assert meta["seen"] == "9" * 10_000
    assert ("seen", "'seen' must be a whole number of at least 1") in schema_problems(meta, [])


@pytest.mark.parametrize(
    "front",
    [
        "tags: !!binary not-base64-$$$",
        "p: !!pairs [a, b]",
        "o: !!omap {a: 1}",
        "? [a, b]\n: unhashable key",
        "a: !!python/object:os.system [echo]",
        "---\na: 1\n---\nb: 2",
        "a: 'unclosed",
    ],
)
def test_yaml_that_cannot_be_built_is_a_format_error_with_a_line(front: str) -> None:
    with pytest.raises(CardFormatError) as caught:
        load_bounded(front, PATH, first_line=2)
    assert caught.value.line is not None and caught.value.line >= 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("topic: !!set {a, b}\n", {"topic": ["a", "b"]}),
        ("t: !!binary aGVsbG8=\n", {"t": "aGVsbG8="}),
        ("o: !!omap [a: 1, b: 2]\n", {"o": [["a", 1], ["b", 2]]}),
        ("p: !!pairs [a: 1, a: 2]\n", {"p": [["a", 1], ["a", 2]]}),
        (
            "2026-01-01: x\n1: y\ntrue: z\n~: w\n",
            {"2026-01-01": "x", "1": "y", "true": "z", "null": "w"},
        ),
        ("base: &b {a: 1}\nm:\n  <<: *b\n  c: 2\n", {"base": {"a": 1}, "m": {"a": 1, "c": 2}}),
    ],
)
def test_values_are_what_json_can_hold(text: str, expected: dict[str, object]) -> None:
    """A set, binary, ordered pairs or keys that are not text (found by the hostile-input suite:
    `topic: !!set {a, b}` made `export` fail) are built as lists and text; merge keys still work."""
    import json

    value = load_bounded(text, PATH, first_line=2)
    assert value == expected
    assert json.loads(json.dumps(value)) == expected


def test_a_card_with_a_set_topic_exports(vault_path: Path) -> None:
    from tests.support.cli import run_cli

    (vault_path / "memory" / "cards" / "odd.md").write_text(
        "---\ntopic: !!set {a, b}\ncategory: tools\n---\nPlain body text.\n", encoding="utf-8"
    )
    result = run_cli(["--vault", str(vault_path), "export", "-", "--logs"])
    assert result.exit_code == 0, result.output
    assert '"odd"' in result.stdout or "odd.md" in result.stdout
