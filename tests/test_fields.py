"""The field table (vault/fields.py) is the one declaration of a card's fields: a row added to
it is read by the parser, the schema check, the frontmatter writer, the merge driver,
maintenance's merge, note import and export/import, with no other file touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardvault.app.vaults import init_vault
from cardvault.cli.app import app
from cardvault.maintain.merge import merged_meta
from cardvault.maintain.state import CardFile
from cardvault.sync.merge_card import merge_card
from cardvault.vault import fields
from cardvault.vault.card import parse_card, update_card_text
from cardvault.vault.fields import FOLD, LIST, UNION, Field
from cardvault.vault.files import FileText, digest_text
from cardvault.vault.schema import schema_problems

#: A field cardvault does not have: who reviewed the card, unioned like `sources`.
REVIEWERS = Field("reviewers", LIST, sync=UNION, fold=UNION, by=FOLD, block=True)
NOW = {"CARDVAULT_NOW": "2026-11-30T09:15"}
CATEGORIES = ("lessons", "tools")


def card_text(extra: str = "", body: str = "Pin the base image by digest.") -> str:
    return (
        "---\ntopic: Pin base images\ncategory: tools\ntags: [docker]\ncreated: 2026-03-19\n"
        f"updated: 2026-03-19\n{extra}---\n{body}\n"
    )


@pytest.fixture
def reviewers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table with one more row, as a contributor adding the field would write it."""
    monkeypatch.setattr(fields, "FIELDS", (*fields.FIELDS, REVIEWERS))


def cli(root: Path, *args: str) -> str:
    result = CliRunner().invoke(app, ["--vault", str(root), *args], env=NOW)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_key_not_in_the_table_is_the_users() -> None:
    """Without the row: any value is accepted, and two clones' changes are a conflict."""
    meta = parse_card(card_text("reviewers: 3\n"), Path("x.md")).meta
    assert schema_problems(meta, CATEGORIES) == []
    base = card_text("reviewers: [ann]\n")
    merged = merge_card(
        base,
        card_text("reviewers: [ann, bob]\n"),
        card_text("reviewers: [ann, cy]\n"),
        Path("x.md"),
    )
    assert merged.conflicts == 1


@pytest.mark.usefixtures("reviewers")
def test_one_row_is_checked_written_and_merged() -> None:
    path = Path("memory/cards/pin-base-images.md")
    bad = parse_card(card_text("reviewers: ann\n"), path)
    assert schema_problems(bad.meta, CATEGORIES) == [("reviewers", "'reviewers' must be a list")]

    base = card_text("reviewers: [ann]\n")
    ours = update_card_text(base, {"reviewers": ["ann", "bob"]}, path=path)
    assert "reviewers:\n- ann\n- bob\n" in ours  # a block list: each addition its own diff line
    theirs = update_card_text(base, {"reviewers": ["ann", "cy"]}, path=path)
    merged = merge_card(base, ours, theirs, path)
    assert merged.conflicts == 0
    assert parse_card(merged.text, path).meta["reviewers"] == ["ann", "bob", "cy"]

    keep, other = (
        CardFile(
            FileText(Path(f"{slug}.md"), text, digest_text(text)), parse_card(text, path), False
        )
        for slug, text in (("a", ours), ("b", theirs))
    )
    assert merged_meta(keep, [other])["reviewers"] == ["ann", "bob", "cy"]


@pytest.mark.slow  # import places each card by the real model
@pytest.mark.usefixtures("reviewers")
def test_one_row_is_carried_by_export_and_both_imports(vault_path: Path, tmp_path: Path) -> None:
    card = vault_path / "memory" / "cards" / "pin-base-images.md"
    card.write_text(card_text("reviewers:\n- ann\n"), encoding="utf-8")
    exported = tmp_path / "out.json"
    cli(vault_path, "export", str(exported))
    data = json.loads(exported.read_text(encoding="utf-8"))
    assert [c["meta"]["reviewers"] for c in data["cards"]] == [["ann"]]

    other = tmp_path / "other"
    init_vault(other)
    cli(other, "import", str(exported))
    assert (other / "memory" / "cards" / "pin-base-images.md").read_text(encoding="utf-8") == (
        card.read_text(encoding="utf-8")
    )

    data["cards"][0]["text"] = card_text("reviewers: ann\n")
    exported.write_text(json.dumps(data), encoding="utf-8")
    refused = CliRunner().invoke(app, ["--vault", str(other), "import", str(exported)], env=NOW)
    assert refused.exit_code != 0 and "'reviewers' must be a list" in refused.output

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "Pinning.md").write_text("---\nreviewers: someone\n---\nPin by digest.\n")
    cli(other, "import", str(notes))
    (made,) = [
        p for p in (other / "memory" / "cards").rglob("*.md") if "Pin by digest" in p.read_text()
    ]
    imported = parse_card(made.read_text(encoding="utf-8"), made)
    assert imported.meta["note_reviewers"] == "someone" and "reviewers" not in imported.meta
