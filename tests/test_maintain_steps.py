"""The steps that need no model: promote, archive, the MEMORY.md index; and by-hand commands."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

import pytest

from cardvault.edits.apply import apply_changes
from cardvault.edits.changes import MoveFile, Report, WriteFile
from cardvault.edits.door import Door
from cardvault.errors import CardvaultError
from cardvault.maintain import archive, memory_index, promote
from cardvault.maintain.by_hand import archive_card, demote_card, promote_card
from cardvault.maintain.state import load_state
from cardvault.vault.read import read_card
from cardvault.vault.sections import get_section
from tests.support.maintain import card, commit_all, git, log, new_vault

TODAY = dt.date(2026, 11, 30)


@pytest.fixture
def vault(tmp_path: Path):  # type: ignore[no-untyped-def]
    vault = new_vault(tmp_path / "v")
    # lessons the logs told: promotion reads their sightings (log entries they cite)
    told = [(t, "Upload failed", "Lesson: Retry the upload twice.") for t in ("09:00", "10:00")]
    told.append(("11:00", "Upload failed again", "Lesson: Retry the upload twice, then stop."))
    told.append(("12:00", "Migration by hand", "Lesson: Never run migrations by hand."))
    log(vault, "2026-11-01", told)
    sources = "".join(f"  - memory/2026-11-01.md#{t}\n" for t in ("09:00", "10:00", "11:00"))
    card(
        vault,
        "often-seen",
        "Often Seen",
        "Retry the upload twice. Then give up.",
        extra=f"seen: 3\nsources:\n{sources}",
        updated="2026-11-01",
    )
    card(
        vault,
        "severe",
        "Severe",
        "Never run migrations by hand.",
        extra="severity: high\nsources:\n  - memory/2026-11-01.md#12:00\n",
        updated="2026-11-01",
    )
    card(vault, "once", "Once", "A thing seen once.", updated="2026-11-20")
    card(vault, "stale", "Stale", "Old news.", updated="2026-03-01")
    card(
        vault,
        "stale-but-used",
        "Stale But Used",
        "Old, still read.",
        updated="2026-01-01",
        extra="last_used: 2026-11-02\n",
    )
    rule = "status: promoted\npromoted: 2026-01-01\nrule: Keep the rule line short.\n"
    card(
        vault,
        "stale-promoted",
        "Stale Promoted",
        "Keep this rule.",
        updated="2026-01-01",
        extra=rule,
    )
    record = "- Keep the rule line short. (memory/cards/stale-promoted.md)"
    agents = vault.agents_md.read_text(encoding="utf-8")
    begin = "<!-- cardvault:begin rules -->\n"
    vault.agents_md.write_text(agents.replace(begin, begin + record + "\n"), encoding="utf-8")
    commit_all(vault)
    return vault


def test_promote_due_cards_and_write_sorted_rule_lines(vault) -> None:  # type: ignore[no-untyped-def]
    state = load_state(vault, TODAY)
    changes = promote.step(state, vault.config)
    reasons = [c.reason for c in changes if isinstance(c, WriteFile)]
    assert "promoted often-seen (seen 3 times)" in reasons
    assert "promoted severe (severity high)" in reasons
    assert not any(r.split()[1:2] in (["once"], ["stale-promoted"]) for r in reasons)
    after = state.after(changes)
    section = get_section(after.agents.text, "rules")
    assert section is not None
    lines = section.splitlines()
    assert lines == sorted(lines, key=lambda line: (line.casefold(), line))
    assert "- Keep the rule line short. (memory/cards/stale-promoted.md)" in lines
    # the rule is the lesson the logs told first, not the card's first line
    assert "- Retry the upload twice. (memory/cards/often-seen.md)" in lines
    assert "- Never run migrations by hand. (memory/cards/severe.md)" in lines
    promoted = read_card_text(after, "often-seen")
    assert "status: promoted" in promoted and "promoted: 2026-11-30" in promoted
    # nothing outside the managed section changed
    before_agents = state.agents.text
    begin = before_agents.index("<!-- cardvault:begin rules -->")
    assert after.agents.text[:begin] == before_agents[:begin]


def read_card_text(state, slug: str) -> str:  # type: ignore[no-untyped-def]
    found = state.by_slug(slug)
    assert found is not None
    return found.file.text


def test_promote_is_stable_when_nothing_is_due(vault) -> None:  # type: ignore[no-untyped-def]
    state = load_state(vault, TODAY)
    first = promote.step(state, vault.config)
    apply_changes(vault, first)
    assert promote.step(load_state(vault, TODAY), vault.config) == []


def test_hand_promote_demote_round_trip(vault) -> None:  # type: ignore[no-untyped-def]
    result = Door(vault).land(promote_card(vault, "once", TODAY, rule="Check once,\n  then twice."))
    assert result.commit is not None and result.commit.recorded
    agents = vault.agents_md.read_text(encoding="utf-8")
    assert "- Check once, then twice. (memory/cards/once.md)" in agents
    assert read_card(vault.card_path("once")).status == "promoted"
    assert git(vault.root, "log", "-1", "--format=%s").strip() == "promote: once"

    Door(vault).land(demote_card(vault, "once", TODAY))
    demoted = read_card(vault.card_path("once"))
    assert demoted.status == "active" and demoted.meta.get("demoted") == TODAY
    assert "memory/cards/once.md" not in vault.agents_md.read_text(encoding="utf-8")
    # a demoted card is not promoted again by the next run, even when it is seen often
    state = load_state(vault, TODAY)
    assert promote.due(state.by_slug("once"), replace(vault.config, promote_threshold=1)) is None
    with pytest.raises(CardvaultError, match="not promoted"):
        Door(vault).land(demote_card(vault, "once", TODAY))


def test_archive_moves_only_stale_unpromoted_cards(vault) -> None:  # type: ignore[no-untyped-def]
    state = load_state(vault, TODAY)
    changes = archive.step(state, vault.config)
    moved = [c for c in changes if isinstance(c, MoveFile)]
    assert [c.source.stem for c in moved] == ["stale"]
    assert moved[0].target == vault.archive_dir / "stale.md"
    assert "status: archived" in moved[0].new_text
    # one day earlier in the year nothing is stale yet
    early = load_state(vault, dt.date(2026, 8, 27))
    assert archive.step(early, vault.config) == []


def test_archive_by_hand_refuses_promoted_cards(vault) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CardvaultError, match="demote"):
        Door(vault).land(archive_card(vault, "stale-promoted", TODAY))
    result = Door(vault).land(archive_card(vault, "once", TODAY))
    assert (vault.archive_dir / "once.md").exists() and not vault.card_path("once").exists()
    assert result.commit is not None
    assert "once" not in get_section(vault.memory_md.read_text(encoding="utf-8"), "categories")


def test_archive_never_overwrites_an_archived_card(vault) -> None:  # type: ignore[no-untyped-def]
    card(vault, "stale", "Stale (old copy)", "Older news.", folder="archive")
    state = load_state(vault, TODAY)
    changes = archive.step(state, vault.config)
    assert [type(c) for c in changes] == [Report]


def test_index_table_fits_the_byte_budget_and_keeps_hand_text(vault) -> None:  # type: ignore[no-untyped-def]
    for number in range(40):
        card(vault, f"filler-{number}", f"Filler card number {number} with a long topic", "Body.",
             category=("tools", "workflow", "projects")[number % 3])  # fmt: skip
    state = load_state(vault, TODAY)
    before = state.memory.text
    tight = replace(vault.config, memory_byte_budget=len(before.encode("utf-8")) + 400)
    changes = memory_index.step(state, tight)
    text = changes[0].new_text
    assert len(text.encode("utf-8")) <= tight.memory_byte_budget
    table = get_section(text, "categories")
    assert "| tools | 20 |" in table and "| workflow | 13 |" in table and "more |" in table
    start, end = (
        before.index("<!-- cardvault:begin categories -->"),
        before.index("<!-- cardvault:end categories -->"),
    )
    assert text.startswith(before[:start]) and text.endswith(before[end:])
    # a generous budget shows more topics, a tiny one folds categories away and reports it
    roomy = memory_index.step(state, replace(vault.config, memory_byte_budget=20_000))[0].new_text
    assert roomy.count("](memory/cards/") > text.count("](memory/cards/")
    tiny = memory_index.step(state, replace(vault.config, memory_byte_budget=100))
    assert any(isinstance(c, Report) and c.kind == "over-budget" for c in tiny)


def test_index_is_unchanged_when_current(vault) -> None:  # type: ignore[no-untyped-def]
    state = load_state(vault, TODAY)
    apply_changes(vault, memory_index.step(state, vault.config))
    assert memory_index.step(load_state(vault, TODAY), vault.config) == []
