"""`--json` and `--quiet` on every command (cli/output.py), `new` without a body, and unknown
filter values, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run_cli, snapshot


def _commands() -> list[list[str]]:
    from typer.main import get_command

    from cardvault.cli.app import app

    found: list[list[str]] = []

    def walk(command: object, path: list[str]) -> None:
        subs = getattr(command, "commands", None)
        if subs is None:
            found.append(path)
            return
        for name, sub in subs.items():
            walk(sub, [*path, name])

    walk(get_command(app), [])
    return found


COMMANDS = _commands()


def test_the_walk_finds_the_commands() -> None:
    names = {" ".join(path) for path in COMMANDS}
    assert {"search", "new", "log", "history", "diff", "review accept"} <= names
    assert len(COMMANDS) > 30


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
def test_every_command_has_json_and_quiet(path: list[str]) -> None:
    shown = run_cli([*path, "--help"])
    assert shown.exit_code == 0, shown.output
    assert "--json" in shown.stdout and "--quiet" in shown.stdout


CASES = [
    ["log", "Lesson: retry the flaky upload twice."],
    ["new", "Upload retries", "-c", "tools", "--body", "Retry twice."],
    ["list"],
    ["check"],
    ["stats"],
    ["history"],
    ["diff"],
    ["promote", "upload-retries", "--rule", "Retry uploads twice."],
    ["trust"],
    ["trust", "--revoke"],
    ["review"],  # a group that lists when run alone
]


@pytest.mark.parametrize("argv", CASES, ids=[a[0] for a in CASES])
def test_json_parses_and_quiet_prints_nothing(vault_path: Path, argv: list[str]) -> None:
    root = ["--vault", str(vault_path)]
    if argv[0] == "promote":
        run_cli([*root, "new", "Upload retries", "-c", "tools", "--body", "Retry twice."])
    quiet = run_cli([*root, *argv, "--quiet"])
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stdout == "" and quiet.stderr == ""
    loud = run_cli([*root, *argv, "--json"])
    assert loud.exit_code == 0, loud.output
    json.loads(loud.stdout)


def test_quiet_keeps_errors_and_exit_codes(vault_path: Path) -> None:
    missing = run_cli(["--vault", str(vault_path), "show", "no-such-card", "--quiet"])
    assert missing.exit_code == 1 and missing.stdout == ""
    assert "no card with slug or alias 'no-such-card'" in missing.stderr
    failed = run_cli(["--vault", str(vault_path), "show", "no-such-card", "--json"])
    assert failed.exit_code == 1


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["archive", "no-such-card"], "no live card with slug or alias 'no-such-card'"),
        (["forget", "nothing-like-it"], 'nothing in the vault matches "nothing-like-it"'),
        # commands with a --json of their own: the same object when they fail
        (["show", "no-such-card"], "no card with slug or alias 'no-such-card'"),
        (["rename", "no-such-card", "other"], "no card with slug or alias 'no-such-card'"),
        (["maintain", "--only", "bogus"], "unknown step bogus; choose from distill, merge,"),
    ],
)
def test_a_failure_under_json_carries_its_error(
    vault_path: Path, argv: list[str], said: str
) -> None:
    """The JSON object of a failed command says why (a script reads stdout), and the error
    line is on stderr as without --json."""
    failed = run_cli(["--vault", str(vault_path), *argv, "--json"])
    assert failed.exit_code == 1
    shown = json.loads(failed.stdout)
    assert shown["ok"] is False
    assert [m for m in shown["messages"] if m["level"] == "error" and m["text"].startswith(said)]
    assert said in failed.stderr


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["search", "token", "-k", "0", "--json"], "Invalid value for '-k' / '--limit'"),
        (["search", "--json", "-k", "0", "token"], "Invalid value for '-k' / '--limit'"),
        (["log", "--json"], "Missing argument 'text'"),
        (["list", "--json", "--bogus"], "No such option: --bogus"),
        (["list", "--bogus", "--json"], "No such option: --bogus"),
        (["review", "accept", "--json"], "Missing argument"),
        (["no-such-command", "--json"], "No such command 'no-such-command'"),
        (["--bogus", "list", "--json"], "No such option: --bogus"),  # before the command
        (["--version", "--json"], "No such option: --json"),
    ],
)
def test_a_usage_error_under_json_is_the_failure_object(
    vault_path: Path, argv: list[str], said: str
) -> None:
    """A script that asked for --json reads one object on stdout whatever went wrong, a
    command line click refuses (exit 2) too; the usage message stays on stderr."""
    failed = run_cli(["--vault", str(vault_path), *argv])
    assert failed.exit_code == 2
    shown = json.loads(failed.stdout)
    assert shown["ok"] is False
    assert [m for m in shown["messages"] if m["level"] == "error" and said in m["text"]]
    assert said in failed.stderr


def test_a_usage_error_without_json_prints_nothing_on_stdout(vault_path: Path) -> None:
    for argv in (["list", "--bogus"], ["search", "-k", "0", "token"], ["log", "--", "--json"]):
        failed = run_cli(["--vault", str(vault_path), *argv, "--bogus"])
        assert failed.exit_code == 2 and failed.stdout == "", argv


def _json_help(name: str) -> str:
    """The help of command `name`'s --json option (the group gives a command its output
    options when it resolves it)."""
    import typer
    from typer.main import get_command

    from cardvault.cli.app import app

    group = get_command(app)
    command = group.get_command(typer.Context(group), name)  # type: ignore[attr-defined]
    return next(p.help for p in command.params if "--json" in getattr(p, "opts", ()))


PIPED = [
    ["new", "Piped card", "-c", "tools", "--body", "Retry twice."],
    ["maintain", "--dry-run"],
    ["maintain"],
    ["import", "EXPORT"],
    ["list"],
    ["stats"],
    ["history"],
    ["diff"],
    ["review"],
    ["agents"],
    ["scope"],
    ["log", "Lesson: piped output stays text."],
    ["check"],
]


@pytest.mark.parametrize("argv", PIPED, ids=[a[0] for a in PIPED])
def test_a_command_prints_json_when_piped_exactly_when_its_help_says_so(
    vault_path: Path, tmp_path: Path, argv: list[str]
) -> None:
    """A script without --json reads what `--help` promises: JSON when the help of --json
    says "also when piped", else the text."""
    root = ["--vault", str(vault_path)]
    export = tmp_path / "export.json"
    assert run_cli([*root, "export", str(export)]).exit_code == 0
    argv = [str(export) if arg == "EXPORT" else arg for arg in argv]
    said = _json_help(argv[0])
    promised = "also when piped" in said and not (
        "--dry-run" in argv and "a piped --dry-run prints its diff" in said
    )
    piped = run_cli([*root, *argv])
    assert piped.exit_code == 0, piped.output
    try:
        json.loads(piped.stdout)
        printed_json = True
    except ValueError:
        printed_json = False
    assert printed_json == promised, (argv, piped.stdout[:200])


def test_a_command_that_printed_its_own_json_gets_no_second_object(vault_path: Path) -> None:
    """`check --json` fails (exit 1) by printing its findings: stdout stays that one list."""
    (vault_path / "memory" / "cards" / "bad.md").write_text("---\ntitle: [bad\n---\nbody\n")
    failed = run_cli(["--vault", str(vault_path), "check", "--json"])
    assert failed.exit_code == 1
    findings = json.loads(failed.stdout)
    assert [f["code"] for f in findings] == ["unreadable"]


def test_new_json_names_the_card_as_list_and_show_do(vault_path: Path) -> None:
    """A path relative to the vault, as in list, show, rename and search."""
    made = run_cli(["--vault", str(vault_path), "new", "Retry uploads", "-c", "tools",
                    "--body", "Retry twice.", "--json"])  # fmt: skip
    assert made.exit_code == 0, made.output
    said = json.loads(made.stdout)
    listed = json.loads(run_cli(["--vault", str(vault_path), "list", "--json"]).stdout)
    assert said["path"] == "memory/cards/retry-uploads.md" == listed[0]["path"]
    assert (vault_path / said["path"]).is_file()


def test_new_without_a_body_refuses_on_empty_stdin(vault_path: Path) -> None:
    done = run_cli(["--vault", str(vault_path), "new", "Some topic", "-c", "tools"], input="")
    assert done.exit_code == 1
    assert "no card text: give --body TEXT" in done.stderr
    assert not list((vault_path / "memory" / "cards").glob("some-topic*.md"))
    piped = run_cli(
        ["--vault", str(vault_path), "new", "Some topic", "-c", "tools"], input="Piped body.\n"
    )
    assert piped.exit_code == 0, piped.output
    assert "Piped body." in (vault_path / "memory" / "cards" / "some-topic.md").read_text()


@pytest.mark.parametrize("text", ["", "   ", "\n\t\n"])
def test_remember_refuses_an_empty_lesson_as_log_refuses_an_empty_entry(
    vault_path: Path, text: str
) -> None:
    """`remember "  "` wrote an entry with no title and a bare `Lesson:`, and committed it."""
    from cardvault import open_vault
    from cardvault.errors import CardvaultError
    from tests.support.cli import git_log

    commits, files = git_log(vault_path), snapshot(vault_path)
    done = run_cli(["--vault", str(vault_path), "remember", text])
    assert done.exit_code == 1
    assert "nothing to remember: the lesson is empty" in done.stderr
    with pytest.raises(CardvaultError, match="nothing to remember"):
        open_vault(vault_path).remember(text)
    assert git_log(vault_path) == commits and snapshot(vault_path) == files


def test_new_prompts_in_a_terminal(vault_path: Path) -> None:
    import sys

    from tests.support.serve import run_in_terminal

    argv = [sys.executable, "-m", "cardvault", "--vault", str(vault_path), "new", "Typed topic"]
    code, shown = run_in_terminal([*argv, "-c", "tools"], vault_path, typed=b"Typed body.\n\x04")
    assert code == 0, shown
    assert b"card text (Markdown); end it with Ctrl-D" in shown
    assert "Typed body." in (vault_path / "memory" / "cards" / "typed-topic.md").read_text()


def test_new_refuses_an_unknown_category_before_asking_for_the_text(vault_path: Path) -> None:
    import sys

    from tests.support.serve import run_in_terminal

    argv = [sys.executable, "-m", "cardvault", "--vault", str(vault_path), "new", "Typed topic"]
    code, shown = run_in_terminal([*argv, "-c", "bogus"], vault_path, typed=b"Typed body.\n\x04")
    assert code == 1, shown
    assert b"unknown category 'bogus'" in shown
    assert b"card text" not in shown, "the text was asked for, then thrown away"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["list", "--category", "bogus"], "unknown category 'bogus' (valid: system, human,"),
        (
            ["list", "--status", "bogus"],
            "unknown status 'bogus' (valid: active, promoted, archived)",
        ),
        (["search", "x", "--category", "bogus"], "unknown category 'bogus' (valid: system,"),
        (["search", "x", "-m", "keyword", "--status", "gone"], "unknown status 'gone' (valid:"),
    ],
)
def test_unknown_filter_values_are_errors(vault_path: Path, argv: list[str], said: str) -> None:
    done = run_cli(["--vault", str(vault_path), *argv])
    assert done.exit_code == 1
    assert said in done.stderr


def test_trust_json_says_what_was_approved_and_revoked(vault_path: Path) -> None:
    """`trust --json` is JSON on every path (not only --list): what it approved, what was
    approved already, what it revoked."""
    root = ["--vault", str(vault_path)]
    config = vault_path / "cardvault.toml"
    config.write_text(config.read_text().replace('judge = ""', 'judge = "echo yes"'))
    approved = run_cli([*root, "trust", "--yes", "--json"])
    assert approved.exit_code == 0, approved.output
    where = str(vault_path.resolve())
    assert json.loads(approved.stdout) == {
        "vault": where, "approved": ["maintain.judge"], "already": [],
    }  # fmt: skip
    again = json.loads(run_cli([*root, "trust", "--json"]).stdout)
    assert again == {"vault": where, "approved": [], "already": ["maintain.judge"]}
    revoked = json.loads(run_cli([*root, "trust", "--revoke", "--json"]).stdout)
    assert revoked["vault"] == where
    assert [a["setting"] for a in revoked["revoked"]] == ["maintain.judge"]


def test_the_card_table_counts_one_card_in_the_singular(vault_path: Path) -> None:
    import sys

    from tests.support.serve import run_in_terminal

    vault = ["--vault", str(vault_path)]
    assert run_cli([*vault, "new", "Only card", "-c", "tools", "--body", "One."]).exit_code == 0
    code, shown = run_in_terminal([sys.executable, "-m", "cardvault", *vault, "list"], vault_path)
    assert code == 0 and b"1 card" in shown and b"1 cards" not in shown, shown
