"""A command is one unit of work: it commits exactly its own paths, and a `kill -9` at any of
its steps leaves the vault as before or as intended once the next command has run.

- A writing command (`new`, `log`, `maintain`, `check --fix`) run beside uncommitted hand
  edits that are not its business commits only its own paths, whatever the names hold: glob
  characters (`[a]*?.md`, which `ab.md` matches as a glob), a leading `:` (git's pathspec
  magic) or `-` (an option); every path reaches git literally (history/runner.py `SAFE_ENV`;
  read as globs, `check --fix` of `[a]*?.md` commits the hand edit of `ab.md` with it).
- `sync` killed at set write steps of its merge (edits/faults.py `N:KILL`): once the next
  command (a `log`) ran, the vault's cards, MEMORY.md's table and AGENTS.md's rules are all as
  before or all as after, and the next sync leaves the vault and a fresh clone as intended
  (tests/support/sync_kill.py; the 50 trials at random moments are
  `python benchmarks/sync_kills.py`).
- A full disk during a write is tests/test_disk_full.py's (a real tmpfs), not repeated here.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.sync_kill import killed_sync, sync_states, verdict
from tests.support.writers import cardvault, git
from tests.writers_crash import NOW, sync_template

CARD = (
    "---\ntopic: {topic}\ncategory: tools\ntags: [{tag}]\ncreated: {day}\nupdated: {day}\n"
    "---\n{body}\n"
)
#: Card names git would read as something else than a file name if not told they are literal.
ODD_NAMES = ("[a]*?", ":top", "-rf")
COMMANDS = {
    "new": ["new", "Fresh card", "-c", "tools", "--body", "A fresh card."],
    "log": ["log", "an entry beside hand edits", "--title", "beside"],
    "maintain": ["maintain", "--only", "archive,index"],
    "check": ["check", "--fix"],
}


def _vault_with_odd_names(root: Path, command: str) -> None:
    """A committed vault holding `ab.md` and cards named ODD_NAMES: last updated long ago for
    `maintain` (which archives them); for `check --fix`, `[a]*?.md` with a tag to fix."""
    from cardvault.app.vaults import init_vault

    init_vault(root)
    old = "2025-01-01" if command == "maintain" else "2026-05-30"
    for name, day in [("ab", "2026-05-30"), *((n, old) for n in ODD_NAMES)]:
        tag = "Odd Tag" if command == "check" and name == "[a]*?" else "odd"
        text = CARD.format(topic=f"Odd {name}", tag=tag, day=day, body=f"What {name} says.")
        (root / "memory" / "cards" / f"{name}.md").write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fixture")


def _hand_edits(root: Path, command: str) -> list[str]:
    """Uncommitted edits beside the command, not its business: the vault's own cards (for
    `check --fix`, those it does not fix); for `maintain` (which refuses to run beside hand
    edits of the vault's files) files that are not the vault's. Their paths, relative to the
    vault."""
    if command == "maintain":  # beside the vault's files, not theirs
        edited, draft = ["ab-notes.txt", "[a]*?.md", ":top.md", "-rf.md"], "notes/[b]*-draft.md"
    else:
        names = ("ab", *ODD_NAMES[1:]) if command == "check" else ("ab", *ODD_NAMES)
        edited = [f"memory/cards/{name}.md" for name in names]
        draft = "memory/cards/[b]*-draft.md"
    for rel in edited:
        path = root / rel
        before = path.read_text(encoding="utf-8") if path.exists() else ""
        path.write_text(before + "A line typed by hand.\n", encoding="utf-8")
    (root / draft).parent.mkdir(exist_ok=True)
    (root / draft).write_text(
        CARD.format(topic="Draft", tag="odd", day="2026-05-31", body="Not yet."), "utf-8"
    )
    return [*edited, draft]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_command_beside_hand_edits_commits_only_its_own_paths(
    tmp_path: Path, command: str
) -> None:
    root = tmp_path / "vault"
    _vault_with_odd_names(root, command)
    edited = _hand_edits(root, command)
    texts = {rel: (root / rel).read_bytes() for rel in edited}
    head = git(root, "rev-parse", "HEAD").strip()

    done = cardvault(root, *COMMANDS[command], now=NOW)
    assert done.returncode == 0, done.stderr

    committed = set(
        git(root, "diff", "--name-only", "--no-renames", "-z", head, "HEAD").split("\0")
    )
    assert committed - {""}, "the command committed nothing"
    assert not committed & set(edited), f"hand edits swept into {command}'s commit"
    assert {rel: (root / rel).read_bytes() for rel in edited} == texts
    pending = git(root, "status", "--porcelain", "-z", "--untracked-files=all").split("\0")
    assert sorted(entry[3:] for entry in pending if entry) == sorted(edited)
    if command == "maintain":  # its own odd names did reach git, literally
        archived = {f"memory/archive/{name}.md" for name in ODD_NAMES}
        assert archived <= committed and "memory/cards/ab.md" not in committed
    if command == "check":
        assert committed == {"memory/cards/[a]*?.md", ""}


#: Write steps of the template's merge (edits/faults.py counts them from the lock): 1-2 the
#: journal, 3-14 the merged files (temporary file, rename), 15 the branch's move; a kill at
#: step 16 comes after the merge is in.
STEPS = (1, 3, 9, 15, 16)


@pytest.fixture(scope="module")
def sync_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sync_template(tmp_path_factory.mktemp("sync-kill") / "template")


def test_a_sync_killed_at_any_step_leaves_before_or_after_once_the_next_command_ran(
    sync_folder: Path, tmp_path: Path
) -> None:
    states = sync_states(sync_folder, tmp_path)
    seen = []
    for step in STEPS:
        trial = tmp_path / f"step-{step}"
        shutil.copytree(sync_folder, trial, symlinks=True)
        status = killed_sync(trial / "vault", step=step)
        assert status == -9 or step == STEPS[-1], f"the sync ended before its step {step}"
        found = verdict(trial, states)
        assert found in ("before", "after"), f"killed at write step {step}: {found}"
        seen.append(found)
    assert {"before", "after"} <= set(seen)
