"""End to end on a copy of sample-vault/: everything the maintenance issue says it must show,
checked against the ground truth in tests/fixtures/sample-vault-facts.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cardvault.check.run import run_checks
from cardvault.search.embedder import Embedder
from cardvault.vault.layout import iter_card_paths, open_vault_at
from cardvault.vault.read import read_card
from cardvault.vault.sections import get_section
from tests.support.maintain import git, run

pytestmark = pytest.mark.slow

FACTS = json.loads(
    (Path(__file__).parent / "fixtures" / "sample-vault-facts.json").read_text("utf-8")
)
TODAY = "2026-11-30"


def ref(entry: str) -> str:
    """'2026-11-02 11:30' -> how a card cites that entry: by its id ('memory/2026-11-02.md#2f8da9';
    the sample vault's entries have ids), else by its position ('memory/2026-11-02.md#11:30')."""
    from cardvault.vault.daily import parse_log
    from cardvault.vault.entry_ids import entries_by_ref

    day, time = entry.split()
    positional = f"memory/{day}.md#{time}"
    path = Path(__file__).resolve().parents[1] / "sample-vault" / "memory" / f"{day}.md"
    found = entries_by_ref(parse_log(path.read_text(encoding="utf-8"), path, ()))
    return found[positional].ref if positional in found else positional


def outside(text: str, name: str) -> str:
    start = text.index(f"<!-- cardvault:begin {name} -->")
    end = text.index(f"<!-- cardvault:end {name} -->")
    return text[:start] + text[end:]


@pytest.fixture(scope="module")
def maintained(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder):  # type: ignore[no-untyped-def]
    import shutil

    from cardvault import history

    root = tmp_path_factory.mktemp("sample") / "vault"
    shutil.copytree(Path(__file__).resolve().parents[1] / "sample-vault", root)
    history.init_repo(root)
    vault = open_vault_at(root)
    history.commit(vault, "sample vault")
    before = {p: p.read_text(encoding="utf-8") for p in (vault.memory_md, vault.agents_md)}
    first = run(vault, embedder, today=TODAY)
    head = git(root, "rev-parse", "HEAD")
    second = run(vault, embedder, today=TODAY)
    yield vault, first, second, before, head


def cards_by_slug(vault) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return {p.stem: read_card(p) for p in iter_card_paths(vault)}


def citing(vault, entry: str):  # type: ignore[no-untyped-def]
    found = [c for c in cards_by_slug(vault).values() if ref(entry) in c.sources]
    assert len(found) == 1, f"{entry} is cited by {len(found)} live cards"
    return found[0]


def test_recurring_lesson_is_one_card_seen_three_times_with_a_rule(maintained) -> None:  # type: ignore[no-untyped-def]
    vault, *_ = maintained
    entries = FACTS["recurring_lesson"]["entries"]
    lesson = citing(vault, entries[0])
    assert [citing(vault, e).slug for e in entries] == [lesson.slug] * 3
    assert lesson.seen == 3
    assert set(lesson.sources) >= {ref(e) for e in entries}
    assert "paginat" in lesson.body.lower()
    rules = get_section(vault.agents_md.read_text(encoding="utf-8"), "rules")
    assert f"(memory/cards/{lesson.slug}.md)" in rules
    assert lesson.status == "promoted"


def test_distilled_cards_read_like_cards(maintained) -> None:  # type: ignore[no-untyped-def]
    """The lesson told three times is stated once, its other sightings listed under it with
    their days; titles name lessons and tags are the domain's words; a card distilled in the
    run is not archived by it, whatever its log's day."""
    vault, first, *_ = maintained
    lesson = citing(vault, FACTS["recurring_lesson"]["entries"][0])
    statement, *rest = lesson.body.strip().split("\n\n")
    assert "paginat" in statement.lower() and "\n" not in statement
    assert len(rest) == 1 and rest[0].startswith("Told again in other words:\n- 2026-11-06: ")
    distilled = [c for c in cards_by_slug(vault).values() if str(c.meta["created"]) >= "2026-11"]
    for card in distilled:
        assert not card.topic.lower().startswith(("the repo", "the audit")), card.topic
        assert "least" not in card.tags, card.tags
    archived = {c.source.stem for c in first.plan.changes if c.step == "archive"}
    assert archived == {FACTS["stale_card"]}
    written = {p.stem for p in first.written}
    assert all(str(c.meta["updated"]) == TODAY for c in distilled if c.slug in written)


def test_questions_pair_only_neighbours(maintained) -> None:  # type: ignore[no-untyped-def]
    """No same-lesson question pairs the S3 pagination lesson with Redis `KEYS`."""
    from cardvault.vault.decisions import read_queue

    vault, *_ = maintained
    s3 = {ref(e) for e in FACTS["recurring_lesson"]["entries"]}
    for item in read_queue(vault.root):
        keys = {m.key for m in item.members}
        if item.kind == "same-lesson" and keys & s3:
            assert keys <= s3 | {m.key for m in item.members if "s3" in m.text.lower()}, keys
    assert len([i for i in read_queue(vault.root) if i.kind == "same-lesson"]) <= 2


def test_hand_written_near_duplicates_and_related_cards_kept(maintained) -> None:  # type: ignore[no-untyped-def]
    """The sample vault's two pairs of near-duplicate cards are hand-written (curated) and tell
    one lesson in other words, neither saying what the other says: maintain leaves both as they
    are and asks nothing."""
    from cardvault.vault.decisions import read_queue

    vault, *_ = maintained
    live = cards_by_slug(vault)
    asked = [{m.path for m in i.members} for i in read_queue(vault.root)]
    for pair in FACTS["near_duplicates"]:
        assert all(slug in live and not live[slug].meta.get("merged_from") for slug in pair)
        assert {f"memory/cards/{slug}.md" for slug in pair} not in asked
    for left, right in FACTS["related_not_duplicate"]:
        survivors = {
            s: live.get(s) or next(c for c in live.values() if s in c.aliases)
            for s in (left, right)
        }
        assert survivors[left].slug != survivors[right].slug, (left, right)


def test_contradiction_reported_not_merged(maintained) -> None:  # type: ignore[no-untyped-def]
    vault, first, second, *_ = maintained
    left, right = FACTS["contradiction"]
    live = cards_by_slug(vault)
    assert left in live and right in live
    for result in (first, second):
        conflicts = [r for r in result.plan.reports if r.kind == "conflict"]
        assert len(conflicts) == 1
        assert {p.stem for p in conflicts[0].paths} == {left, right}
        assert all(FACTS["contradiction_object"] in text for text in conflicts[0].texts)
    assert {f.path for f in run_checks(vault) if f.code == "conflict"} == {
        f"memory/cards/{left}.md",
        f"memory/cards/{right}.md",
    }
    from cardvault.vault.decisions import read_queue

    asked = [i for i in read_queue(vault.root) if i.kind == "contradiction" and i.pending]
    assert [{m.path for m in i.members} for i in asked] == [
        {f"memory/cards/{left}.md", f"memory/cards/{right}.md"}
    ]


def test_asks_about_hand_written_cards_makes_new_ones_and_the_correction(maintained) -> None:  # type: ignore[no-untyped-def]
    """A lesson that tells a hand-written card's lesson is asked about (the card and the
    entry, one same-lesson question), the card left byte-identical; other lessons are new
    cards; the structured correction is a promoted card."""
    from cardvault.vault.decisions import read_queue

    vault, *_ = maintained
    sample = Path(__file__).resolve().parents[1] / "sample-vault/memory/cards"
    asked = [{m.key for m in i.members} | {m.path for m in i.members}
             for i in read_queue(vault.root) if i.kind == "same-lesson"]  # fmt: skip
    for fold in FACTS["asked_about_existing"]:
        path = f"memory/cards/{fold['card']}.md"
        assert (vault.root / path).read_bytes() == (sample / f"{fold['card']}.md").read_bytes()
        assert any(path in members and ref(fold["entry"]) in members for members in asked)
    existing = {p.stem for p in sample.glob("*.md")}
    for entry in FACTS["new_lessons"]:
        assert citing(vault, entry).slug not in existing
    correction = citing(vault, FACTS["structured_correction"])
    assert correction.meta["severity"] == "high" and correction.status == "promoted"
    assert "Mistake:" in correction.body and "Prevention:" in correction.body
    for entry in FACTS["undistilled_signal_entries"]:
        citing(vault, entry)


def test_archive_index_and_hand_written_parts(maintained) -> None:  # type: ignore[no-untyped-def]
    vault, _first, _second, before, _head = maintained
    assert (vault.archive_dir / f"{FACTS['stale_card']}.md").exists()
    assert read_card(vault.archive_dir / f"{FACTS['stale_card']}.md").status == "archived"
    promoted_rule = f"- {FACTS['promoted_rule']} (memory/cards/{FACTS['promoted_card']}.md)"
    agents = vault.agents_md.read_text(encoding="utf-8")
    assert promoted_rule in agents
    memory = vault.memory_md.read_text(encoding="utf-8")
    assert outside(memory, "categories") == outside(before[vault.memory_md], "categories")
    assert outside(agents, "rules") == outside(before[vault.agents_md], "rules")
    assert len(memory.encode("utf-8")) <= vault.config.memory_byte_budget
    counts: dict[str, int] = {}
    for found in cards_by_slug(vault).values():
        counts[found.category] = counts.get(found.category, 0) + 1
    table = get_section(memory, "categories")
    for category, count in counts.items():
        assert f"| {category} | {count} |" in table


def test_second_run_changes_nothing_and_commit_is_readable(maintained) -> None:  # type: ignore[no-untyped-def]
    vault, first, second, _before, head = maintained
    assert second.plan.empty and second.commit is None
    assert git(vault.root, "rev-parse", "HEAD") == head
    assert git(vault.root, "rev-list", "--count", "HEAD").strip() == "2"
    message = git(vault.root, "log", "-1", "--format=%B")
    subject, _, body = message.partition("\n\n")
    assert subject.startswith("maintain: distilled 8, promoted 2, archived 1")
    assert len(body.strip().splitlines()) >= 15
    changed = set(
        git(vault.root, "show", "--no-renames", "--name-only", "--format=", "HEAD").split()
    )
    planned = {vault.rel(p) for p in first.written}
    assert changed == planned
    # a hand-written card a lesson would join is asked about, not written
    assert (
        not {f"memory/cards/{fold['card']}.md" for fold in FACTS["asked_about_existing"]} & changed
    )


def test_the_maintained_vault_passes_check_without_errors(maintained) -> None:  # type: ignore[no-untyped-def]
    from cardvault.check.run import run_checks

    vault = maintained[0]
    errors = [str(f) for f in run_checks(vault) if f.severity == "error"]
    assert errors == []  # e.g. the promoted rule's card path once read as a secret


def test_cards_maintain_wrote_keep_every_fact_once(maintained: tuple[Any, ...]) -> None:
    """Every fact a card maintain wrote holds is kept: a merged card's sentences that say the
    same in other words stay when they alone hold a fact (CrashLoopBackOff, M1/M2/M3,
    ghcr.io/...), every sentence of a merged card is in the survivor whatever its budget, and
    no question parks text out of search. No sentence is there twice."""
    from cardvault.maintain.novelty import adds_detail
    from cardvault.maintain.text import body_sentences, normalise
    from cardvault.vault.decisions import read_queue

    vault, first, *_ = maintained
    written = [p for p in first.written if p.parent == vault.cards_dir and p.exists()]
    assert len(written) >= 6
    assert not [i for i in read_queue(vault.root) if i.kind == "split"]
    for path in written:
        found = read_card(path)
        sentences = [s for s in body_sentences(found.body) if not s.startswith(("```", "~~~"))]
        assert len({normalise(s) for s in sentences}) == len(sentences), path.name
        for slug in found.meta.get("merged_from") or []:
            old = git(vault.root, "show", f"HEAD~1:memory/cards/{slug}.md")
            for sentence in body_sentences(old.split("\n---\n", 1)[1]):
                assert not adds_detail(sentence, found.body), (path.name, sentence)
