"""The docs stay true: the CLI reference matches `--help`, every command is documented, and CI
runs the test command README.md gives."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from cardvault.cli.app import app
from cardvault.cli.reference import render_reference

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


def test_cli_reference_is_current() -> None:
    committed = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert committed == render_reference(), (
        "docs/cli.md is stale: run `python -m cardvault.cli.reference > docs/cli.md`"
    )


def test_every_command_has_help_text() -> None:
    group = typer.main.get_command(app)
    ctx = typer.Context(group, info_name="cardvault")
    for name in group.list_commands(ctx):  # type: ignore[attr-defined]
        command = group.get_command(ctx, name)  # type: ignore[attr-defined]
        assert command.help and len(command.help) > 20, f"`cardvault {name}` has no real help"
        assert f"## cardvault {name}" in (DOCS / "cli.md").read_text(encoding="utf-8")


def test_ci_runs_the_readme_test_command_as_given() -> None:
    """README's set-up block ends with the test command; .ci/run installs the browser the view
    tests drive (.ci/browser), runs that very line, then the permission tests unprivileged
    (.ci/unprivileged), and nothing else."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert len(block) == 2 and block[1].endswith('pip install ".[test]" && pytest')
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line for line in ci.splitlines() if line and not line.startswith("#")]
    assert commands == [
        "set -euo pipefail",
        'cd "$(dirname "$0")/.."',
        "bash .ci/browser",
        block[1],
        "bash .ci/unprivileged",
    ]


def test_the_reference_names_the_help_options_the_cli_takes() -> None:
    """`cardvault X -h` works (the app's context settings); the page must not say `--help`
    alone."""
    from tests.support.cli import run_cli

    assert "-h, --help" in run_cli(["search", "--help"]).stdout
    assert run_cli(["search", "-h"]).exit_code == 0
    page = render_reference()
    for name in ("cardvault", "cardvault search", "cardvault review accept"):
        section = page.split(f"## {name}\n", 1)[1].split("\n## ", 1)[0]
        assert "-h, --help" in section, name


def test_help_shows_every_command_under_a_panel() -> None:
    """`cardvault --help` groups its commands (Everyday, Maintenance, ...), never one flat list."""
    from tests.support.cli import run_cli

    shown = run_cli(["--help"]).stdout
    group = typer.main.get_command(app)
    names = group.list_commands(typer.Context(group, info_name="cardvault"))  # type: ignore[attr-defined]
    assert "\nCommands:" not in shown
    panels = re.findall(r"^(\S[^\n]*):\n((?:  \S[^\n]*\n)+)", shown, flags=re.MULTILINE)
    listed = {title: [row.split()[0] for row in rows.splitlines()] for title, rows in panels}
    assert set(listed) >= {"Everyday", "Maintenance", "Inspect", "Team & sync", "Agents & hosts"}
    grouped = [name for title, rows in listed.items() if title != "Options" for name in rows]
    assert sorted(grouped) == sorted(names) and len(grouped) == len(names)
