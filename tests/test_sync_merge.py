"""The merge drivers on their own: daily logs, cards, MEMORY.md/AGENTS.md, and the driver entry."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cardvault.sync.driver import main as driver_main
from cardvault.sync.merge_card import carry_into, merge_card, merge_meta, union
from cardvault.sync.merge_log import merge_log
from cardvault.sync.merge_managed import merge_managed
from cardvault.vault.card import parse_card

LOG = Path("memory/2026-03-19.md")
CARD = Path("memory/cards/shared.md")


def _log(*entries: tuple[str, str]) -> str:
    body = "\n\n".join(f"## {time} — {title}\n{title} body" for time, title in entries)
    return "# 2026-03-19\n\n" + body + ("\n" if entries else "")


def test_both_sides_appended_keeps_every_entry_once_in_time_order() -> None:
    base = _log(("09:00", "first"))
    ours = _log(("09:00", "first"), ("10:00", "ours a"), ("12:00", "ours b"))
    theirs = _log(("09:00", "first"), ("11:00", "theirs"), ("13:00", "theirs late"))
    merged = merge_log(base, ours, theirs, LOG)
    assert merged.conflicts == 0
    assert merged.text == _log(
        ("09:00", "first"),
        ("10:00", "ours a"),
        ("11:00", "theirs"),
        ("12:00", "ours b"),
        ("13:00", "theirs late"),
    )


def test_the_same_entry_added_on_both_sides_is_kept_once() -> None:
    base = _log()
    both = _log(("10:00", "same"))
    merged = merge_log(base, both + "\n## 11:00 — mine\nmine body\n", both, LOG)
    assert merged.text.count("## 10:00 — same") == 1 and "## 11:00 — mine" in merged.text


def test_an_entry_removed_on_one_side_stays_removed() -> None:
    base = _log(("09:00", "secret"), ("10:00", "keep"))
    ours = _log(("09:00", "secret"), ("10:00", "keep"), ("11:00", "new"))
    theirs = _log(("10:00", "keep"))  # forget removed it there
    merged = merge_log(base, ours, theirs, LOG)
    assert "secret" not in merged.text and "## 11:00 — new" in merged.text


def test_a_heading_inside_a_code_block_is_not_an_entry() -> None:
    base = _log(("09:00", "first"))
    fenced = "## 10:00 — code\n~~~\n## 10:30 — not an entry\n~~~\n"
    ours = base + "\n" + fenced
    theirs = base + "\n## 11:00 — theirs\ntheirs body\n"
    merged = merge_log(base, ours, theirs, LOG)
    assert fenced.rstrip() in merged.text and merged.text.index("10:30") < merged.text.index(
        "11:00"
    )


def _card(meta: str, body: str) -> str:
    return f"---\n{meta.strip()}\n---\n{body}"


BASE_META = """topic: Shared
category: tools
tags: [a]
created: 2026-03-01
updated: 2026-03-01
seen: 2
sources:
- memory/2026-03-01.md#09:00
"""


def test_different_keys_edited_on_each_side_merge_without_markers() -> None:
    base = _card(BASE_META, "One.\nTwo.\nThree.\n")
    ours = _card(BASE_META.replace("tags: [a]", "tags: [a, b]").replace("seen: 2", "seen: 3")
                 .replace("#09:00\n", "#09:00\n- memory/2026-03-02.md#10:00\n"),
                 "One (ours).\nTwo.\nThree.\n")  # fmt: skip
    theirs = _card(BASE_META.replace("tags: [a]", "tags: [a, c]").replace("seen: 2", "seen: 3")
                   .replace("updated: 2026-03-01", "updated: 2026-03-05\nseverity: high")
                   .replace("#09:00\n", "#09:00\n- memory/2026-03-04.md#11:00\n"),
                   "One.\nTwo.\nThree (theirs).\n")  # fmt: skip
    merged = merge_card(base, ours, theirs, CARD)
    assert merged.conflicts == 0 and "<<<<<<<" not in merged.text
    card = parse_card(merged.text, CARD)
    assert card.meta["tags"] == ["a", "b", "c"]
    assert str(card.meta["updated"]) == "2026-03-05" and card.meta["severity"] == "high"
    assert card.meta["seen"] == 4  # one recurrence on each side
    assert len(card.meta["sources"]) == 3
    assert card.body == "One (ours).\nTwo.\nThree (theirs).\n"


def test_the_same_source_distilled_on_both_sides_counts_once() -> None:
    added = "- memory/2026-03-02.md#10:00\n"
    both = BASE_META.replace("seen: 2", "seen: 3").replace("#09:00\n", "#09:00\n" + added)
    base = _card(BASE_META, "Body.\n")
    merged = merge_card(
        base,
        _card(both.replace("tags: [a]", "tags: [a, x]"), "Body.\n"),
        _card(both, "B2.\n"),
        CARD,
    )
    assert parse_card(merged.text, CARD).meta["seen"] == 3


def test_a_fold_carried_into_the_survivor_counts_a_source_it_cites_once() -> None:
    """One side merged the card into `survivor`, which cites entry #10:00 already; the other
    folded #10:00 and #11:00 into the card: only #11:00 is a new sighting of the survivor."""
    folded = BASE_META.replace("seen: 2", "seen: 4").replace(
        "#09:00\n", "#09:00\n- memory/2026-03-02.md#10:00\n- memory/2026-03-02.md#11:00\n"
    )
    survivor = BASE_META.replace("seen: 2", "seen: 3").replace(
        "#09:00\n", "#09:00\n- memory/2026-03-02.md#10:00\n"
    )
    carried = carry_into(_card(BASE_META, "Body.\n"), _card(folded, "Body.\n"),
                         _card(survivor, "Body.\n"), CARD)  # fmt: skip
    assert carried is not None
    card = parse_card(carried, CARD)
    assert card.seen == 4 and len(card.sources) == 3


