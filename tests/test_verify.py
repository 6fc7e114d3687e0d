"""Staleness checked against the project (issue 22): a vault inside a project repository, cards
naming files, commands and pinned versions that exist and that are gone; `verify` marks exactly
the stale ones, with reasons, and `context` shows every card's age and the stale mark."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pytest

from cardvault.vault.read import read_card
from cardvault.verify.names import named_in
from tests.support.cli import git_log, run_cli
from tests.support.writers import git

WRITTEN = "2026-10-22T09:00"
TODAY = "2026-12-01T09:00"
LATER = "2026-12-08T09:00"

CARDS = {
    "Settings module": "Settings live in `src/app/settings.py`; see [the guide](docs/setup.md).",
    "Old loader": "The loader is `src/app/loader.py`, read at start-up.",
    "Deploying": "Deploy with `make deploy`; build first with `npm run build`.",
    "Releasing": "Cut a release with `make release`, then:\n\n"
    "```sh\n$ frobnicate-release --all\n```",
    "Pinned client": "We pin `requests==2.31.0` in requirements.txt.",
    "Git branches": "Work on `origin/main` and run `git status` before pushing.",
}


def ok(root: Path, *args: str, now: str = TODAY) -> str:
    result = run_cli(["--vault", str(root), *args], env={"CARDVAULT_NOW": now})
    assert result.exit_code == 0, f"{args}: {result.output}"
    return str(result.output)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project repository with code, a Makefile, package.json and a lock file, and its vault
    in `memory-vault/` holding the cards above."""
    top = tmp_path / "web"
    (top / "src/app").mkdir(parents=True)
    (top / "docs").mkdir()
    (top / "src/app/settings.py").write_text("DEBUG = False\n")
    (top / "src/app/loader.py").write_text("def load(): ...\n")
    (top / "docs/setup.md").write_text("# Setup\n")
    (top / "Makefile").write_text("deploy: build\n\t./deploy.sh\n\nbuild:\n\tnpm run build\n")
    (top / "package.json").write_text(json.dumps({"scripts": {"build": "vite build"}}))
    (top / "requirements.txt").write_text("requests==2.32.3\nidna==3.7\n")
    subprocess.run(["git", "init", "-q", "-b", "main", str(top)], check=True)
    git(top, "add", "-A")
    git(top, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "code")
    vault = top / "memory-vault"
    ok(top, "init", str(vault), now=WRITTEN)
    for topic, body in CARDS.items():
        ok(vault, "new", topic, "-c", "workflow", "-t", "project", "--body", body, now=WRITTEN)
    return vault


def meta(vault: Path, slug: str) -> dict[str, object]:
    return read_card(vault / "memory/cards" / f"{slug}.md", vault).meta


def test_exactly_the_stale_cards_are_marked_with_reasons(project: Path) -> None:
    top = project.parent
    git(top, "rm", "-q", "src/app/loader.py")  # the code moved on; the card did not
    git(top, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "drop the loader")
    before = git_log(project)

    result = run_cli(["--vault", str(project), "verify", "--json"], env={"CARDVAULT_NOW": TODAY})
    assert result.exit_code == 1, result.output  # stale cards: exit 1
    verdict = json.loads(result.output)
    stale = {Path(row["path"]).stem: row["reasons"] for row in verdict["stale"]}
    assert stale == {
        "old-loader": ["`src/app/loader.py` no longer exists"],
        "releasing": [
            "`make release`: no make target release",
            "`frobnicate-release --all`: `frobnicate-release` is not on PATH",
        ],
        "pinned-client": ["`requests==2.31.0`: requirements.txt locks requests at 2.32.3"],
    }
    assert verdict["project"] == str(top.resolve())
    for slug in ("settings-module", "deploying", "git-branches"):
        assert "stale" not in meta(project, slug), slug
    marked = meta(project, "old-loader")["stale"]
    assert isinstance(marked, dict)
    assert marked["reason"] == "`src/app/loader.py` no longer exists"
    assert str(marked["date"]) == "2026-12-01"
    assert git_log(project) == ["verify: 3 stale", *before]  # one commit, through the door
    assert git(top, "status", "--porcelain") == ""

    again = run_cli(["--vault", str(project), "verify"], env={"CARDVAULT_NOW": TODAY})
    assert again.exit_code == 1 and git_log(project)[0] == "verify: 3 stale"  # nothing new

    pack = ok(project, "context", "--scope", "project", "--budget", "3000")
    assert "*updated 40 days ago*" in pack  # every card's age
    assert (
        "*updated 40 days ago; STALE since 2026-12-01: `src/app/loader.py` no longer exists*"
        in pack
    )


