"""history/ owns git: how many gits a write starts, what the index is asked, git's lock files in
a linked work tree, GitPython's repository opened safely and its commands given the safe
environment, review branches that keep file modes, HEAD's texts read as objects."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cardvault import history
from cardvault.edits.changes import DeleteFile, WriteFile
from cardvault.edits.door import Door
from cardvault.edits.proposal import propose
from cardvault.history.repo import open_repo
from cardvault.vault.files import ABSENT, read_text
from cardvault.vault.layout import open_vault_at
from tests.support.machine import scaled
from tests.support.writers import REPO, git

NOW = "2026-03-19T14:30"


def _logging_git(tmp_path: Path) -> tuple[Path, Path]:
    """A `git` first on PATH that notes each command line, then runs the real git."""
    real = shutil.which("git")
    assert real is not None
    folder = tmp_path / "shim"
    folder.mkdir(exist_ok=True)
    calls = tmp_path / "git-calls.txt"
    shim = folder / "git"
    shim.write_text(f'#!/bin/sh\necho "$*" >> {calls}\nexec {real} "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    return folder, calls


def _cli_with_counted_gits(tmp_path: Path, root: Path, *args: str) -> list[str]:
    """Run the CLI in a fresh process on `root`; the git commands it started."""
    folder, calls = _logging_git(tmp_path)
    calls.unlink(missing_ok=True)
    env = {
        **os.environ,
        "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}",
        "CARDVAULT_VAULT": str(root),
        "CARDVAULT_NOW": NOW,
    }
    done = subprocess.run(
        [sys.executable, "-m", "cardvault", *args],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=scaled(300), check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return calls.read_text(encoding="utf-8").splitlines() if calls.exists() else []


def _with_identity(root: Path) -> None:
    git(root, "config", "user.name", "Test Person")
    git(root, "config", "user.email", "person@example.com")


def test_a_log_and_a_new_card_start_three_or_four_gits(vault_path: Path, tmp_path: Path) -> None:
    """The everyday write: is anything else staged (no), add the new file, commit it; or for
    an existing file: its hand edits (none), is anything else staged, commit it. A new card
    also rewrites MEMORY.md's table (edits/derived.py): that file's hand edits are asked
    first. Nothing more (the cache folder is answered from the index file, the drivers from
    the config file, HEAD from the refs)."""
    _with_identity(vault_path)
    first = _cli_with_counted_gits(tmp_path, vault_path, "log", "the first entry of the day")
    assert [line.split()[0] for line in first] == ["diff", "add", "-c"]
    assert "commit -q --no-verify" in first[2] and "--include --" in first[2]
    again = _cli_with_counted_gits(tmp_path, vault_path, "log", "a second entry")
    assert [line.split()[0] for line in again] == ["status", "diff", "-c"]
    card = _cli_with_counted_gits(
        tmp_path, vault_path, "new", "Counted", "-c", "tools", "--body", "b"
    )
    assert [line.split()[0] for line in card] == ["status", "diff", "add", "-c"]
    assert git(vault_path, "status", "--porcelain") == ""
    shown = git(vault_path, "show", "--name-only", "--format=%s", "HEAD").split()
    assert sorted(shown[-2:]) == ["MEMORY.md", "memory/cards/counted.md"]


def test_a_commit_of_a_few_files_leaves_what_else_is_staged(vault_path: Path) -> None:
    vault = open_vault_at(vault_path)
    other = vault_path / "notes.txt"
    other.write_text("staged by the person\n", encoding="utf-8")
    git(vault_path, "add", "notes.txt")
    memory = read_text(vault.memory_md, vault.root)
    change = WriteFile(vault.memory_md, memory.text + "\nmore\n", memory.digest, "more")
    card = WriteFile(vault.card_path("fresh"), "---\ntopic: F\n---\nbody\n", ABSENT, "new")
    written = Door(vault).commit(lambda: propose([change, card], "two files", None))
    assert written.commit is not None and written.commit.recorded
    committed = git(vault_path, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(committed) == ["MEMORY.md", "memory/cards/fresh.md"]
    assert git(vault_path, "status", "--porcelain").splitlines() == ["A  notes.txt"]


def test_a_removal_of_a_tracked_file_is_one_commit(vault_path: Path) -> None:
    vault = open_vault_at(vault_path)
    keep = vault_path / "memory" / "cards" / ".gitkeep"
    gone = DeleteFile(keep, read_text(keep, vault.root).digest, "removed")
    written = Door(vault).commit(lambda: propose([gone], "remove the keep file", None))
    assert written.commit is not None and written.commit.recorded
    assert git(vault_path, "show", "--name-status", "--format=", "HEAD").split() == [
        "D",
        "memory/cards/.gitkeep",
    ]


def test_the_cache_folder_is_asked_of_git_only_when_the_index_may_list_it(
    vault_path: Path, tmp_path: Path
) -> None:
    vault = open_vault_at(vault_path)
    assert history.tracked_under(vault, vault.cache_dir) == []
    _with_identity(vault_path)
    plain = _cli_with_counted_gits(tmp_path, vault_path, "log", "no cache files tracked")
    assert not any(line.startswith("ls-files") for line in plain)
    forged = vault.cache_dir / "journal.json"
    forged.parent.mkdir(exist_ok=True)
    forged.write_text("{}", encoding="utf-8")
    git(vault_path, "add", "-f", ".cardvault/journal.json")
    assert history.tracked_under(vault, vault.cache_dir) == [".cardvault/journal.json"]
    git(vault_path, "update-index", "--index-version", "4")  # paths kept shortened: ask git
    assert history.tracked_under(vault, vault.cache_dir) == [".cardvault/journal.json"]
    git(vault_path, "rm", "-q", "--cached", ".cardvault/journal.json")
    assert history.tracked_under(vault, vault.cache_dir) == []


def test_stale_lock_files_of_a_linked_work_tree_are_cleared(vault_path: Path) -> None:
    """A vault checked out as a linked work tree: its index lock is in its own git folder,
    the branch's lock in the common one; a write clears both."""
    linked = vault_path.parent / "linked"
    git(vault_path, "worktree", "add", "-q", "-b", "side", str(linked))
    folder = history.git_dir(linked)
    assert folder is not None and folder != vault_path / ".git"
    (folder / "index.lock").write_text("", encoding="utf-8")
    (vault_path / ".git" / "refs" / "heads" / "side.lock").write_text("", encoding="utf-8")
    found = {path.name for path in history.git_lock_files(linked)}
    assert found == {"index.lock", "side.lock"}
    assert sorted(history.clear_stale_git_locks(linked)) == ["index.lock", "refs/heads/side.lock"]
    assert history.git_lock_files(linked) == []


