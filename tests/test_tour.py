"""README.md's "A short tour", run as written, in order, in a new vault, through the real CLI:
each command does what its comment says. The tour's block is read from the README itself, so
the two cannot drift apart. Three lines are run with stand-ins a test can use: `~/notes` is a
tiny folder of notes, the remote is a bare repository in a temp folder (no network), and
`view --open` writes its page to a file instead of opening a browser; `review accept ID` takes
the ID `review` listed."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import Result

from tests.support.cli import REPO, run_cli, snapshot
from tests.support.maintain import assert_memory_table_current

pytestmark = pytest.mark.slow

QUESTION = "why does the login POST get rejected"
CARD = "memory/cards/cortex-csrf-automation.md"
#: The tour's search finds the card it wrote among the first this many hits.
TOP = 3


def tour() -> list[tuple[list[str], str]]:
    """The tour's commands in order: each as argv (a line's `&&` parts apart) with the comment
    of its line."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("## A short tour", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    steps = []
    for line in block.replace("\\\n", " ").splitlines():
        command, *comment = re.split(r"\s{2,}#\s", line, maxsplit=1)
        steps += [(shlex.split(part), "".join(comment)) for part in command.split(" && ")]
    return steps


@dataclass
class Tour:
    """Where the tour runs: its folder, the vault it makes, and what earlier steps said."""

    home: Path
    notes: Path
    remote: Path
    vault: Path | None = None
    said: dict[str, Result] | None = None

    def cli(self, argv: list[str]) -> Result:
        result = run_cli(argv)
        assert result.exit_code == 0, (argv, result.output)
        return result

    def search(self) -> list[str]:
        """The paths of the tour search's first hits."""
        rows = json.loads(self.cli(["search", QUESTION, "--json"]).stdout)
        return [row["path"] for row in rows[:TOP]]

    def pending(self) -> list[dict]:
        return json.loads(self.cli(["review", "--json"]).stdout)


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Tour]:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "deploys.md").write_text("# Deploys\n\nDeploy on Tuesdays; never on Fridays.\n")
    remote = tmp_path / "memory.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    monkeypatch.chdir(tmp_path)
    yield Tour(tmp_path, notes, remote)


def test_the_readme_tour_does_what_it_says(place: Tour) -> None:
    steps = tour()
    assert len(steps) >= 25 and steps[0][0][:2] == ["cardvault", "init"]
    asked: list[str] = []
    for argv, comment in steps:
        check = CHECKS.get(_key(argv))
        assert check is not None, f"no check for the tour's `{' '.join(argv)}` ({comment})"
        check(place, argv, asked)
    assert place.vault is not None
    assert_memory_table_current(place.vault)


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    ).stdout


def _key(argv: list[str]) -> str:
    """Which step of CHECKS a tour command is."""
    if argv[0] in ("cd", "git"):
        return {"cd": "cd", "git": "git remote"}[argv[0]]
    rest = argv[3:] if argv[1] == "--agent" else argv[1:]
    key = rest[0]
    if key in ("maintain", "review") and len(rest) > 1 and rest[1] in WORDS:
        key += f" {rest[1]}"
    if "--agent" in argv:
        key = f"agent {key}"
    return f"{key} --rerank" if "--rerank" in argv else key


WORDS = ("--dry-run", "--global", "accept")


def _run(tour: Tour, argv: list[str]) -> Result:
    return tour.cli(argv[1:])


def _init(tour: Tour, argv: list[str], _: list[str]) -> None:
    _run(tour, argv)
    tour.vault = tour.home / argv[-1]
    assert (tour.vault / "cardvault.toml").is_file() and (tour.vault / ".git").is_dir()


def _cd(tour: Tour, argv: list[str], _: list[str]) -> None:
    import os

    os.chdir(argv[1])


def _import_dry(tour: Tour, argv: list[str], _: list[str]) -> None:
    assert tour.vault is not None
    before = snapshot(tour.vault)
    out = _run(tour, [str(tour.notes) if a == "~/notes" else a for a in argv])
    assert "deploys" in out.output.lower() and snapshot(tour.vault) == before


def _new(tour: Tour, argv: list[str], _: list[str]) -> None:
    _run(tour, argv)
    assert tour.vault is not None and (tour.vault / CARD).is_file()
    # MEMORY.md has the card in its table from the first card on, in the card's commit, and
    # the session-start pack shows it
    link = "[Cortex CSRF Automation](memory/cards/cortex-csrf-automation.md)"
    assert link in (tour.vault / "MEMORY.md").read_text(encoding="utf-8")
    assert "MEMORY.md" in _git(tour.vault, "show", "--name-only", "--format=", "HEAD").split()
    assert link in tour.cli(["context"]).stdout


def _logged(tour: Tour, argv: list[str], _: list[str]) -> None:
    _run(tour, argv)
    assert tour.vault is not None
    text = "".join(p.read_text() for p in (tour.vault / "memory").glob("????-??-??.md"))
    assert argv[2].removeprefix("Login kept failing. ")[:20] in text


