"""One finding type for `path:line` problems (cardvault/vault/finding.py): the read path, check,
verify and import all say what is wrong where with the same `Finding`, shown the same way."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from cardvault.check.run import run_checks
from cardvault.vault.finding import Finding
from cardvault.vault.layout import open_vault_at
from cardvault.vault.read import read_vault
from cardvault.verify.run import verify_vault
from tests.support.cli import run_cli

BROKEN = "memory/cards/broken.md"
TODAY = dt.date(2026, 12, 1)


def test_a_finding_is_path_line_message() -> None:
    found = Finding("memory/cards/x.md", 4, "invalid YAML", "unreadable")
    assert (found.where, str(found)) == ("memory/cards/x.md:4", "memory/cards/x.md:4: invalid YAML")
    assert found.report() == "memory/cards/x.md:4: error: invalid YAML [unreadable]"
    assert found.to_dict() == {
        "path": "memory/cards/x.md", "line": 4, "severity": "error", "code": "unreadable",
        "message": "invalid YAML",
    }  # fmt: skip
    assert str(Finding("package.json", 0, "not valid JSON")) == "package.json: not valid JSON"
    assert str(Finding("a\x1bb.md", 1, "bad")) == "a\\x1bb.md:1: bad"  # control chars escaped


def test_read_check_and_verify_name_a_broken_card_with_one_finding(vault_path: Path) -> None:
    (vault_path / BROKEN).write_text("---\ntopic: T\ntags: [a, b\n---\nbody\n", encoding="utf-8")
    vault = open_vault_at(vault_path)
    [read] = read_vault(vault).problems
    assert isinstance(read, Finding) and (read.path, read.line) == (BROKEN, 4)
    assert read in run_checks(vault)
    verified = verify_vault(vault, TODAY, project=vault_path, dry_run=True)
    assert read in verified.problems
    assert str(read) in verified.to_dict()["problems"]  # type: ignore[operator]
    shown = run_cli(["--vault", str(vault_path), "check"])
    assert read.report() in shown.output
    listed = json.loads(run_cli(["--vault", str(vault_path), "check", "--json"]).output)
    assert read.to_dict() in listed


def test_an_import_problem_is_a_finding_at_the_notes_line(vault_path: Path, tmp_path: Path) -> None:
    from cardvault.portable.folder import plan_folder

    source = tmp_path / "notes"
    source.mkdir()
    (source / "broken.md").write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    (source / "fine.md").write_text("# Fine\n\nA note.\n", encoding="utf-8")
    plan = plan_folder(open_vault_at(vault_path), source, TODAY)
    [problem] = plan.plan.problems
    assert isinstance(problem, Finding) and (problem.path, problem.line) == ("broken.md", 3)
    assert str(problem).startswith("broken.md:3: invalid YAML")