def _holding_a_ref_lock(work_tree: Path, ref: str) -> subprocess.Popen[str]:
    """A live git in `work_tree` holding `ref`'s lock file (a prepared `update-ref`
    transaction: git keeps the lock until it is told to commit)."""
    sha = git(work_tree, "rev-parse", "HEAD").strip()
    held = subprocess.Popen(
        ["git", "update-ref", "--stdin"],
        cwd=work_tree,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert held.stdin is not None and held.stdout is not None
    held.stdin.write(f"start\nupdate {ref} {sha}\nprepare\n")
    held.stdin.flush()
    assert held.stdout.readline() == "start: ok\n"
    assert held.stdout.readline() == "prepare: ok\n"
    return held


@pytest.mark.parametrize("vault_in", ["main", "linked"])
def test_a_live_gits_lock_in_the_other_work_tree_of_the_repository_is_left_alone(
    vault_path: Path, vault_in: str
) -> None:
    """A vault sharing its repository with another work tree (`git worktree add`): a git
    running in the other one holds a lock in the common git folder (its branch's ref); a
    write in the vault leaves it, and the other git finishes."""
    linked = vault_path.parent / "linked"
    git(vault_path, "worktree", "add", "-q", "-b", "side", str(linked))
    here, there = (vault_path, linked) if vault_in == "main" else (linked, vault_path)
    ref = "refs/heads/side" if vault_in == "main" else "refs/heads/main"
    held = _holding_a_ref_lock(there, ref)
    lock = vault_path / ".git" / f"{ref}.lock"
    try:
        assert lock.is_file()
        assert history.clear_stale_git_locks(here) == []
        assert lock.is_file()
    finally:
        out, _ = held.communicate("commit\n", timeout=scaled(30))
    assert held.returncode == 0 and out == "commit: ok\n"


def test_a_write_in_a_linked_work_tree_leaves_the_main_work_trees_index_lock(
    vault_path: Path, tmp_path: Path
) -> None:
    """The main work tree's `git commit` waits in its editor, holding `.git/index.lock` (the
    main work tree's index, no file of the linked one's): a write in a vault checked out as a
    linked work tree neither removes it nor waits for it, and the person's commit goes in."""
    linked = vault_path.parent / "linked"
    git(vault_path, "worktree", "add", "-q", "-b", "side", str(linked))
    started, flag = tmp_path / "editing", tmp_path / "done-editing"
    editor = tmp_path / "editor.sh"
    editor.write_text(
        f'#!/bin/sh\ntouch "{started}"\nwhile [ ! -e "{flag}" ]; do sleep 0.05; done\n'
        'echo "my message" > "$1"\n',
        encoding="utf-8",
    )
    editor.chmod(0o755)
    _with_identity(vault_path)
    (vault_path / "code.txt").write_text("code\n", encoding="utf-8")
    git(vault_path, "add", "code.txt")
    person = subprocess.Popen(
        ["git", "commit", "--", "code.txt"],
        cwd=vault_path,
        env={**os.environ, "GIT_EDITOR": str(editor)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    index_lock = vault_path / ".git" / "index.lock"
    try:
        while not started.exists():
            assert person.poll() is None, person.communicate()
        assert index_lock.is_file()
        assert history.clear_stale_git_locks(linked) == []
        assert history.git_lock_files(linked) == []  # nothing of the linked one's to wait for
        assert index_lock.is_file()
    finally:
        flag.write_text("", encoding="utf-8")
        _, err = person.communicate(timeout=scaled(30))
    assert person.returncode == 0, err
    assert git(vault_path, "log", "-1", "--format=%s").strip() == "my message"


def test_gitpython_opens_the_work_trees_git_folder_never_a_lookalike(vault_path: Path) -> None:
    """Files at the top of the work tree that mimic a bare repository (a HEAD, objects/,
    refs/) are never taken for the repository: GitPython is handed `.git`."""
    (vault_path / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (vault_path / "objects" / "info").mkdir(parents=True)
    (vault_path / "refs" / "heads").mkdir(parents=True)
    (vault_path / "config").write_text("[core]\n\tbare = true\n", encoding="utf-8")
    repo = open_repo(vault_path / "memory")
    assert repo is not None
    assert Path(repo.git_dir) == (vault_path / ".git").resolve()
    assert Path(repo.working_tree_dir or "") == vault_path.resolve()


def test_every_git_gitpython_starts_gets_the_safe_environment(vault_path: Path) -> None:
    repo = open_repo(vault_path)
    assert repo is not None
    said = repo.git.execute(
        ["git", "config", "--get", "safe.bareRepository"], strip_newline_in_stdout=False
    )
    assert said == "explicit\n"  # kept byte for byte: no newline taken off
    seen = repo.git.execute(["env"])  # GitPython's own calls go through the same door
    assert "GIT_LITERAL_PATHSPECS=1" in str(seen).splitlines()


def test_a_review_branch_keeps_modes_and_leaves_the_work_tree(vault_path: Path) -> None:
    vault = open_vault_at(vault_path)
    script = vault_path / "memory" / "run.sh"
    script.write_text("echo hi\n", encoding="utf-8")
    script.chmod(0o755)
    git(vault_path, "add", "memory/run.sh")
    history.commit(vault, "a script", [script])
    head = git(vault_path, "rev-parse", "HEAD").strip()
    files: dict[Path, str | None] = {
        script: "echo changed\n",
        vault.card_path("on-the-branch"): "---\ntopic: B\n---\nbody\n",
        vault_path / "memory" / "cards" / ".gitkeep": None,
    }
    done = history.commit_to_branch(vault, "cardvault/try", "on a branch", files)
    assert done.recorded
    listed = git(vault_path, "ls-tree", "-r", "cardvault/try").splitlines()
    modes = {line.split("\t")[1]: line.split()[0] for line in listed}
    assert modes["memory/run.sh"] == "100755"
    assert modes["memory/cards/on-the-branch.md"] == "100644"
    assert "memory/cards/.gitkeep" not in modes
    assert git(vault_path, "show", "cardvault/try:memory/run.sh") == "echo changed\n"
    assert git(vault_path, "rev-parse", "HEAD").strip() == head
    assert script.read_text(encoding="utf-8") == "echo hi\n"
    assert git(vault_path, "status", "--porcelain") == ""


def test_heads_texts_are_read_for_the_files_it_holds(vault_path: Path) -> None:
    (vault_path / "MEMORY.md").write_text("edited, not committed\n", encoding="utf-8")
    texts = history.committed_texts(vault_path, ["MEMORY.md", "memory/cards/nothing.md"])
    assert list(texts) == ["MEMORY.md"]
    assert texts["MEMORY.md"] == git(vault_path, "show", "HEAD:MEMORY.md")


@pytest.mark.parametrize("conflicted", [False, True])
def test_merge_file_counts_conflicts(conflicted: bool) -> None:
    base = "one\ntwo\nthree\nfour\nfive\n"
    ours = "ONE\ntwo\nthree\nfour\nfive\n"
    theirs = "one\ntwo\nthree\nfour\nFIVE\n" if not conflicted else "1\ntwo\nthree\nfour\nfive\n"
    text, conflicts = history.merge_texts(base, ours, theirs)
    if conflicted:
        assert conflicts == 1 and "<<<<<<< ours\nONE\n=======\n1\n>>>>>>> theirs\n" in text
    else:
        assert (text, conflicts) == ("ONE\ntwo\nthree\nfour\nFIVE\n", 0)