def test_both_sides_rewrote_the_same_body_line_is_a_conflict() -> None:
    base = _card(BASE_META, "One.\nTwo.\n")
    merged = merge_card(base, _card(BASE_META, "One (ours).\nTwo.\n"),
                        _card(BASE_META, "One (theirs).\nTwo.\n"), CARD)  # fmt: skip
    assert merged.conflicts == 1
    assert "<<<<<<< ours\nOne (ours).\n=======\nOne (theirs).\n>>>>>>> theirs" in merged.text


def test_a_key_both_sides_set_differently_is_marked() -> None:
    base = _card(BASE_META, "Body.\n")
    merged = merge_card(base, _card(BASE_META + "status: promoted\n", "Body.\n"),
                        _card(BASE_META + "status: archived\n", "Body.\n"), CARD)  # fmt: skip
    assert merged.conflicts == 1
    assert "<<<<<<< ours\nstatus: promoted\n=======\nstatus: archived\n>>>>>>> theirs" in (
        merged.text
    )


def test_meta_rules() -> None:
    merged, conflicts = merge_meta(
        {"created": "2026-03-05", "aliases": ["x", "y"]},
        {"created": "2026-03-01", "aliases": ["x", "y", "z"]},
        {"created": "2026-03-03", "aliases": ["y"]},
    )
    assert merged == {"created": "2026-03-01", "aliases": ["y", "z"]} and conflicts == []
    assert union(["a"], ["a", "b"], ["c"]) == ["b", "c"]


def test_an_unparseable_side_is_merged_as_text() -> None:
    base = "no frontmatter\nline\n"
    merged = merge_card(
        base, "no frontmatter\nline\nours\n", "theirs\nno frontmatter\nline\n", CARD
    )
    assert merged.conflicts == 0 and merged.text == "theirs\nno frontmatter\nline\nours\n"


AGENTS = """# AGENTS.md

Hand-written intro.

## Learned rules
<!-- cardvault:begin rules -->
{rules}
<!-- cardvault:end rules -->

Footer.
"""


