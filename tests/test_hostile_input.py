"""Hostile and broken input through every read command and `maintain --dry-run`: no traceback,
no hang, exit 0 or 1, and a finding or warning naming the file.

Hypothesis writes frontmatter (alias bombs, nesting past every limit, impossible dates, wrong
types, NUL, control characters), daily logs (impossible times and dates, huge entries, links out
of the vault, damaged encodings) and export files (wrong shapes at every level, paths out of the
vault, NUL and lone surrogates, rules that would break AGENTS.md) into a small real vault; each
example runs the commands in-process with a hang guard (tests/support/hostile.py). Sized to
seconds; benchmarks/hostile.py runs the same generators at a larger size and measures time and
peak memory per command in fresh processes.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.hostile import (
    MEMORY_LIMIT_MB,
    READ_COMMANDS,
    alias_bomb,
    card_bytes,
    export_bytes,
    export_data,
    log_file,
    make_base,
    problems_of,
    run,
    run_in_process,
    worst_vault,
)

#: Examples per fuzz test; `CARDVAULT_FUZZ_EXAMPLES=200 pytest tests/test_hostile_input.py`
#: runs the long version (benchmarks/hostile.py measures time and memory per command).
EXAMPLES = int(os.environ.get("CARDVAULT_FUZZ_EXAMPLES", "5"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_base(tmp_path_factory.mktemp("hostile") / "base")


def fresh(base: Path, tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(base, root)
    return root


@FUZZ
@given(st.lists(card_bytes(), min_size=1, max_size=3), st.lists(log_file(), max_size=2))
def test_hostile_cards_and_logs_never_crash_a_read_command(
    base: Path, tmp_path: Path, cards: list[bytes], logs: list[tuple[str, bytes]]
) -> None:
    root = fresh(base, tmp_path, "fuzzed")
    for number, data in enumerate(cards):
        (root / "memory" / "cards" / f"hostile-{number}.md").write_bytes(data)
    for stem, data in logs:
        (root / "memory" / f"{stem}.md").write_bytes(data)
    assert problems_of([run(root, *args) for args in READ_COMMANDS]) == []
    checked = run(root, "check")
    assert checked.exit_code in (0, 1)
    for number, _ in enumerate(cards):  # every damaged card is named by check, with a line
        name = f"memory/cards/hostile-{number}.md"
        assert name in checked.output or _reads_back_clean(root / name)


def _reads_back_clean(path: Path) -> bool:
    """Whether the card parses and breaks no schema rule (check then has nothing to say)."""
    from cardvault.errors import CardvaultError
    from cardvault.vault.read import read_card
    from cardvault.vault.schema import schema_problems

    try:
        card = read_card(path)
    except CardvaultError:
        return False
    return not schema_problems(card.meta, ["tools"])


@FUZZ
@given(export_data(), st.sampled_from(["plain", "plain", "deep", "truncated", "latin1"]))
def test_fuzzed_export_files_are_refused_or_imported_cleanly(
    base: Path, tmp_path: Path, data: object, how: str
) -> None:
    root = fresh(base, tmp_path, "importer")
    source = tmp_path / "export.json"
    source.write_bytes(export_bytes(data, how))
    runs = [
        run(root, "import", "--dry-run", str(source)),
        run(root, "import", "--partial", "--redact", str(source)),
    ]
    assert problems_of(runs) == []
    assert problems_of([run(root, *args) for args in (("check",), ("list",), ("context",))]) == []
    for path in (root / "memory").rglob("*.md"):  # whatever was written reads back
        data_bytes = path.read_bytes()
        assert b"\x00" not in data_bytes and not data_bytes.startswith(b"\xef\xbb\xbf")
        data_bytes.decode("utf-8")
    agents = (root / "AGENTS.md").read_text(encoding="utf-8")
    assert agents.count("<!-- cardvault:begin rules -->") <= 1
    assert agents.count("<!-- cardvault:end rules -->") <= 1
    assert not (tmp_path / "escape.md").exists() and not (root.parent / "escape.md").exists()


def test_the_482_byte_alias_bomb_in_tags_is_a_finding_everywhere(
    base: Path, tmp_path: Path
) -> None:
    root = fresh(base, tmp_path, "bomb")
    front = "topic: Bomb\ncategory: tools\n" + alias_bomb(9, 9)
    text = f"---\n{front}\ncreated: 2026-01-01\nupdated: 2026-01-01\n---\nbody\n"
    (root / "memory" / "cards" / "bomb.md").write_text(text)
    runs = [run(root, *args) for args in READ_COMMANDS]
    assert problems_of(runs) == []
    checked = next(r for r in runs if r.args == ("check",))
    assert checked.exit_code == 1 and "memory/cards/bomb.md:" in checked.output
    assert "alias bomb" in checked.output
    listed = next(r for r in runs if r.args == ("list",))
    assert "bomb.md" in listed.output  # a warning names the skipped card


def test_an_impossible_date_is_a_finding_for_check_and_the_card_still_reads(
    base: Path, tmp_path: Path
) -> None:
    root = fresh(base, tmp_path, "date")
    card = root / "memory" / "cards" / "nginx-upload-size-limit.md"
    card.write_text(card.read_text().replace("created: 2026-", "created: 2026-02-30 #", 1))
    runs = [run(root, *args) for args in READ_COMMANDS]
    assert problems_of(runs) == []
    checked = next(r for r in runs if r.args == ("check",))
    assert "memory/cards/nginx-upload-size-limit.md:5: error: 'created' must be an ISO date" in (
        checked.output
    )
    shown = next(r for r in runs if r.args[0] == "show")
    assert shown.exit_code == 0


def test_an_export_with_rules_that_would_break_agents_md_is_refused(
    base: Path, tmp_path: Path
) -> None:
    root = fresh(base, tmp_path, "rules")
    before = (root / "AGENTS.md").read_text()
    source = tmp_path / "rules.json"
    rules = ["- ok rule", "- a\n- b", "x <!-- cardvault:end rules --> y"]
    data = {"format": "cardvault-export", "version": 1, "cards": [], "rules": rules}
    source.write_text(json.dumps(data))
    refused = run(root, "import", str(source))
    assert refused.exit_code == 1
    assert "rule 2: must be one line" in refused.output
    assert "rule 3: holds a cardvault section marker" in refused.output
    assert (root / "AGENTS.md").read_text() == before
    partial = run(root, "import", "--partial", str(source))
    assert partial.exit_code == 0, partial.output
    after = (root / "AGENTS.md").read_text()
    assert "- ok rule" in after and "- b" not in after.replace("- ok rule", "")
    assert problems_of([run(root, "maintain", "--dry-run"), run(root, "context")]) == []


def test_import_partial_of_a_file_with_nothing_valid_says_so(base: Path, tmp_path: Path) -> None:
    root = fresh(base, tmp_path, "nothing")
    source = tmp_path / "bad.json"
    item = {"path": "../../x.md", "text": "\x00"}
    source.write_text(json.dumps({"format": "cardvault-export", "version": 1, "cards": [item]}))
    outcome = run(root, "import", "--partial", str(source))
    assert outcome.exit_code == 1
    assert "no item in bad.json is valid" in outcome.output
    assert "already has" not in outcome.output


def test_a_big_export_reimports(base: Path, tmp_path: Path) -> None:
    """Past the old 1 MB limit (a 1,500-card export was 2.4 MB): 2,000 cards, ~3 MB, into a
    vault without cards (so no card needs the model to find its nearest)."""
    root = fresh(base, tmp_path, "big")
    for card in (root / "memory" / "cards").iterdir():
        card.unlink()
    cards = [
        {"path": f"memory/cards/bulk-{n}.md", "text": CARD.format(n=n, pad="word " * 250)}
        for n in range(2000)
    ]
    source = tmp_path / "big.json"
    source.write_text(json.dumps({"format": "cardvault-export", "version": 1, "cards": cards}))
    assert source.stat().st_size > 2_500_000
    outcome = run(root, "import", "--dry-run", str(source))
    assert outcome.exit_code == 0, outcome.output[-500:]


CARD = (
    "---\ntopic: Bulk {n}\ncategory: tools\ntags: [bulk]\ncreated: 2026-01-01\n"
    "updated: 2026-01-01\n---\nBulk card {n} about topic {n}. {pad}\n"
)


@pytest.mark.slow
def test_the_worst_inputs_stay_within_memory_in_a_fresh_process(tmp_path: Path) -> None:
    """The alias bomb (which once took maintain to 10.9 GB), libyaml-deep nesting, a 1 MB card
    and a 200,000-deep export, each command in its own process: peak RSS stays far below what
    an expansion would take (the model alone is ~0.9 GB; commands without it use ~50 MB)."""
    root = worst_vault(tmp_path / "worst", entries=50)
    commands = [*READ_COMMANDS, ("import", "--dry-run", str(tmp_path / "deep-export.json"))]
    peaks = {}
    for args in commands:
        _, peak, clean, _ = run_in_process(root, tuple(args))
        assert clean, args
        peaks[" ".join(args)] = peak
    assert 0 < max(peaks.values()) < MEMORY_LIMIT_MB, peaks
    assert peaks["check"] < 300 and peaks["list"] < 300 and peaks["export - --logs"] < 300, peaks
