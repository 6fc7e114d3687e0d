"""Stable identities of log entries (issue 20): two real clones of one bare remote log in the
same minute (pinned clock), a card in each cites its clone's entry, and the clones sync in every
order: every citation still names the same entry text, `forget` removes exactly the entry its
card cites, maintenance distills nothing twice; a vault of old positional citations is migrated
once, in a commit of its own, and its citations resolve to the entries they named."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cardvault.vault.daily import parse_log
from cardvault.vault.entry_ids import entries_by_ref
from tests.support.cli import run_cli
from tests.support.writers import assert_vault_sound, git

NOW = "2026-03-10T10:00"
DAY = "memory/2026-03-10.md"
LESSONS = {
    "a": ("Deploy keys", "Lesson: deploy keys rotate on the first Monday of the month."),
    "b": ("Cache warmup", "Lesson: the build cache warms up at noon, so builds before are slow."),
}
CARDS = {"a": "monthly-rotation", "b": "noon-warmup"}
TOPICS = {"a": "Monthly rotation", "b": "Noon warmup"}


def ok(root: Path, *args: str) -> str:
    result = run_cli(["--vault", str(root), *args], env={"CARDVAULT_NOW": NOW})
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.output


def clones(tmp_path: Path) -> tuple[Path, Path]:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    a = tmp_path / "a"
    ok(tmp_path, "init", str(a))
    git(a, "remote", "add", "origin", str(remote))
    ok(a, "sync")
    b = tmp_path / "b"
    subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
    ok(b, "sync")
    return a, b


def commit(root: Path, message: str) -> None:
    """A person's commit of everything in the work tree."""
    git(root, "add", "-A")
    git(root, "-c", "user.name=Dana", "-c", "user.email=dana@example.com", "commit", "-qm", message)


def entries(root: Path) -> list[Any]:
    path = root / DAY
    return parse_log(path.read_text(encoding="utf-8"), path, ("lesson",))


def cite_own_entry(root: Path, name: str) -> str:
    """Log the clone's lesson at 10:00 and write a card citing that entry (as maintenance
    would: by the entry's ref), committed; returns the citation."""
    title, text = LESSONS[name]
    ok(root, "log", text, "--title", title)
    (mine,) = [e for e in entries(root) if e.title == title]
    card = root / "memory" / "cards" / f"{CARDS[name]}.md"
    card.write_text(
        f"---\ntopic: {TOPICS[name]}\ncategory: workflow\ntags: [ops]\ncreated: 2026-03-10\n"
        f"updated: 2026-03-10\nsources:\n  - {mine.ref}\n---\n{text.removeprefix('Lesson: ')}\n",
        encoding="utf-8",
    )
    commit(root, f"card {CARDS[name]}")
    return str(mine.ref)


def cited_text(root: Path, slug: str) -> str:
    """The body of the entry the card `slug` cites, as the clone resolves it now."""
    card = (root / "memory" / "cards" / f"{slug}.md").read_text(encoding="utf-8")
    source = next(line.split("- ", 1)[1] for line in card.splitlines() if "memory/20" in line)
    return str(entries_by_ref(entries(root))[source.strip()].body)


ORDERS = [list(order) for order in itertools.permutations("ab")]


@pytest.mark.parametrize("first", ORDERS, ids=["a-first", "b-first"])
def test_citations_name_the_same_entry_after_sync_in_every_order(
    tmp_path: Path, first: list[str]
) -> None:
    roots = dict(zip("ab", clones(tmp_path), strict=True))
    refs = {name: cite_own_entry(root, name) for name, root in roots.items()}
    assert all("#" in r and ":" not in r.rsplit("#", 1)[1] for r in refs.values()), refs
    for name in [*first, first[0]]:  # the first syncs twice: both end with everything
        ok(roots[name], "sync")
    texts = {root.joinpath(DAY).read_bytes() for root in roots.values()}
    assert len(texts) == 1, "the clones did not converge"
    for root in roots.values():
        assert [e.time for e in entries(root)] == ["10:00", "10:00"]
        for name, slug in CARDS.items():
            assert cited_text(root, slug) == LESSONS[name][1]
        assert_vault_sound(root)


def test_a_positional_citation_would_have_named_the_other_entry(tmp_path: Path) -> None:
    """What the ids fix: after the merge, the position an entry had on its clone names the
    other clone's entry on one of them."""
    a, b = clones(tmp_path)
    positional = {}
    for name, root in (("a", a), ("b", b)):
        cite_own_entry(root, name)
        positional[name] = entries(root)[0].position_ref
    ok(a, "sync"), ok(b, "sync"), ok(a, "sync")
    merged = entries(a)
    by_position = {e.position_ref: e.body for e in merged}
    named = {name: by_position[ref] for name, ref in positional.items()}
    assert named["a"] != LESSONS["a"][1] or named["b"] != LESSONS["b"][1]