def test_rules_sections_merge_as_sets_and_hand_text_three_way() -> None:
    base = AGENTS.format(rules="- keep (memory/cards/k.md)\n- old (memory/cards/o.md)")
    rules = "- keep (memory/cards/k.md)\n- ours (memory/cards/a.md)\n- old (memory/cards/o.md)"
    ours = AGENTS.format(rules=rules).replace("Hand-written intro.", "Intro, ours.")
    theirs = AGENTS.format(rules="- keep (memory/cards/k.md)\n- theirs (memory/cards/t.md)")
    theirs = theirs.replace("Footer.", "Footer, theirs.")
    merged = merge_managed(base, ours, theirs, Path("AGENTS.md"))
    assert merged.conflicts == 0
    assert "Intro, ours." in merged.text and "Footer, theirs." in merged.text
    assert (
        "- ours (memory/cards/a.md)" in merged.text
        and "- theirs (memory/cards/t.md)" in merged.text
    )
    assert "- old" not in merged.text  # removed on their side (demoted)


def test_the_driver_writes_the_merge_into_ours(tmp_path: Path) -> None:
    files = {}
    for name, text in (
        ("base", _log(("09:00", "first"))),
        ("ours", _log(("09:00", "first"), ("10:00", "ours"))),
        ("theirs", _log(("09:00", "first"), ("11:00", "theirs"))),
    ):
        files[name] = tmp_path / name
        files[name].write_text(text, encoding="utf-8")
    code = driver_main(
        ["log", str(files["base"]), str(files["ours"]), str(files["theirs"]), str(LOG)]
    )
    assert code == 0
    assert files["ours"].read_text(encoding="utf-8") == _log(
        ("09:00", "first"), ("10:00", "ours"), ("11:00", "theirs")
    )


def test_the_driver_runs_as_a_module(tmp_path: Path) -> None:
    for name, text in (("o", "a\n"), ("a", "a\nours\n"), ("b", "theirs\na\n")):
        (tmp_path / name).write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "cardvault.sync.driver", "card", *(str(tmp_path / n) for n in "oab"),
         "memory/cards/x.md"], check=False,
    )  # fmt: skip
    assert done.returncode == 0
    assert (tmp_path / "a").read_text(encoding="utf-8") == "theirs\na\nours\n"


def test_hot_memory_keeps_every_fragment_once_in_time_order() -> None:
    from cardvault.sync.merge_lines import merge_lines

    head = "# Hot memory: ada\n\n"
    base = head + "- 2026-03-19 09:00 first\n- 2026-03-19 09:30 moved to the log\n"
    ours = base + "- 2026-03-19 10:00 ours\n"
    theirs = head + "- 2026-03-19 09:00 first\n- 2026-03-19 09:45 theirs\n"
    merged = merge_lines(base, ours, theirs, Path("memory/agents/ada.md"))
    assert merged.conflicts == 0
    assert merged.text == head + (
        "- 2026-03-19 09:00 first\n- 2026-03-19 09:45 theirs\n- 2026-03-19 10:00 ours\n"
    )


def test_a_crlf_log_merged_stays_crlf_with_every_entry_once() -> None:
    """A log written on Windows keeps CRLF when cardvault appends to it (5b3285c); two clones
    that both appended to it came out of the log driver with LF after each entry and after
    the title: the file of mixed line ends appending was fixed to avoid."""
    base = "# 2026-03-02\r\n\r\n## 09:00 — a <!-- id:aaaaaa -->\r\n\r\nLesson: one\r\nmore\r\n"
    ours = base + "\r\n## 10:00 — b <!-- id:bbbbbb -->\r\n\r\nLesson: two\r\n"
    theirs = base + "\r\n## 11:00 — c <!-- id:cccccc -->\r\n\r\nLesson: three\r\n"
    merged = merge_log(base, ours, theirs, Path("memory/2026-03-02.md"))
    lf = merge_log(
        *(t.replace("\r\n", "\n") for t in (base, ours, theirs)), Path("memory/2026-03-02.md")
    )
    assert merged.conflicts == 0 and "\n" not in merged.text.replace("\r\n", "")
    assert merged.text == lf.text.replace("\n", "\r\n")