def _list(tour: Tour, argv: list[str], _: list[str]) -> None:
    rows = json.loads(_run(tour, argv).stdout)  # piped: JSON
    assert [row["path"] for row in rows] == [CARD]


def _show(tour: Tour, argv: list[str], _: list[str]) -> None:
    assert "cookie AND header on every POST" in _run(tour, argv).stdout


def _check(tour: Tour, argv: list[str], _: list[str]) -> None:
    _run(tour, argv)  # exit 0: no errors


def _search(tour: Tour, argv: list[str], _: list[str]) -> None:
    rows = json.loads(_run(tour, [*argv, "--json"]).stdout)
    assert CARD in [row["path"] for row in rows[:TOP]], rows


def _context(tour: Tour, argv: list[str], _: list[str]) -> None:
    from cardvault.vault.tokens import count_tokens

    pack = _run(tour, argv).stdout
    assert f'<memory source="{CARD}">' in pack and count_tokens(pack) <= 2000


def _dry_run(tour: Tour, argv: list[str], asked: list[str]) -> None:
    assert tour.vault is not None
    before = snapshot(tour.vault)
    out = _run(tour, argv)
    assert "\n+++ b/" in out.stdout and snapshot(tour.vault) == before  # piped: the diff
    would = re.search(r"a real run would ask (\d+) question", out.stderr)
    asked.append(would.group(1) if would else "0")
    # what review says after a dry run agrees with it: nothing is pending yet
    assert "pending: cardvault review" not in out.stderr and tour.pending() == []


def _maintain(tour: Tour, argv: list[str], asked: list[str]) -> None:
    assert tour.search()[:TOP].count(CARD) == 1  # before maintenance
    done = json.loads(_run(tour, argv).stdout)
    assert done["commit"] and done["counts"]["distill"] >= 1
    assert len(done["asked"]) == int(asked[-1])  # what the dry run said it would ask
    assert CARD in tour.search(), "after maintenance the question still reaches the card"


def _review(tour: Tour, argv: list[str], asked: list[str]) -> None:
    listed = json.loads(_run(tour, argv).stdout)
    assert len(listed) == int(asked[-1]) and all(item["id"] for item in listed)


def _accept(tour: Tour, argv: list[str], _: list[str]) -> None:
    pending = tour.pending()
    if not pending:
        return  # nothing was asked: there is no ID to accept
    item = pending[0]
    options = ["--keep", "1"] if item["kind"] == "contradiction" else ["--only", "1,2"]
    assert argv[:4] == ["cardvault", "review", "accept", "ID"]
    _run(tour, ["cardvault", "review", "accept", item["id"], *options])
    assert item["id"] not in [left["id"] for left in tour.pending()]


def _stats(tour: Tour, argv: list[str], _: list[str]) -> None:
    assert "cortex" in _run(tour, argv).stdout.lower()


def _view(tour: Tour, argv: list[str], _: list[str]) -> None:
    page = tour.home / "view.html"
    _run(tour, [*[a for a in argv if a != "--open"], "--out", str(page)])
    assert "Cortex CSRF Automation" in page.read_text(encoding="utf-8")


def _history(tour: Tour, argv: list[str], _: list[str]) -> None:
    assert "cortex" in _run(tour, argv).stdout.lower()


def _diff(tour: Tour, argv: list[str], _: list[str]) -> None:
    assert _run(tour, argv).stdout.strip()


def _remote(tour: Tour, argv: list[str], _: list[str]) -> None:
    argv = [str(tour.remote) if "@" in a else a for a in argv]
    subprocess.run(argv, check=True)


def _sync(tour: Tour, argv: list[str], _: list[str]) -> None:
    _run(tour, argv)
    heads = subprocess.run(
        ["git", "-C", str(tour.remote), "log", "--all", "--format=%s"],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    assert "card: add cortex-csrf-automation" in heads


def _hot(tour: Tour, argv: list[str], _: list[str]) -> None:
    _run(tour, argv)
    assert tour.vault is not None
    assert argv[-1] in (tour.vault / "memory" / "agents" / "ada.md").read_text()


def _agent_context(tour: Tour, argv: list[str], _: list[str]) -> None:
    assert "staging resets at noon" in _run(tour, argv).stdout


def _global(tour: Tour, argv: list[str], _: list[str]) -> None:
    _run(tour, argv)


Check = Callable[[Tour, list[str], list[str]], None]
CHECKS: dict[str, Check] = {
    "init": _init, "cd": _cd, "import": _import_dry, "new": _new, "log": _logged,
    "remember": _logged, "list": _list, "show": _show, "check": _check, "verify": _check,
    "search": _search, "search --rerank": _search, "context": _context,
    "maintain --dry-run": _dry_run, "maintain": _maintain, "review": _review,
    "review accept": _accept, "stats": _stats, "view": _view, "history": _history,
    "diff": _diff, "git remote": _remote, "sync": _sync, "agent hot": _hot,
    "agent context": _agent_context, "maintain --global": _global, "review --global": _global,
}  # fmt: skip