def test_forget_removes_exactly_the_entry_its_card_cites(tmp_path: Path) -> None:
    a, b = clones(tmp_path)
    cite_own_entry(a, "a")
    cite_own_entry(b, "b")
    ok(b, "sync"), ok(a, "sync"), ok(b, "sync")
    ok(b, "forget", CARDS["a"], "--yes")
    left = entries(b)
    assert [e.body for e in left] == [LESSONS["b"][1]]
    assert cited_text(b, CARDS["b"]) == LESSONS["b"][1]
    assert not (b / "memory" / "cards" / f"{CARDS['a']}.md").exists()
    ok(b, "sync"), ok(a, "sync")
    assert [e.body for e in entries(a)] == [LESSONS["b"][1]]


def test_maintenance_distills_nothing_twice_after_the_merge(tmp_path: Path) -> None:
    """The "already distilled" test reads ids: both entries are cited, so none is a lesson,
    whichever clone's positions the merge kept."""
    from cardvault.maintain.lessons import pending_lessons
    from cardvault.maintain.state import load_state
    from cardvault.vault.layout import open_vault_at

    a, b = clones(tmp_path)
    cite_own_entry(a, "a")
    cite_own_entry(b, "b")
    ok(a, "sync"), ok(b, "sync"), ok(a, "sync")
    for root in (a, b):
        vault = open_vault_at(root)
        state = load_state(vault, dt.date(2026, 3, 11), None)
        assert pending_lessons(state) == []
        before = git(root, "rev-parse", "HEAD").strip()
        ok(root, "maintain", "--only", "promote,archive,index")
        assert "stable ids" not in git(root, "log", "--format=%s", f"{before}..HEAD")


@pytest.mark.slow
def test_a_real_maintenance_run_after_the_merge_changes_no_card(
    tmp_path: Path, embedder: Any
) -> None:
    from cardvault.vault.layout import open_vault_at
    from tests.support.maintain import run

    a, b = clones(tmp_path)
    cite_own_entry(a, "a")
    cite_own_entry(b, "b")
    ok(b, "sync"), ok(a, "sync")
    cards = {p.name: p.read_bytes() for p in (a / "memory" / "cards").glob("*.md")}
    run(open_vault_at(a), embedder, today="2026-03-11", only=("distill",))
    assert {p.name: p.read_bytes() for p in (a / "memory" / "cards").glob("*.md")} == cards


OLD_LOG = """# 2026-03-10

## 10:00 — Deploy keys
Lesson: deploy keys rotate on the first Monday of the month.

## 10:00 — Cache warmup
Lesson: the build cache warms up at noon.

## 11:30 — Unrelated
Just a note.
"""


def positional_vault(root: Path) -> Path:
    ok(root.parent, "init", str(root))
    (root / DAY).write_text(OLD_LOG, encoding="utf-8")
    (root / "memory" / "cards" / "noon-warmup.md").write_text(
        "---\ntopic: Noon warmup\ncategory: workflow\ntags: [ops]\ncreated: 2026-03-10\n"
        f"updated: 2026-03-10\nsources:\n  - {DAY}#10:00-2\n---\nThe cache warms up at noon.\n",
        encoding="utf-8",
    )
    commit(root, "an old vault")
    return root


def test_a_vault_of_positional_citations_is_migrated_once(tmp_path: Path) -> None:
    root = positional_vault(tmp_path / "old")
    assert cited_text(root, "noon-warmup") == "Lesson: the build cache warms up at noon."
    before = git(root, "rev-parse", "HEAD").strip()
    ok(root, "maintain", "--only", "promote,archive,index")
    subjects = git(root, "log", "--format=%s", f"{before}..HEAD").splitlines()
    migration = [s for s in subjects if "stable ids" in s]
    assert migration == ["log: give 3 entries stable ids; 1 citation(s) rewritten to them"]
    sha = git(root, "log", "--format=%H", "--grep=stable ids", "-1").strip()
    touched = git(root, "show", "--name-only", "--format=", sha).split()
    assert sorted(touched) == [DAY, "memory/cards/noon-warmup.md"]
    log = (root / DAY).read_text(encoding="utf-8")
    without_ids = "\n".join(line.split(" <!-- id:")[0] for line in log.split("\n"))
    assert without_ids == OLD_LOG  # only the headings changed
    assert all(e.entry_id for e in entries(root))
    card = (root / "memory" / "cards" / "noon-warmup.md").read_text(encoding="utf-8")
    assert "#10:00-2" not in card
    assert cited_text(root, "noon-warmup") == "Lesson: the build cache warms up at noon."
    again = git(root, "rev-parse", "HEAD").strip()
    ok(root, "maintain", "--only", "promote,archive,index")
    assert "stable ids" not in git(root, "log", "--format=%s", f"{again}..HEAD")
    assert_vault_sound(root)