def test_maintain_marks_and_verify_clears_a_fixed_card(project: Path) -> None:
    top = project.parent
    (top / "src/app/settings.py").unlink()
    out = ok(project, "maintain", "--only", "verify")
    assert "settings-module" in git(project, "show", "--stat", "HEAD")
    assert meta(project, "settings-module")["stale"], out
    (top / "src/app/settings.py").write_text("DEBUG = True\n")
    commits = git_log(project)
    ok(project, "maintain", "--only", "verify")  # maintain only marks (PATH differs by machine)
    assert meta(project, "settings-module")["stale"] and git_log(project) == commits
    result = run_cli(["--vault", str(project), "verify"], env={"CARDVAULT_NOW": TODAY})
    assert "stale" not in meta(project, "settings-module"), result.output
    assert git_log(project)[0].startswith("verify: ") and "fresh again" in git_log(project)[0]


def test_a_program_on_this_machines_path_does_not_make_maintain_undo_a_mark(
    project: Path, tmp_path: Path
) -> None:
    """The clone that lacks `frobnicate-release` marks the card; where the program is on PATH,
    neither maintain nor verify clears the mark (the card was not edited), and verify says why;
    a person's "still right" settles it, and the clone lacking the program marks it no more."""
    body = "Publish with:\n\n```sh\n$ frobnicate-release --all\n```"
    ok(project, "new", "Publishing", "-c", "workflow", "-t", "project", "--body", body)
    run_cli(["--vault", str(project), "verify"], env={"CARDVAULT_NOW": TODAY})
    reason = "`frobnicate-release --all`: `frobnicate-release` is not on PATH"
    assert meta(project, "publishing")["stale"]["reason"] == reason  # type: ignore[index]
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "frobnicate-release").write_text("#!/bin/sh\n")
    (tools / "frobnicate-release").chmod(0o755)
    here = {"CARDVAULT_NOW": TODAY, "PATH": f"{tools}:{os.environ['PATH']}"}
    mark = meta(project, "publishing")["stale"]
    maintained = run_cli(["--vault", str(project), "maintain", "--only", "verify"], env=here)
    assert maintained.exit_code == 0, maintained.output
    assert meta(project, "publishing")["stale"] == mark
    verified = run_cli(["--vault", str(project), "verify", "--json"], env=here)
    assert verified.exit_code == 1  # other cards are still stale
    # nor does verify here: the two clones would mark and clear it run after run
    assert meta(project, "publishing")["stale"] == mark
    [held] = [p for p in json.loads(verified.output)["problems"] if "publishing" in p]
    assert "still marked stale" in held and "cardvault review" in held
    [question] = [q for q in json.loads(ok(project, "review", "--json"))
                  if q["members"][0]["path"].endswith("publishing.md")]  # fmt: skip
    ok(project, "review", "reject", question["id"], "--reason", "installed on CI now")
    assert "stale" not in meta(project, "publishing")  # a person settles it, for every clone
    lacking = run_cli(["--vault", str(project), "verify"], env={"CARDVAULT_NOW": TODAY})
    assert lacking.exit_code == 1 and "stale" not in meta(project, "publishing")


def test_verify_dry_run_writes_nothing_and_a_standalone_vault_has_no_project(
    project: Path, vault_path: Path
) -> None:
    before = git_log(project)
    result = run_cli(["--vault", str(project), "verify", "--dry-run", "--json"])
    assert result.exit_code == 1 and json.loads(result.output)["stale"]
    assert git_log(project) == before
    alone = run_cli(["--vault", str(vault_path), "verify", "--json"])
    assert alone.exit_code == 0
    assert json.loads(alone.output)["project"] is None


def test_what_a_card_names() -> None:
    body = (
        "See `src/a.py:12`, `Makefile`, [x](docs/b.md) and [web](https://e.com/a.md).\n"
        "Not paths: `3.1.8`, `--force`, `a b`, `/etc/passwd`, `../up.py`, `*.py`.\n"
        "Run `make test` or `$ ./run.sh`; pin `react@18.2.0` and `@types/node@20.1.0`.\n"
        "```bash\n$ pytest -q\n# a comment\n```\n"
        "```python\nimport os\n```\n"
    )
    found = [(n.kind, n.text) for n in named_in(body)]
    assert found == [
        ("path", "Makefile"),
        ("path", "docs/b.md"),
        ("path", "src/a.py"),
        ("command", "./run.sh"),
        ("command", "make test"),
        ("pin", "@types/node@20.1.0"),
        ("pin", "react@18.2.0"),
        ("command", "pytest -q"),
    ]


