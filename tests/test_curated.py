"""Curated cards (hand-written, imported, merged by a person) are never changed by `maintain` on
its own; it asks, and only where one card's content is in the other's (issue 40). Real git
vaults, the real CLI, the real model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cardvault.vault.card import DISTILLED_KEY
from cardvault.vault.read import read_card
from cardvault.vault.sections import get_section
from tests.support.cli import cli_at, snapshot
from tests.support.maintain import PLATFORM_A, PLATFORM_B

pytestmark = pytest.mark.slow

NOW = "2026-06-01T09:15"

#: Sibling notes of one template: the same layout and stock lines, different content.
SIBLING = (
    "# {name}\n\nTags: [[Network Security]]\n\n"
    "An {name} watches the traffic of a network for known attack patterns and anomalies. "
    "When it finds one it {action}.\n\n"
    "## Types\n\n- Network-based ({short}) sits at a choke point of the network.\n"
    "- Host-based runs on each machine and reads its logs.\n\n"
    "See also [[{other}]].\n"
)
STOCK = "Tags: [[Network Security]]\n\nA page of the security notes, kept by hand.\n"
CHECKLIST = (
    "Before a release, run the migrations on a copy of production first.\n\n"
    "Tag the release only after the smoke tests pass on staging, and post the tag in #deploys."
)


def _notes(folder: Path) -> None:
    """A folder of notes to import: two template siblings, stock pages, and three copies of
    one checklist: two byte-identical, one older with other line breaks (the survivor of a
    merge: the earliest created); a note links to a copy."""
    folder.mkdir()
    pairs = (
        ("Intrusion Detection System", "raises an alert for a person to read", "NIDS",
         "Intrusion Prevention System"),
        ("Intrusion Prevention System", "drops the packets and blocks the sender", "NIPS",
         "Intrusion Detection System"),
    )  # fmt: skip
    for name, action, short, other in pairs:
        text = SIBLING.format(name=name, action=action, short=short, other=other)
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    for name in ("Firewalls", "Honeypots", "Port Knocking"):
        (folder / f"{name}.md").write_text(f"# {name}\n\n{STOCK}", encoding="utf-8")
    (folder / "Release Checklist.md").write_text(CHECKLIST + "\n", encoding="utf-8")
    (folder / "Release Checklist copy.md").write_text(CHECKLIST + "\n", encoding="utf-8")
    spaced = "---\ncreated: 2025-01-01\n---\n" + CHECKLIST.replace(", and", ",\nand") + "\n"
    (folder / "Release Checklist old.md").write_text(spaced, encoding="utf-8")
    (folder / "Deploys.md").write_text("Read [[Release Checklist copy]] first.\n", "utf-8")


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    cli_at(tmp_path, "init", str(root), "--quiet", now=NOW)
    for topic, body in (
        ("Docker platform flag", PLATFORM_A),
        ("Docker on Apple Silicon", PLATFORM_B),
    ):
        cli_at(root, "new", topic, "-c", "infrastructure", "-t", "docker", "--body", body,
               "--quiet", now=NOW)  # fmt: skip
    _notes(tmp_path / "notes")
    cli_at(root, "import", str(tmp_path / "notes"), "--quiet", now=NOW)
    return root


def _questions(root: Path) -> list[dict]:  # type: ignore[type-arg]
    return json.loads(cli_at(root, "review", "--json", now=NOW) or "[]")


def _found(root: Path, query: str) -> set[str]:
    hits = json.loads(cli_at(root, "search", query, "--json", "-k", "10", now=NOW))
    return {hit["path"] for hit in hits}


def test_near_curated_cards_survive_maintain_byte_identical(tmp_path: Path) -> None:
    """Hand-written look-alikes, template siblings and stock pages: no file changes, nothing
    merged, nothing asked about them (none says what another says)."""
    root = _vault(tmp_path)
    cards = root / "memory" / "cards"
    before = snapshot(cards)
    cli_at(root, "maintain", "--quiet", now=NOW)
    assert snapshot(cards) == before
    asked = [{Path(m["path"]).stem for m in q["members"]} for q in _questions(root)]
    assert all("release-checklist" in "".join(members) for members in asked), asked


def test_identical_imported_notes_are_asked_and_a_person_merges_them(tmp_path: Path) -> None:
    """Three copies of one note (one with other line breaks): `maintain` merges nothing and
    asks one question about the three, every copy a live card search finds; `review accept`
    makes them one card, curated, `seen: 1` (three notes are one sighting: no rule), the link
    to a merged-away copy rewritten."""
    root = _vault(tmp_path)
    cards = root / "memory" / "cards"
    rules_before = get_section((root / "AGENTS.md").read_text(encoding="utf-8"), "rules")
    cli_at(root, "maintain", "--quiet", now=NOW)
    copies = {"release-checklist", "release-checklist-copy", "release-checklist-old"}
    assert copies <= {p.stem for p in cards.rglob("*.md")}
    asked = [q for q in _questions(root) if q["kind"] == "duplicate"]
    assert [sorted(Path(m["path"]).stem for m in q["members"]) for q in asked] == [sorted(copies)]
    assert asked[0]["evidence"]["contained"] == 1.0
    found = _found(root, "run the migrations on a copy of production before a release")
    assert {f"memory/cards/{slug}.md" for slug in copies} <= found  # pending: all searchable
    cli_at(root, "review", "accept", asked[0]["id"], "--quiet", now=NOW)
    assert [p.stem for p in cards.rglob("*.md") if p.stem in copies] == ["release-checklist-old"]
    merged = read_card(next(cards.rglob("release-checklist-old.md")))
    assert set(merged.meta["merged_from"]) == {"release-checklist", "release-checklist-copy"}
    assert merged.seen == 1 and DISTILLED_KEY not in merged.meta
    assert merged.body.count("Tag the release only after") == 1
    deploys = read_card(next(cards.rglob("deploys.md"))).body
    assert "[[release-checklist-old" in deploys and "[[release-checklist-copy" not in deploys
    cli_at(root, "maintain", "--quiet", now=NOW)
    rules = get_section((root / "AGENTS.md").read_text(encoding="utf-8"), "rules")
    assert rules == rules_before


def test_distilled_cards_carry_their_mark_and_a_hand_edit_makes_them_curated(
    tmp_path: Path,
) -> None:
    root = tmp_path / "vault"
    cli_at(tmp_path, "init", str(root), "--quiet", now=NOW)
    lesson = "Lesson: KEYS walks every key in one blocking call; use SCAN with COUNT 1000 instead."
    cli_at(root, "log", lesson, "--title", "Redis stall", "--quiet", now=NOW)
    cli_at(root, "maintain", "--quiet", now=NOW)
    made = [read_card(p) for p in (root / "memory" / "cards").rglob("*.md")]
    distilled = [c for c in made if "KEYS" in c.body]
    assert len(distilled) == 1 and distilled[0].distilled
    path = distilled[0].path
    path.write_text(path.read_text(encoding="utf-8") + "\nChecked on Redis 7 too.\n", "utf-8")
    assert not read_card(path).distilled


def test_seen_after_a_merge_counts_distinct_sightings() -> None:
    """Never a sum over the cards: copies of a note are one sighting, a log entry two clones
    each distilled is one, what a hand-written card counts beyond its sources is kept once."""
    from cardvault.vault.card import parse_card, sightings

    def made(seen: int | None, *sources: str) -> Any:
        meta = f"seen: {seen}\n" if seen else ""
        meta += "sources: [" + ", ".join(sources) + "]\n" if sources else ""
        text = f"---\ntopic: t\ncategory: lessons\ntags: [t]\n{meta}---\nBody.\n"
        return parse_card(text, Path("t.md"))

    assert sightings([made(None) for _ in range(10)]) == 1
    assert sightings([made(2, "a", "b"), made(2, "b", "c")]) == 3
    assert sightings([made(1, "a"), made(1, "a")]) == 1
    assert sightings([made(2), made(1, "a")]) == 3


def test_an_imported_note_cannot_claim_to_be_distilled(tmp_path: Path) -> None:
    """A note's own `distilled:` (even the right digest) is kept as `note_distilled`: an
    imported note is curated."""
    from cardvault.vault.card import body_mark

    root = tmp_path / "vault"
    cli_at(tmp_path, "init", str(root), "--quiet", now=NOW)
    (tmp_path / "notes").mkdir()
    note = f"---\n{DISTILLED_KEY}: {body_mark(CHECKLIST)}\n---\n{CHECKLIST}\n"
    (tmp_path / "notes" / "Checklist.md").write_text(note, encoding="utf-8")
    cli_at(root, "import", str(tmp_path / "notes"), "--quiet", now=NOW)
    imported = read_card(next((root / "memory" / "cards").rglob("checklist.md")))
    assert not imported.distilled and imported.meta[f"note_{DISTILLED_KEY}"]


def test_template_lines_are_no_content_and_copies_are_no_template() -> None:
    """A line three pages share is their template's: pages alike only in it contain nothing of
    each other; three copies of one note are copies, not a template: each contains the other."""
    from cardvault.maintain.contained import contained_shares

    pages = [
        f"# {n}\n\n{STOCK}\n{n} listens on port {p}." for n, p in (("A", 1), ("B", 2), ("C", 3))
    ]
    shares = contained_shares(pages, [(0, 1)], None, 0.7)[(0, 1)]
    assert (shares[0].said, shares[1].said) == (0.0, 0.0)
    copies = [CHECKLIST, CHECKLIST, CHECKLIST.replace(", and", ",\nand")]
    shares = contained_shares(copies, [(0, 2)], None, 0.7)[(0, 2)]
    assert (shares[0].said, shares[1].said) == (1.0, 1.0)