def test_two_clones_that_migrate_the_same_entries_merge_cleanly(tmp_path: Path) -> None:
    """Ids given to old entries come from the entries' text: two clones that both migrate
    write the same bytes, so their merge has nothing to reconcile."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    a = positional_vault(tmp_path / "a")
    git(a, "remote", "add", "origin", str(remote))
    ok(a, "sync")
    b = tmp_path / "b"
    subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
    for root in (a, b):
        ok(root, "maintain", "--only", "promote,archive,index")
    ok(a, "sync"), ok(b, "sync"), ok(a, "sync")
    assert (a / DAY).read_bytes() == (b / DAY).read_bytes()
    assert len(entries(a)) == 3 and all(e.entry_id for e in entries(a))
    for root in (a, b):
        assert cited_text(root, "noon-warmup") == "Lesson: the build cache warms up at noon."
        assert_vault_sound(root)


COPIED_LOG = """# 2026-03-10

## 10:00 — Kafka consumer lag <!-- id:aaaaaa -->
Lesson: raise max.poll.interval.ms when batches are slow.

## 15:00 — Redis eviction <!-- id:aaaaaa -->
Lesson: set maxmemory-policy to allkeys-lru on the cache cluster.
"""


def test_an_entry_with_a_copied_id_is_given_its_own_and_is_not_lost(tmp_path: Path) -> None:
    """A heading copied in an editor repeats another entry's id. A citation of that id names
    the first entry, so the second must not pass for distilled with it: check reports it, and
    maintenance gives it an id of its own (the first keeps its id and its citation)."""
    root = tmp_path / "vault"
    ok(tmp_path, "init", str(root))
    (root / DAY).write_text(COPIED_LOG, encoding="utf-8")
    (root / "memory" / "cards" / "kafka-consumer-lag.md").write_text(
        "---\ntopic: Kafka consumer lag\ncategory: workflow\ntags: [kafka]\ncreated: 2026-03-10\n"
        f"updated: 2026-03-10\nsources:\n  - {DAY}#aaaaaa\n---\n"
        "Raise max.poll.interval.ms when batches are slow.\n",
        encoding="utf-8",
    )
    commit(root, "hand edits")
    checked = run_cli(["--vault", str(root), "check"], env={"CARDVAULT_NOW": NOW})
    assert f"{DAY}:6: warning: entry id aaaaaa is also the id of the entry at line 3" in (
        checked.output
    )
    ok(root, "maintain", "--only", "promote,archive,index")
    first, second = entries(root)
    assert first.entry_id == "aaaaaa" and second.entry_id not in (None, "aaaaaa")
    assert cited_text(root, "kafka-consumer-lag").startswith("Lesson: raise max.poll")
    stats = json.loads(ok(root, "stats", "--json"))
    assert stats["logs"]["undistilled"] == [f"{DAY}#{second.entry_id}"]
    assert "entry id" not in ok(root, "check")
    assert_vault_sound(root)


def test_a_log_written_with_crlf_line_ends_keeps_them(tmp_path: Path) -> None:
    """A log saved by a Windows editor: `log` appends in CRLF and giving the old entry its id
    keeps its heading's CRLF (both used to write LF, a file of mixed line ends); the ids are
    the ones the same log with LF line ends gets."""
    root = tmp_path / "v"
    ok(tmp_path, "init", str(root))
    hand = "# 2026-03-10\n\n## 09:00 — Deploy keys\nLesson: deploy keys rotate monthly.\n"
    (root / DAY).write_bytes(hand.replace("\n", "\r\n").encode())
    commit(root, "hand log")
    ok(root, "log", "Lesson: the build cache warms up at noon.", "--title", "Cache warmup")
    ok(root, "maintain", "--only", "index")  # gives the hand-written entry its id
    data = (root / DAY).read_bytes()
    assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b""), data
    found = entries(root)
    assert [(e.time, e.title) for e in found] == [
        ("09:00", "Deploy keys"),
        ("10:00", "Cache warmup"),
    ]
    assert found[0].entry_id is not None
    from cardvault.vault.entry_ids import stamped_log

    lf = stamped_log(hand, root / DAY).text
    assert found[0].entry_id in lf
