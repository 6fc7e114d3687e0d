"""Lexical pieces of maintenance: contradictions, body blocks and sentences, clustering, lock."""

from __future__ import annotations

import pytest

from cardvault.maintain.contradict import claims, conflicting_pairs, contradict
from cardvault.maintain.linkage import constrained_clusters
from cardvault.maintain.text import (
    append_paragraphs,
    blocks,
    body_sentences,
    first_sentence,
    normalise,
    render_blocks,
)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Always use `npm ci` in the Docker build.", "Never use `npm ci` in the Docker build."),
        ("Use pathlib for paths.", "Don't use pathlib for paths; os.path is fine."),
        ("Enable TLS verification for the carrier API.", "Disable TLS verification in staging."),
        ("You must pin the base image.", "Do not pin the base image, track latest."),
        ("Avoid mocks in the tests.", "Use mocks in the tests where the network is slow."),
        ("Never disable the pre-commit hook.", "Disable the pre-commit hook when rebasing."),
    ],
)
def test_opposite_claims_on_the_same_action_contradict(left: str, right: str) -> None:
    found = contradict(left, right)
    assert found is not None
    assert {found.first.polarity, found.second.polarity} == {1, -1}
    assert contradict(right, left) is not None


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Always use `npm ci` in CI.", "Use `npm ci` in the Docker build too."),
        ("Never use `npm ci` in Docker.", "Never use npm ci anywhere."),
        ("Always use pathlib.", "Never use os.path."),
        ("Never commit .env files.", "Always commit the lockfile."),
        ("Never disable TLS verification.", "Enable TLS verification everywhere."),
        ("Cortex wants the CSRF token as cookie and header.", "Cortex 3.1.8 renamed the header."),
    ],
)
def test_agreeing_or_unrelated_claims_do_not_contradict(left: str, right: str) -> None:
    assert contradict(left, right) is None


def test_claims_skip_code_blocks() -> None:
    body = "Use the wrapper.\n\n```\n# never use the wrapper here\n```\n"
    assert [(c.verb, c.obj, c.polarity) for c in claims(body)] == [("use", ("wrapper",), 1)]


def test_conflicting_pairs_joins_on_claims() -> None:
    texts = [
        ("a", "Always use `npm ci` for the dashboard."),
        ("b", "Run the linter before pushing."),
        ("c", "Never use npm ci in the Docker build."),
    ]
    pairs = conflicting_pairs(texts)
    assert [(left, right) for left, right, _ in pairs] == [("a", "c")]


def test_blocks_keep_code_fences_and_list_items() -> None:
    body = (
        "First para\ncontinues here.\n\n- item one\n- item two\n\n"
        "```\ncode\n\nmore\n```\n## Head\nTail."
    )
    kinds = [(b.kind, b.text) for b in blocks(body)]
    assert kinds == [
        ("paragraph", "First para continues here."),
        ("item", "item one"),
        ("item", "item two"),
        ("code", "```\ncode\n\nmore\n```"),
        ("heading", "## Head"),
        ("paragraph", "Tail."),
    ]
    assert render_blocks(blocks(body)[1:3]) == ["- item one\n- item two"]


def test_sentences_and_normalised_comparison() -> None:
    assert body_sentences("One thing. Two things! e.g. not a split. `Code` starts") == [
        "One thing.",
        "Two things! e.g. not a split.",
        "`Code` starts",
    ]
    assert normalise("Use `npm ci`.") == normalise("use npm ci")
    assert first_sentence("## Title\n\nThe rule is this. And more.") == "The rule is this."


def test_append_paragraphs_keeps_existing_bytes() -> None:
    body = "Existing text  \nwith odd spacing.\n"
    out = append_paragraphs(body, ["New one.", "", "New two."])
    assert out.startswith("Existing text  \nwith odd spacing.")
    assert out.endswith("\n\nNew one.\n\nNew two.\n")
    assert append_paragraphs(body, []) == body


def test_clusters_never_join_items_kept_apart() -> None:
    pairs = [(0, 1, 0.95), (1, 2, 0.9), (0, 2, 0.85), (3, 4, 0.99)]
    apart = {(0, 2)}
    groups = constrained_clusters(5, pairs, lambda i, j: (min(i, j), max(i, j)) in apart)
    assert groups == [[0, 1], [2], [3, 4]]
    assert constrained_clusters(3, []) == [[0], [1], [2]]
