"""The pieces of lesson grouping that need no model: clustering, topics, tags, contradictions,
and the labelled lesson set itself."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from cardvault.maintain.calibration import MINILM
from cardvault.maintain.contradict import contradict
from cardvault.maintain.evidence import Vocabulary, negated, terms
from cardvault.maintain.lessons import Lesson, lesson_lines
from cardvault.maintain.linkage import AVERAGE, COMPLETE, agglomerate
from cardvault.maintain.newcard import TagWords, identifiers, pick_tags
from cardvault.maintain.topic import lesson_topic
from cardvault.vault.daily import parse_log
from tests.support.lessons import load, split_of

NEVER = -math.inf


def lesson(title: str, body: str) -> Lesson:
    text = f"# 2026-03-02\n\n## 10:00 — {title}\n{body}\n"
    entry = parse_log(text, Path("memory/2026-03-02.md"), ["Lesson", "Fix", "Gotcha", "Rule"])[0]
    return Lesson(entry, lesson_lines(entry), None)


def test_complete_linkage_never_chains_through_a_look_alike() -> None:
    # 0~1 and 1~2 are close, 0~2 is not: complete linkage keeps 2 out, average lets it in
    scores = np.array([[NEVER, 9.0, 1.0], [9.0, NEVER, 8.0], [1.0, 8.0, NEVER]])
    assert agglomerate(scores, 4.0, COMPLETE) == [[0, 1], [2]]
    assert agglomerate(scores, 4.0, AVERAGE) == [[0, 1, 2]]


def test_never_keeps_groups_apart_and_start_groups_stay_whole() -> None:
    scores = np.array([[NEVER, 9.0, NEVER], [9.0, NEVER, 9.0], [NEVER, 9.0, NEVER]])
    assert agglomerate(scores, 5.0, AVERAGE) == [[0, 1], [2]]
    assert agglomerate(scores, 5.0, AVERAGE, start=[[1, 2]]) == [[0], [1, 2]]
    refused = agglomerate(scores, 5.0, COMPLETE, allowed=lambda a, b: len(a) + len(b) <= 1)
    assert refused == [[0], [1], [2]]


def test_clustering_matches_brute_force_on_random_parts() -> None:
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(40, 40))
    scores = (scores + scores.T) / 2
    np.fill_diagonal(scores, NEVER)
    groups = agglomerate(scores, 1.2, COMPLETE)
    assert sorted(i for g in groups for i in g) == list(range(40))
    for group in groups:
        block = scores[np.ix_(group, group)]
        assert len(group) == 1 or block[~np.eye(len(group), dtype=bool)].min() >= 1.2


def test_the_topic_says_the_lesson_not_the_incident() -> None:
    found = lesson(
        "Import job stuck",
        "The import hung for three hours in requests.get.\n"
        "Lesson: set a timeout on every HTTP client call; requests never times out by default.",
    )
    assert lesson_topic([found]) == "Set a timeout on every HTTP client call"
    long = lesson(
        "Applied staging manifests to prod-eu",
        "Rule: pass `--context` explicitly on every kubectl command and run "
        "`kubectl config unset current-context` so a command without it fails.",
    )
    assert lesson_topic([long]) == "Pass --context explicitly on every kubectl command"
    advice = lesson(
        "Redis stall",
        "Gotcha: KEYS walks every key in one blocking call; use SCAN in a loop instead.",
    )
    assert lesson_topic([advice]) == "Use SCAN in a loop instead"
    literal = lesson(
        "Prepared statements behind PgBouncer",
        "Fix: asyncpg's cache breaks behind PgBouncer; create the async engine with "
        'connect_args={"statement_cache_size": 0}, as the main engine does.',
    )  # a braced literal is never cut at its own colon
    assert (
        lesson_topic([literal])
        == 'Create the async engine with connect_args={"statement_cache_size": 0}'
    )


def test_tags_come_from_the_vault_and_the_lesson_never_from_the_title() -> None:
    found = lesson(
        "Import job stuck on Friday",
        "Lesson: migrations set `lock_timeout`; push with `--force-with-lease` to GitHub.",
    )
    vocabulary = Vocabulary(
        ["postgres migrations", "git push", "redis keys", "we call the API", "an explicit check"]
    )
    known = TagWords(Counter({"postgres": 3, "git": 2}), vocabulary)
    tags = pick_tags([], [found], known, floor=MINILM.neighbour_floor)
    assert tags[:3] == ["lock-timeout", "force-with-lease", "github"]
    assert not {"import", "job", "stuck", "friday"} & set(tags)
    bare = lesson("Worker hung on a slow API", "Lesson: HTTP calls need an explicit timeout.")
    assert set(pick_tags([], [bare], known, floor=MINILM.neighbour_floor)) == {"http", "timeout"}


def test_identifiers_skip_shouting_words() -> None:
    text = "Never run KEYS on PgBouncer; use S3 list_objects_v2 with --max-keys over HTTP."
    assert identifiers(text) == ["pgbouncer", "s3", "list_objects_v2", "max-keys"]


def test_terms_and_negation() -> None:
    assert {"lock_timeout", "lock", "timeout", "migration"} <= terms("Migrations set lock_timeout")
    assert negated("Never use Jest") and negated("Do not mock the API")
    assert not negated("A listing that does not paginate misses objects")


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Always squash merge pull requests.", "Never squash merge pull requests into main."),
        ("Always pin Docker base images by digest.", "Don't pin base images by digest."),
        ("Mock the carrier HTTP API in unit tests.", "Do not mock the carrier HTTP API."),
    ],
)
def test_contradictions_found(left: str, right: str) -> None:
    assert contradict(left, right) is not None


def test_different_objects_do_not_contradict() -> None:
    assert contradict("Always use `npm ci` in CI.", "Never use `npm install` in CI.") is None


def test_the_labelled_set_is_as_large_as_promised() -> None:
    data = load()
    recurring, lookalikes = data.lessons("recurring"), data.lessons("lookalike")
    assert len(recurring) >= 40 and min(len(t) for t in recurring.values()) >= 3
    assert len(lookalikes) >= 40 and {t[0].family for t in lookalikes.values()} <= set(recurring)
    assert len(data.contradictions) >= 5
    calibration, held_out = data.part("calibration"), data.part("held-out")
    assert {t.family for t in calibration.tellings}.isdisjoint(t.family for t in held_out.tellings)
    assert len(held_out.lessons("recurring")) >= 15
    assert split_of("http-timeout") in ("calibration", "held-out")


def test_the_same_action_on_different_things_is_a_substitution() -> None:
    from cardvault.maintain.contradict import substitution

    jest = "Use Jest for the dashboard's unit tests."
    assert substitution(jest, "Use Vitest for the dashboard's unit tests.") is not None
    assert substitution(jest, "Use Jest; its jsdom setup is configured.") is None
    assert substitution("Never use `npm ci`.", "Always use `npm ci`.") is None  # a contradiction
