"""Every writer in every git state: during a rebase, merge, cherry-pick, revert or bisect and on
a detached HEAD, a writing command refuses with one line saying what git is doing and how to
finish it, and writes nothing (no commit git would later drop); readers keep working; a vault
in a subfolder of a larger repository is written and refused the same way.

Each state is made by git itself in a real repository (a rebase stopped at an `edit`, a merge
with `--no-commit`, a cherry-pick and a revert stopped on a conflict in a file outside the
vault's, a bisect half-way, a checkout of a commit)."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.cli import run_cli, snapshot
from tests.support.writers import git

NOW = "2026-03-19T10:00"
GIT_USER = ("-c", "user.name=t", "-c", "user.email=t@t")


def _git(root: Path, *args: str, check: bool = True, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *GIT_USER, *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
    )
    if check and done.returncode != 0:
        raise AssertionError(f"git {args}: {done.stderr}")
    return done.stdout


def cv(root: Path, *args: str) -> tuple[int, str]:
    """Exit code and what the command said: its error output when it failed."""
    result = run_cli(["--vault", str(root), *args], env={"CARDVAULT_NOW": NOW})
    return result.exit_code, result.stderr if result.exit_code else result.output


def _commit_notes(top: Path, text: str, message: str) -> None:
    (top / "notes.txt").write_text(text)
    _git(top, "add", "notes.txt")
    _git(top, "commit", "-q", "-m", message)


def _base(top: Path, vault: Path) -> None:
    """A vault with a card to forget and history to play with: `side` and `main` both changed
    notes.txt (a file that is not the vault's) after their common commit."""
    from cardvault.app.vaults import init_vault

    if top != vault:
        top.mkdir(parents=True)
        _git(top, "init", "-q", "-b", "main")
        _commit_notes(top, "start\n", "code")
    init_vault(vault)
    code, out = cv(vault, "new", "Nginx uploads", "-c", "tools", "--body", "Raise the limit.")
    assert code == 0, out
    remote = top.parent / f"{top.name}-remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    _git(top, "remote", "add", "origin", str(remote))
    _commit_notes(top, "one\n", "notes one")
    _git(top, "checkout", "-q", "-b", "side")
    _commit_notes(top, "side\n", "notes on side")
    _git(top, "checkout", "-q", "main")
    _commit_notes(top, "main\n", "notes on main")


def _rebase(top: Path) -> None:
    _git(top, "checkout", "-q", "side")
    edit = {"GIT_SEQUENCE_EDITOR": "sed -i 1s/^pick/edit/"}
    _git(top, "rebase", "-q", "-i", "--onto", "main", "main~1", env=edit, check=False)


def _merge(top: Path) -> None:
    _git(top, "merge", "-q", "--no-ff", "--no-commit", "side", check=False)


def _cherry_pick(top: Path) -> None:
    _git(top, "cherry-pick", "side", check=False)  # both changed notes.txt: stops


def _revert(top: Path) -> None:
    _git(top, "revert", "--no-edit", "main~1", check=False)  # main changed it since: stops


def _bisect(top: Path) -> None:
    _git(top, "bisect", "start")
    _git(top, "bisect", "bad", "HEAD")
    _git(top, "bisect", "good", "HEAD~3")


def _detached(top: Path) -> None:
    _git(top, "checkout", "-q", "--detach", "HEAD~1")


def _orphan(top: Path) -> None:
    """`git checkout --orphan`: a branch with no commit, every file of the vault staged."""
    _git(top, "checkout", "-q", "--orphan", "fresh")


#: Each state: how git gets into it, the file that shows it, and words the refusal must say.
STATES: dict[str, tuple[Callable[[Path], None], str, tuple[str, ...]]] = {
    "rebase": (_rebase, "rebase-merge", ("rebase is in progress", "git rebase --abort")),
    "merge": (_merge, "MERGE_HEAD", ("merge is in progress", "git merge --abort")),
    "cherry-pick": (
        _cherry_pick,
        "CHERRY_PICK_HEAD",
        ("cherry-pick is in progress", "git cherry-pick --continue"),
    ),
    "revert": (_revert, "REVERT_HEAD", ("revert is in progress", "git revert --abort")),
    "bisect": (_bisect, "BISECT_LOG", ("bisect is in progress", "git bisect reset")),
    "detached": (_detached, "HEAD", ("HEAD is detached", "git switch")),
    "orphan": (_orphan, "HEAD", ("has no commit yet", "git switch")),
}


def _mcp_remember(vault: Path) -> tuple[int, str]:
    from mcp.server.mcpserver.exceptions import ToolError

    from cardvault.app import Session
    from cardvault.mcp.tools import MemoryTools
    from cardvault.mcp.turns import Turns

    turns = Turns(Session(vault, clock=lambda: dt.datetime.fromisoformat(NOW)))
    try:
        MemoryTools(turns).remember("raise client_max_body_size for uploads")
    except ToolError as exc:
        return 1, str(exc)
    return 0, "written"


#: Each writer, as a person or an agent runs it.
WRITERS: dict[str, Callable[[Path], tuple[int, str]]] = {
    "log": lambda v: cv(v, "log", "an entry", "--title", "state test"),
    "new": lambda v: cv(v, "new", "Card in a state", "-c", "tools", "--body", "Body."),
    "remember": lambda v: cv(v, "remember", "raise client_max_body_size for uploads"),
    "forget": lambda v: cv(v, "forget", "nginx", "--yes"),
    "check --fix": lambda v: cv(v, "check", "--fix"),
    "maintain": lambda v: cv(v, "maintain", "--only", "archive,index"),
    "sync": lambda v: cv(v, "sync"),
    "mcp remember": _mcp_remember,
}


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One repository per state (and one clean), made once; each test works on a copy."""
    folder = tmp_path_factory.mktemp("git-states")
    made = {}
    for name, (enter, _, _) in {"clean": (lambda _: None, "", ()), **STATES}.items():
        top = folder / name
        _base(top, top)
        enter(top)
        made[name] = top
    return made


def _copy(template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(template, root, symlinks=True)
    shutil.copytree(template.parent / f"{template.name}-remote.git", tmp_path / "vault-remote.git")
    _git(root, "remote", "set-url", "origin", str(tmp_path / "vault-remote.git"))
    return root


def _refs(root: Path) -> str:
    """Every ref and HEAD, and the reflog of HEAD: a commit anywhere would show here."""
    return _git(root, "show-ref", "--head", check=False) + _git(
        root, "reflog", "--format=%H", check=False
    )


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("state", list(STATES))
def test_each_writer_refuses_in_each_git_state_and_writes_nothing(
    templates: dict[str, Path], tmp_path: Path, state: str, writer: str
) -> None:
    root = _copy(templates[state], tmp_path)
    _, marker, words = STATES[state]
    assert (root / ".git" / marker).exists(), f"git did not enter the {state} state"
    files, refs = snapshot(root), _refs(root)
    code, out = WRITERS[writer](root)
    assert code == 1, out
    errors = [line for line in out.splitlines() if line.startswith("error:")] or [out]
    assert len(errors) == 1, out  # one line (forget's preview of what it would remove aside)
    said = errors[0]
    for word in (*words, "nothing written"):
        assert word in said, said
    assert snapshot(root) == files  # nothing written
    assert _refs(root) == refs  # no commit at all: none for git to drop later
    assert (root / ".git" / marker).exists()
    assert not (root / ".cardvault" / "journal.json").exists()


@pytest.mark.parametrize("state", list(STATES))
def test_readers_keep_working_in_each_git_state(
    templates: dict[str, Path], tmp_path: Path, state: str
) -> None:
    root = _copy(templates[state], tmp_path)
    for args in (("list",), ("show", "nginx-uploads"), ("search", "--mode", "keyword", "nginx")):
        code, out = cv(root, *args)
        assert code == 0, (args, out)
    assert "Nginx" in cv(root, "search", "--mode", "keyword", "nginx")[1]


def test_once_the_rebase_is_aborted_the_write_lands_on_the_branch(
    templates: dict[str, Path], tmp_path: Path
) -> None:
    root = _copy(templates["rebase"], tmp_path)
    assert cv(root, "log", "refused first")[0] == 1
    _git(root, "rebase", "--abort")
    code, out = cv(root, "log", "written after the abort", "--title", "after")
    assert code == 0, out
    assert git(root, "log", "-1", "--format=%s", "side").strip().startswith("log:")
    assert "written after the abort" in git(root, "show", "side", "--format=")


def test_a_vault_in_a_subfolder_of_a_larger_repository(tmp_path: Path) -> None:
    top = tmp_path / "project"
    vault = top / "docs" / "memory-vault"
    _base(top, vault)
    code, out = cv(vault, "log", "written in the subfolder", "--title", "sub")
    assert code == 0, out
    assert git(top, "log", "-1", "--format=%s", "main").startswith("log:")
    assert git(top, "status", "--porcelain") == ""
    _merge(top)
    assert (top / ".git" / "MERGE_HEAD").exists()
    before, refs = snapshot(vault), _refs(top)
    for writer in ("log", "new", "remember", "sync", "mcp remember"):
        code, out = WRITERS[writer](vault)
        assert code == 1 and "merge is in progress" in out, (writer, out)
    assert snapshot(vault) == before and _refs(top) == refs
    assert cv(vault, "list")[0] == 0


def test_unfinished_operation_reads_each_state_file(tmp_path: Path) -> None:
    from cardvault.history import unfinished_operation

    top = tmp_path / "repo"
    _base(top, top)
    assert unfinished_operation(top) is None
    assert unfinished_operation(tmp_path / "elsewhere") is None  # not a repository
    folder = top / ".git"
    (folder / "rebase-apply").mkdir()
    assert unfinished_operation(top).kind == "rebase"  # type: ignore[union-attr]
    (folder / "rebase-apply" / "applying").touch()
    found = unfinished_operation(top)
    assert found is not None and found.kind == "am" and "git am --abort" in found.message
    shutil.rmtree(folder / "rebase-apply")
    empty = tmp_path / "empty"  # a new repository, or a clone of an empty remote: no branch
    _git(tmp_path, "init", "-q", "-b", "main", str(empty))  # has a commit; the first is right
    assert unfinished_operation(empty) is None
    (folder / "sequencer").mkdir()
    assert unfinished_operation(top).kind == "sequence"  # type: ignore[union-attr]
