"""Every malformed input gets a clear `path:line` finding, and no file is touched."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.cli import run_cli, snapshot

GOOD_HEAD = (
    "---\ntopic: T\ncategory: tools\ntags: [a]\ncreated: 2026-01-01\nupdated: 2026-01-01\n---\n"
)

CASES: dict[str, tuple[bytes, str, int, str]] = {
    # name: (bytes, expected code, expected line, message fragment)
    "broken-yaml": (
        b"---\ntopic: T\ntags: [a, b\ncategory: tools\n---\nbody\n",
        "unreadable",
        4,
        "invalid YAML",
    ),
    "missing-keys": (b"---\ntopic: T\n---\nbody\n", "schema", 1, "missing required key 'category'"),
    "wrong-types": (
        b"---\ntopic: T\ncategory: tools\ntags: cortex\ncreated: yesterday\n"
        b"updated: 2026-01-01\n---\nb\n",
        "schema",
        4,
        "'tags' must be a list",
    ),
    "unknown-category": (
        GOOD_HEAD.replace("tools", "snacks").encode() + b"b\n",
        "schema",
        3,
        "unknown category",
    ),
    "bad-tag": (
        GOOD_HEAD.replace("[a]", "[Not OK]").encode() + b"b\n",
        "schema",
        4,
        "lowercase-hyphenated",
    ),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "unreadable", 3, "binary file"),
    "empty": (b"", "unreadable", 1, "empty file"),
    "bom": (b"\xef\xbb\xbf" + GOOD_HEAD.encode() + b"b\n", "unreadable", 1, "byte-order mark"),
    "latin1": (GOOD_HEAD.encode() + b"caf\xe9\n", "unreadable", 8, "not UTF-8"),
    "huge": (
        GOOD_HEAD.encode() + b"word " * 250_000,
        "unreadable",
        1,
        "over the 1,000,000-byte limit",
    ),
    "crlf": (GOOD_HEAD.replace("\n", "\r\n").encode() + b"b\r\n", "crlf", 1, "CRLF line endings"),
    "over-budget": (
        GOOD_HEAD.encode() + b"word " * 400 + b"\n",
        "card-budget",
        8,
        "over the budget of 350",
    ),
    "repeated-key": (  # YAML keeps the last silently: the card is "Again", not "T"
        GOOD_HEAD.replace("topic: T\n", "topic: T\ntopic: Again\n").encode() + b"b\n",
        "repeated-key",
        3,
        "'topic' is given again (line 2 gave it first); YAML keeps this one",
    ),
    "broken-link": (
        GOOD_HEAD.encode() + b"see [[no-such-card]]\n",
        "broken-link",
        8,
        "links to no card",
    ),
}


def run(vault: Path, *args: str) -> tuple[int, str]:
    result = run_cli(["--vault", str(vault), *args])
    return result.exit_code, result.stdout


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_card_is_reported_and_nothing_is_touched(vault_path: Path, name: str) -> None:
    data, code, line, fragment = CASES[name]
    (vault_path / "memory" / "cards" / f"{name}.md").write_bytes(data)
    before = snapshot(vault_path)
    exit_code, out = run(vault_path, "check", "--json")
    findings = json.loads(out)
    mine = [f for f in findings if f["path"] == f"memory/cards/{name}.md"]
    assert any(
        f["code"] == code and f["line"] == line and fragment in f["message"] for f in mine
    ), mine
    errors = [f for f in findings if f["severity"] == "error"]
    assert exit_code == (1 if errors else 0)
    assert snapshot(vault_path) == before


def test_text_output_uses_path_line_message(vault_path: Path) -> None:
    (vault_path / "memory" / "cards" / "broken.md").write_bytes(CASES["broken-yaml"][0])
    exit_code, out = run(vault_path, "check")
    assert exit_code == 1
    assert "memory/cards/broken.md:4: error: invalid YAML" in out


def test_long_curated_cards_are_one_note_distilled_ones_a_warning_each(vault_path: Path) -> None:
    """A note's length is its author's: the budget finding of hand-written and imported cards
    is one note; a card maintenance distilled from the log keeps its warning."""
    cards = vault_path / "memory" / "cards"
    long = "word " * 400 + "\n"
    for name in ("note-a", "note-b", "note-c"):
        (cards / f"{name}.md").write_text(GOOD_HEAD + long)
    imported = GOOD_HEAD.replace("---\n", "---\nimported: 2026-01-02\n", 1)
    (cards / "imported.md").write_text(imported + long)
    sources = "sources:\n  - memory/2026-01-01.md#ab12cd\n"
    (cards / "lesson.md").write_text(GOOD_HEAD.replace("updated:", sources + "updated:") + long)
    exit_code, out = run(vault_path, "check", "--json")
    budget = [f for f in json.loads(out) if f["code"] == "card-budget"]
    assert exit_code == 0
    notes = [f for f in budget if f["severity"] == "note"]
    assert len(notes) == 1 and "3 more imported or hand-written cards" in notes[0]["message"]
    assert [f["path"] for f in budget if f["severity"] == "warning"] == ["memory/cards/lesson.md"]
    _, text = run(vault_path, "check")
    assert "1 warning(s), 1 note(s)" in text


def test_duplicate_slugs_in_subfolders(vault_path: Path) -> None:
    cards = vault_path / "memory" / "cards"
    (cards / "infra").mkdir()
    (cards / "same.md").write_text(GOOD_HEAD + "one\n")
    (cards / "infra" / "same.md").write_text(GOOD_HEAD + "two\n")
    exit_code, out = run(vault_path, "check", "--json")
    dupes = [f for f in json.loads(out) if f["code"] == "duplicate-slug"]
    assert exit_code == 1
    assert {f["path"] for f in dupes} == {"memory/cards/same.md", "memory/cards/infra/same.md"}


def test_symlink_leaving_the_vault_is_refused(vault_path: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(GOOD_HEAD + "secret notes\n")
    os.symlink(outside, vault_path / "memory" / "cards" / "escape.md")
    exit_code, out = run(vault_path, "check", "--json")
    assert exit_code == 1
    assert any(f["code"] == "outside-vault" for f in json.loads(out))
    exit_code, out = run(vault_path, "list", "--json")
    assert "escape" not in out


@pytest.mark.parametrize("slug", ["../cardvault", "../../etc/passwd", "a/../../b", "UPPER"])
def test_slug_with_dot_dot_is_an_error_not_a_read(vault_path: Path, slug: str) -> None:
    result = run_cli(["--vault", str(vault_path), "show", slug])
    assert result.exit_code == 1
    assert "no card" in result.stderr or "invalid slug" in result.stderr


def test_new_with_a_hostile_topic_stays_inside(vault_path: Path) -> None:
    exit_code, _ = run(vault_path, "new", "../../etc/passwd", "-c", "tools", "--body", "x")
    assert exit_code == 0
    assert (vault_path / "memory" / "cards" / "etc-passwd.md").is_file()


def test_log_with_a_broken_log_file_reports_line(vault_path: Path) -> None:
    (vault_path / "memory" / "2026-01-02.md").write_bytes(b"# 2026-01-02\n\n## 10:00 \xff\n")
    exit_code, out = run(vault_path, "check", "--json")
    assert exit_code == 1
    [finding] = [f for f in json.loads(out) if f["path"] == "memory/2026-01-02.md"]
    assert finding["line"] == 3 and "not UTF-8" in finding["message"]


RECORD = "memory/forgotten/2026-12-01-abcdef.txt"
#: A forget record or a review queue that sync, maintain and forget read strictly (a problem
#: stops them, naming its line), as a clone may receive it: the bytes, or a symlink's target.
KEPT_FILES: dict[str, tuple[str, bytes | str, str, int, str]] = {
    # name: (path, bytes or a symlink's target, code, line, message fragment)
    "record-not-a-citation": (RECORD, b"#\nmemory/2026-12-01.md#zz\n", "unreadable", 2, "citation"),
    "record-not-utf8": (RECORD, b"memory/2026-12-01.md#abcdef\n\xff\n", "unreadable", 2, "UTF-8"),
    "record-linked-outside": (RECORD, "../../.git/config", "outside-vault", 1, "symlink"),
    "records-folder-linked": ("memory/forgotten", "../..", "outside-vault", 1, "symlink"),
    "queue-not-json": ("memory/review.jsonl", b"{not json\n", "unreadable", 1, "review item"),
}


@pytest.mark.parametrize("name", sorted(KEPT_FILES))
def test_a_forget_record_or_queue_that_stops_maintain_is_named_by_check(
    vault_path: Path, name: str
) -> None:
    """A forget record (memory/forgotten/) or review queue that a clone received damaged, or
    as a symlink, stops `maintain` at its line; `check` names that same line instead of saying
    the vault is clean, and touches nothing."""
    rel, content, code, line, fragment = KEPT_FILES[name]
    path = vault_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        os.symlink(content, path)
    else:
        path.write_bytes(content)
    before = snapshot(vault_path)
    exit_code, out = run(vault_path, "check", "--json")
    mine = [f for f in json.loads(out) if f["path"] == rel]
    assert exit_code == 1
    assert [(f["code"], f["line"]) for f in mine] == [(code, line)], mine
    assert fragment in mine[0]["message"]
    assert snapshot(vault_path) == before


def test_an_unresolved_merge_conflict_committed_is_an_error_but_one_shown_in_code_is_not(
    vault_path: Path,
) -> None:
    """A card and a log committed with git's conflict lines in them (a merge resolved by
    `git add` alone) pass every other rule; check names each marker line. A card about git that
    shows the markers in a code block is fine."""
    cards = vault_path / "memory" / "cards"
    head = "---\ntopic: {}\ncategory: tools\ntags: [git]\n"
    head += "created: 2026-03-19\nupdated: 2026-03-19\n---\n"
    conflicted = (
        "Deploy with make.\n<<<<<<< ours\nRun it twice.\n=======\nRun it once.\n>>>>>>> theirs\n"
    )
    (cards / "deploy.md").write_text(head.format("Deploy") + conflicted, encoding="utf-8")
    shown = "A conflict looks like:\n\n```\n<<<<<<< HEAD\nmine\n=======\nyours\n>>>>>>> main\n```\n"
    (cards / "git-conflicts.md").write_text(head.format("Git conflicts") + shown, encoding="utf-8")
    log = "# 2026-03-19\n\n## 10:00 — Deploy\n<<<<<<< HEAD\nIt failed.\n>>>>>>> b\n"
    (vault_path / "memory" / "2026-03-19.md").write_text(log, encoding="utf-8")
    result = run_cli(["--vault", str(vault_path), "check", "--json"])
    assert result.exit_code == 1, result.output
    found = [
        (f["path"], f["line"]) for f in json.loads(result.stdout) if f["code"] == "merge-marker"
    ]
    assert sorted(found) == [
        ("memory/2026-03-19.md", 4),
        ("memory/2026-03-19.md", 6),
        ("memory/cards/deploy.md", 9),
        ("memory/cards/deploy.md", 13),
    ]
