"""The review queue file (vault/decisions.py): lines in, lines out, and what a settled answer
means for the pairs it names."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardvault.errors import CardFormatError, NotFoundError
from cardvault.vault.decisions import (
    ACCEPTED,
    REJECTED,
    Member,
    ReviewItem,
    apart_pairs,
    find_items,
    item_id,
    parse_queue,
    pending_items,
    read_queue,
    render_queue,
)

A = Member("memory/2026-03-02.md#10:15", "memory/2026-03-02.md", "Set a timeout.",
           "memory/2026-03-02.md#10:15", "memory/cards/a.md")  # fmt: skip
B = Member("memory/2026-03-09.md#09:30", "memory/2026-03-09.md", "Requests block forever.",
           "memory/2026-03-09.md#09:30", "memory/cards/b.md")  # fmt: skip
C = Member("memory/cards/c.md", "memory/cards/c.md", "Retry with backoff.")


def item(kind: str = "same-lesson", members: tuple[Member, ...] = (A, B, C)) -> ReviewItem:
    return ReviewItem(item_id(kind, [m.key for m in members]), kind, members, {"score": 3.5},
                      "2026-03-20")  # fmt: skip


def test_round_trip_is_byte_for_byte() -> None:
    items = [item(), item("duplicate", (A, C)).settled(REJECTED, "2026-03-21", "person", "no")]
    text = render_queue(items)
    assert parse_queue(text) == items
    assert render_queue(parse_queue(text)) == text
    assert text.count("\n") == 2  # one line per item: a settlement is a one-line diff


def test_a_settled_line_beats_a_pending_copy_in_any_order() -> None:
    """What a union merge of two clones leaves: both lines; the answer wins."""
    asked = item()
    answered = asked.settled(ACCEPTED, "2026-03-21", "judge:llm", "same", [A.key, B.key])
    for lines in ([asked, answered], [answered, asked]):
        found = parse_queue("".join(render_queue([i]) for i in lines))
        assert found == [answered]
    later = asked.settled(REJECTED, "2026-03-22", "person", "changed my mind")
    assert parse_queue(render_queue([answered]) + render_queue([later])) == [later]


def test_a_bad_line_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "review.jsonl"
    with pytest.raises(CardFormatError) as error:
        parse_queue(render_queue([item()]) + "{not json\n", path)
    assert error.value.line == 2 and error.value.path == path
    with pytest.raises(CardFormatError, match="kind must be one of"):
        parse_queue(render_queue([item()]).replace("same-lesson", "maybe"), path)


def test_ids_are_short_stable_and_unique() -> None:
    first = item_id("same-lesson", ["x", "y"])
    assert first == item_id("same-lesson", ["y", "x"]) and len(first) == 6
    assert item_id("same-lesson", ["x", "y"], [first]) != first


def test_find_by_prefix_and_clear_errors() -> None:
    items = [item(), item("duplicate", (A, C))]
    assert find_items(items, [items[1].id[:4]]) == [items[1]]
    with pytest.raises(NotFoundError, match="no review item"):
        find_items(items, ["zzzz"])
    with pytest.raises(NotFoundError, match="more than one"):
        find_items(items, [""])


def test_apart_pairs_follow_the_answers() -> None:
    rejected = item().settled(REJECTED, "2026-03-21", "person", None)
    everyone = (A.key, B.key, C.key, "memory/cards/elsewhere.md")
    assert apart_pairs([rejected]).among(everyone) == {
        frozenset((A.key, B.key)), frozenset((A.key, C.key)), frozenset((B.key, C.key))
    }  # fmt: skip
    assert frozenset((A.key, C.key)) in apart_pairs([rejected])
    assert frozenset((A.key, "memory/cards/elsewhere.md")) not in apart_pairs([rejected])
    partly = item().settled(ACCEPTED, "2026-03-21", "person", None, [A.key, B.key])
    kept = apart_pairs([partly])
    assert kept.among(everyone) == {frozenset((A.key, C.key)), frozenset((B.key, C.key))}
    assert frozenset((C.key, B.key)) in kept and frozenset((A.key, B.key)) not in kept
    assert not apart_pairs([item()])  # pending decides nothing
    assert kept.between([A.key], [C.key, "x"]) and not kept.between([A.key], [B.key])
    assert apart_pairs([rejected]).between([A.key], [A.key, B.key])
    assert not apart_pairs([rejected]).between([A.key], [A.key])  # a key is never apart from itself


def test_two_cards_of_many_names_are_checked_in_one_look_per_name() -> None:
    """Two cards of 20,000 keys each (aliases: a shared vault writes them) are 400 million
    pairs; `between` answers from the answers naming each key, whatever the sizes."""
    rejected = item().settled(REJECTED, "2026-03-21", "person", None)
    kept = apart_pairs([rejected])
    left = [f"memory/cards/l{n}.md" for n in range(20_000)]
    right = [f"memory/cards/r{n}.md" for n in range(20_000)]
    assert not kept.between(left, right)
    assert kept.between([*left, A.key], [*right, B.key])
    assert pending_items([item(), rejected]) == [item()]


def test_a_vault_without_a_queue_has_no_items(tmp_path: Path) -> None:
    assert read_queue(tmp_path) == []