def test_a_vault_initialised_in_a_code_repository_checks_that_repository(tmp_path: Path) -> None:
    """`cardvault init .` in a code repository (the documented set-up): the repository is the
    project, though it is also the vault's root."""
    top = tmp_path / "api"
    top.mkdir()
    (top / "main.go").write_text("package main\n")
    subprocess.run(["git", "init", "-q", "-b", "main", str(top)], check=True)
    ok(top, "init", str(top), now=WRITTEN)
    body = "Start at `main.go`, not `cmd/old.go`."
    ok(top, "new", "Entry point", "-c", "workflow", "--body", body, now=WRITTEN)
    result = run_cli(["--vault", str(top), "verify", "--json"], env={"CARDVAULT_NOW": TODAY})
    verdict = json.loads(result.output)
    assert verdict["project"] == str(top.resolve())
    assert [row["reasons"] for row in verdict["stale"]] == [["`cmd/old.go` no longer exists"]]


def commit_all(top: Path, message: str) -> None:
    git(top, "add", "-A")
    git(top, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", message)


def test_a_card_naming_a_removed_function_is_marked_and_ordinary_words_are_not(
    project: Path,
) -> None:
    top = project.parent
    jobs = top / "src/app/jobs.py"
    jobs.write_text(
        "class ExportQueue:\n    pass\n\n\ndef run_nightly_export():\n    return ExportQueue()\n"
        "\n\ndef purge_old_rows(days):\n    pass\n"
    )
    commit_all(top, "jobs")
    body = (
        "`run_nightly_export()` writes the dump through `ExportQueue`; "
        "`purge_old_rows(30)` trims the table afterwards.\n\n"
        "Words in backticks stay words: `Redis`, `DEBUG`, `GitHub`, `example.com`, "
        "`notes.bak`, `v2.1`, `HTTPServer`."
    )
    ok(project, "new", "Nightly jobs", "-c", "workflow", "--body", body, now=WRITTEN)
    clean = run_cli(["--vault", str(project), "verify", "--json", "--dry-run"])
    assert "nightly-jobs" not in clean.output, clean.output  # every symbol is still there

    jobs.write_text(jobs.read_text().split("\n\n\ndef purge_old_rows")[0] + "\n")
    commit_all(top, "purge moved to the database")
    result = run_cli(["--vault", str(project), "verify", "--json"], env={"CARDVAULT_NOW": TODAY})
    stale = {Path(row["path"]).stem: row["reasons"] for row in json.loads(result.output)["stale"]}
    assert stale["nightly-jobs"] == [
        "`purge_old_rows(30)`: no source file of the project defines or mentions `purge_old_rows`"
    ]
    marked = meta(project, "nightly-jobs")["stale"]
    assert isinstance(marked, dict) and "purge_old_rows" in str(marked["reason"])


def test_what_counts_as_a_code_symbol() -> None:
    from cardvault.verify.symbols import Symbol, symbol_of

    assert symbol_of("load_config()") == Symbol("load_config")
    assert symbol_of("client.fetch(url, timeout=3)") == Symbol("fetch")
    assert symbol_of("VaultState") == Symbol("VaultState")
    assert symbol_of("settings.DEBUG") == Symbol("DEBUG", "settings")
    for word in ("Redis", "DEBUG", "GitHub", "HTTPServer", "example.com", "logo.png", "3.1.8",
                 "snake_case", "$(pwd)", "a b", "TODO"):  # fmt: skip
        assert symbol_of(word) is None, word


def test_a_card_citing_lines_records_the_commit_they_were_checked_at(project: Path) -> None:
    top = project.parent
    code = top / "src/app/retry.py"
    code.write_text("def retry(call):\n    for attempt in range(3):\n        call()\n\n# end\n")
    commit_all(top, "retry")
    body = "Retries live in `src/app/retry.py:2-3`; see [the loop](src/app/retry.py#L2)."
    ok(project, "new", "Retry loop", "-c", "workflow", "--body", body, now=WRITTEN)
    head = git(top, "rev-parse", "HEAD").strip()

    run_cli(["--vault", str(project), "verify", "--dry-run"])  # writes nothing
    assert "checked" not in meta(project, "retry-loop")
    run_cli(["--vault", str(project), "verify"], env={"CARDVAULT_NOW": TODAY})
    assert meta(project, "retry-loop")["checked"] == {"date": dt.date(2026, 12, 1),
                                                       "commit": head[:12]}  # fmt: skip
    assert git_log(project)[0] == "verify: 2 stale, 1 checked at their commit"
    commits = git_log(project)
    run_cli(["--vault", str(project), "verify"], env={"CARDVAULT_NOW": LATER})
    assert git_log(project) == commits  # deterministic: nothing rewritten when nothing moved

    code.write_text(code.read_text().replace("# end", "# the end"))  # not the cited lines
    commit_all(top, "reword a comment")
    run_cli(["--vault", str(project), "verify"], env={"CARDVAULT_NOW": LATER})
    assert git_log(project)[:2] == ["reword a comment", commits[0]]  # no verify commit
    assert "stale" not in meta(project, "retry-loop")

    code.write_text(code.read_text().replace("range(3)", "range(5)"))  # the cited lines move on
    commit_all(top, "retry five times")
    result = run_cli(["--vault", str(project), "verify", "--json"], env={"CARDVAULT_NOW": LATER})
    stale = {Path(r["path"]).stem: r["reasons"] for r in json.loads(result.output)["stale"]}
    assert stale["retry-loop"] == [
        f"`src/app/retry.py:2`: the lines changed since {head[:12]}, the commit the card was "
        "checked at",
        f"`src/app/retry.py:2-3`: the lines changed since {head[:12]}, the commit the card was "
        "checked at",
    ]
    assert meta(project, "retry-loop")["checked"]["commit"] == head[:12]  # kept until checked

    far = "Retries live in `src/app/retry.py:40`."
    ok(project, "new", "Far retry", "-c", "workflow", "--body", far, now=WRITTEN)
    result = run_cli(["--vault", str(project), "verify", "--json"], env={"CARDVAULT_NOW": LATER})
    stale = {Path(r["path"]).stem: r["reasons"] for r in json.loads(result.output)["stale"]}
    assert stale["far-retry"] == ["`src/app/retry.py:40`: the file has 5 lines"]
    assert "checked" not in meta(project, "far-retry")

    questions = json.loads(ok(project, "review", "--json"))
    [asked] = [q["id"] for q in questions if "retry-loop" in q["members"][0]["path"]]
    ok(project, "review", "reject", asked, now=LATER)  # still right: checked at the commit now
    now_head = git(top, "rev-parse", "HEAD~1").strip()
    assert meta(project, "retry-loop")["checked"]["commit"] == now_head[:12]
    result = run_cli(["--vault", str(project), "verify", "--json"], env={"CARDVAULT_NOW": LATER})
    assert "retry-loop" not in result.output and "stale" not in meta(project, "retry-loop")


def test_a_checked_key_of_the_persons_own_is_left_alone(project: Path) -> None:
    """`checked: true` written by hand means something to its writer: never overwritten."""
    top = project.parent
    (top / "src/app/retry.py").write_text("a\nb\nc\n")
    commit_all(top, "retry")
    ok(project, "new", "Own check", "-c", "workflow", "--body", "See `src/app/retry.py:2`.",
       now=WRITTEN)  # fmt: skip
    card = project / "memory/cards/own-check.md"
    card.write_text(card.read_text().replace("updated:", "checked: true\nupdated:"))
    run_cli(["--vault", str(project), "verify"], env={"CARDVAULT_NOW": TODAY})
    assert meta(project, "own-check")["checked"] is True


def test_a_runner_naming_a_pyproject_script_or_a_project_path_is_checked(project: Path) -> None:
    top = project.parent
    (top / "pyproject.toml").write_text(
        '[project.scripts]\nserve = "app:serve"\n[tool.poetry.scripts]\nworker = "app:work"\n'
    )
    (top / "scripts").mkdir()
    (top / "scripts/build.sh").write_text("#!/bin/sh\n")
    bodies = {
        "Serving": "Start it with `uv run serve`, the queue with `poetry run worker`.",
        "Building": "Build with `$ ./scripts/build.sh --all`.",
        "Old tool": "Lint with `uv run gone-linter-xyz`, package with `$ ./scripts/pack.sh`.",
    }
    for topic, body in bodies.items():
        ok(project, "new", topic, "-c", "workflow", "-t", "project", "--body", body)

    result = run_cli(["--vault", str(project), "verify", "--json"], env={"CARDVAULT_NOW": TODAY})
    stale = {Path(row["path"]).stem: row["reasons"] for row in json.loads(result.output)["stale"]}
    assert "serving" not in stale and "building" not in stale
    assert set(stale["old-tool"]) == {
        "`uv run gone-linter-xyz`: `gone-linter-xyz` is neither a pyproject script nor installed"
        " here",
        "`./scripts/pack.sh` (in `./scripts/pack.sh`) no longer exists",
    }
