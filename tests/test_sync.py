"""`cardvault sync` with three clones and a bare remote: logs and cards written everywhere, synced
in random order; the same card edited (different keys, different lines) and the same day's log
appended on several machines; one true conflict reported as `path:line` and resolved by hand."""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import run_cli, snapshot
from tests.support.machine import scaled
from tests.support.writers import assert_vault_sound, git

SHARED = "memory/cards/shared-runbook.md"
BODY = "Line for a.\n\nkept 1\nkept 2\n\nLine for b.\n\nkept 3\nkept 4\n\nLine for c.\n"


def cv(root: Path, *args: str, now: str = "2026-03-19T10:00") -> object:
    result = run_cli(["--vault", str(root), *args], env={"CARDVAULT_NOW": now})
    return result


def ok(root: Path, *args: str, now: str = "2026-03-19T10:00") -> str:
    result = cv(root, *args, now=now)
    assert result.exit_code == 0, f"{args}: {result.output}"  # type: ignore[attr-defined]
    return str(result.output)  # type: ignore[attr-defined]


def clones(tmp_path: Path, names: str = "abc") -> list[Path]:
    """A bare remote and one vault per name, all at the same first commit."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    first = tmp_path / names[0]
    ok(tmp_path, "init", str(first))
    git(first, "remote", "add", "origin", str(remote))
    ok(first, "new", "Shared runbook", "-c", "workflow", "-t", "ops", "--body", BODY)
    ok(first, "sync")
    roots = [first]
    for name in names[1:]:
        subprocess.run(["git", "clone", "-q", str(remote), str(tmp_path / name)], check=True)
        roots.append(tmp_path / name)
    return roots


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (old, text)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_three_clones_converge_with_every_entry_once(tmp_path: Path) -> None:
    rng = random.Random(20260319)
    roots = clones(tmp_path)
    a, b, c = roots
    for root in (b, c):
        ok(root, "sync")  # a first sync in each clone sets up its drivers
    # different keys and lines of one card, and the same day's log, on each machine
    edit(a / SHARED, "tags: [ops]", "tags: [ops, from-a]")
    edit(b / SHARED, "updated: 2026-03-19", "updated: 2026-03-19\nseverity: high")
    edit(b / SHARED, "Line for b.", "Line for b, edited on b.")
    edit(c / SHARED, "Line for c.", "Line for c, edited on c.")
    edit(c / SHARED, "tags: [ops]", "tags: [ops, from-c]")
    tokens: list[str] = []
    for step in range(18):
        root = rng.choice(roots)
        name = root.name
        minute = step + 1
        now = f"2026-03-19T{11 + minute // 60:02d}:{minute % 60:02d}"
        token = f"{name}{step}t{rng.randrange(10**5):05d}"
        tokens.append(token)
        if rng.random() < 0.6:
            ok(root, "log", f"note {token}", "--title", token, now=now)
        else:
            ok(root, "new", f"Card {token}", "-c", "tools", "--body", f"About {token}.", now=now)
        if rng.random() < 0.5:
            ok(rng.choice(roots), "sync", now=now)
    for _ in range(2):
        for root in roots:
            ok(root, "sync")
    heads = {git(root, "rev-parse", "HEAD") for root in roots}
    assert len(heads) == 1
    files = [snapshot(root) for root in roots]
    assert files[0] == files[1] == files[2]
    texts = {rel: data.decode("utf-8") for rel, data in files[0].items()}
    everything = "\n".join(texts.values())
    for token in tokens:
        assert (
            len(re.findall(rf"(?m)^## \d\d:\d\d — {token}(?: <!-- id:\w+ -->)?$", everything))
            + sum(1 for rel in texts if rel.startswith("memory/cards/") and token in texts[rel])
            == 1
        ), token
    assert "<<<<<<<" not in everything and ">>>>>>>" not in everything
    shared = texts[SHARED]
    assert "tags: [ops, from-a, from-c]" in shared or "tags: [ops, from-c, from-a]" in shared
    assert "severity: high" in shared
    assert "Line for b, edited on b." in shared and "Line for c, edited on c." in shared
    for root in roots:
        assert_vault_sound(root)
        assert cv(root, "check").exit_code == 0  # type: ignore[attr-defined]


def test_the_same_days_log_appended_on_two_machines_keeps_both_in_time_order(
    tmp_path: Path,
) -> None:
    a, b = clones(tmp_path, "ab")
    ok(b, "sync")
    ok(a, "log", "from a at ten", "--title", "a-ten", now="2026-03-20T10:00")
    ok(b, "log", "from b at nine", "--title", "b-nine", now="2026-03-20T09:00")
    ok(b, "log", "from b at eleven", "--title", "b-eleven", now="2026-03-20T11:00")
    ok(a, "sync")
    ok(b, "sync")
    ok(a, "sync")
    log = (a / "memory" / "2026-03-20.md").read_text(encoding="utf-8")
    assert log == (b / "memory" / "2026-03-20.md").read_text(encoding="utf-8")
    titles = re.findall(r"(?m)^## \d\d:\d\d — (\S+)(?: <!-- id:\w+ -->)?$", log)
    assert titles == ["b-nine", "a-ten", "b-eleven"]


def test_a_true_conflict_is_reported_and_resolvable(tmp_path: Path) -> None:
    a, b = clones(tmp_path, "ab")
    ok(b, "sync")
    edit(a / SHARED, "Line for a.", "Line for a, as a wrote it.")
    edit(b / SHARED, "Line for a.", "Line for a, as b wrote it.")
    ok(a, "sync")
    before = git(b, "rev-parse", "HEAD")
    result = cv(b, "sync")
    assert result.exit_code == 1  # type: ignore[attr-defined]
    output = str(result.output)  # type: ignore[attr-defined]
    match = re.search(rf"{re.escape(SHARED)}:(\d+): both sides changed these lines", output)
    assert match, output
    assert "git merge origin/main" in output
    # the repository is as it was (plus the hand edit committed first), no merge left half-done
    assert git(b, "status", "--porcelain") == ""
    assert not (b / ".git" / "MERGE_HEAD").exists()
    assert git(b, "rev-parse", "HEAD~1") == before
    # resolved with plain git, as the message says
    merged = subprocess.run(
        ["git", "-C", str(b), "-c", "user.name=t", "-c", "user.email=t@t", "merge", "origin/main"],
        capture_output=True,
    )
    assert merged.returncode == 1
    text = (b / SHARED).read_text(encoding="utf-8")
    assert text.splitlines()[int(match.group(1)) - 1].startswith("<<<<<<<")
    resolved = re.sub(r"<<<<<<< ours\n.*?>>>>>>> theirs\n", "Line for a, agreed.\n", text,
                      flags=re.S)  # fmt: skip
    (b / SHARED).write_text(resolved, encoding="utf-8")
    git(b, "add", SHARED)
    git(b, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--no-edit")
    ok(b, "sync")
    ok(a, "sync")
    assert snapshot(a) == snapshot(b)
    assert "Line for a, agreed." in (a / SHARED).read_text(encoding="utf-8")


def test_a_push_refused_because_another_machine_pushed_first_is_retried(tmp_path: Path) -> None:
    a, b, c = clones(tmp_path)
    for root in (b, c):
        ok(root, "sync")
    ok(c, "log", "c was quicker", "--title", "c-first")
    marker = tmp_path / "pushed-first"
    hook = b / ".git" / "hooks" / "pre-push"
    hook.write_text(
        "#!/bin/sh\nunset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE\n"
        f'if [ ! -e "{marker}" ]; then touch "{marker}"\n'
        f'git -C "{c}" push -q origin HEAD:main; fi\n'
        "exit 0\n",
        encoding="utf-8",
    )
    hook.chmod(0o755)
    ok(b, "log", "b was second", "--title", "b-second")
    with pytest.MonkeyPatch.context() as patch:  # the clone's own hooks run only when allowed
        patch.setenv("CARDVAULT_GIT_HOOKS", "1")
        output = ok(b, "sync")
    assert marker.exists() and "after 2 tries" in output
    ok(a, "sync")
    log = (a / "memory" / "2026-03-19.md").read_text(encoding="utf-8")
    assert "c-first" in log and "b-second" in log


def test_sync_refuses_a_vault_outside_git_and_an_unknown_remote(tmp_path: Path) -> None:
    (a,) = clones(tmp_path, "a")
    result = cv(a, "sync", "--remote", "nowhere")
    assert result.exit_code == 1 and "no git remote named 'nowhere'" in str(result.output)  # type: ignore[attr-defined]


def test_git_failures_are_one_line_with_all_git_said(tmp_path: Path) -> None:
    """A remote that is no repository, and a push its server refuses with a message of several
    lines (a pre-receive hook): one error line, every message git gave kept, no `fatal:`."""
    (a,) = clones(tmp_path, "a")
    git(a, "remote", "add", "gone", str(tmp_path / "no-such-remote.git"))
    missing = cv(a, "sync", "--remote", "gone")
    said = str(missing.stderr)  # type: ignore[attr-defined]
    assert missing.exit_code == 1  # type: ignore[attr-defined]
    assert said.count("\n") == 1 and "fatal:" not in said, said
    assert "does not appear to be a git repository" in said and "access rights" in said
    hook = tmp_path / "remote.git" / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\necho 'Memory is frozen for the audit.' >&2\n"
        "echo 'Ask the owner to open it.' >&2\nexit 1\n",
        encoding="utf-8",
    )
    hook.chmod(0o755)
    ok(a, "log", "written during the audit")
    with pytest.MonkeyPatch.context() as patch:  # the remote's hook runs only when allowed
        patch.setenv("CARDVAULT_GIT_HOOKS", "1")
        refused = cv(a, "sync")
    said = str(refused.stderr)  # type: ignore[attr-defined]
    assert refused.exit_code == 1  # type: ignore[attr-defined]
    assert said.count("\n") == 1 and "error:" not in said.removeprefix("error:"), said
    assert "Memory is frozen for the audit" in said and "Ask the owner to open it" in said


@pytest.mark.slow
def test_sync_brings_an_existing_search_index_up_to_date(tmp_path: Path) -> None:
    from cardvault.search.freshness import index_freshness
    from cardvault.vault.layout import open_vault_at

    a, b = clones(tmp_path, "ab")
    ok(a, "index")
    ok(b, "new", "Kafka consumer lag", "-c", "tools", "--body", "Lag grows when a rebalance loops.")
    ok(b, "sync")
    ok(a, "log", "something of mine", "--title", "mine")  # so the sync is a true merge
    output = ok(a, "sync")
    assert "search index updated" in output
    assert index_freshness(open_vault_at(a)).fresh


def test_a_writer_waiting_behind_a_sync_is_not_held_across_its_fetch(tmp_path: Path) -> None:
    """The fetch holds no lock: a `log` with a 1 s lock timeout succeeds while a sync waits
    seconds for its remote (an upload-pack that sleeps first, as a slow network would)."""
    import sys
    import time

    from tests.support.writers import REPO, cardvault, set_lock_timeout

    a, b = clones(tmp_path, "ab")
    ok(b, "log", "from b", "--title", "b")
    ok(b, "sync")
    set_lock_timeout(a, 1)
    git(a, "config", "remote.origin.uploadpack", "sleep 6; git-upload-pack")
    env = {**__import__("os").environ, "CARDVAULT_VAULT": str(a)}
    slow = subprocess.Popen([sys.executable, "-m", "cardvault", "sync"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        time.sleep(3)  # the sync is in its fetch by now (or not started: the log passes anyway)
        done = cardvault(a, "log", "written while a sync fetches", "--title", "meanwhile")
        assert done.returncode == 0, done.stderr
    finally:
        _, err = slow.communicate(timeout=scaled(300))
    assert slow.returncode == 0, err
    logs = sorted((a / "memory").glob("20*.md"))
    assert "written while a sync fetches" in logs[-1].read_text()


def test_a_clone_that_checks_out_crlf_line_ends_commits_nothing_to_gitattributes(
    tmp_path: Path,
) -> None:
    """A teammate whose git checks text out with CRLF line ends (`core.autocrlf=true`, as on
    Windows) has cardvault's `.gitattributes` block, only with other line ends: their first
    write takes it as it is (before: an extra blank line committed and pushed by every such
    clone), and their entries reach the others once each."""
    a, _ = clones(tmp_path, "ab")
    b = tmp_path / "crlf"
    remote = str(tmp_path / "remote.git")
    subprocess.run(["git", "clone", "-q", "-c", "core.autocrlf=true", remote, str(b)], check=True)
    assert b"\r\n" in (b / ".gitattributes").read_bytes()
    ok(b, "log", "Lesson: the CRLF clone's entry", "--title", "crlf")
    assert git(b, "log", "--format=%s", "-1", "--", ".gitattributes").strip() == "vault: init"
    ok(b, "sync")
    ok(a, "sync")
    assert (a / "memory" / "2026-03-19.md").read_text(encoding="utf-8").count("CRLF clone") == 1
    assert git(a, "diff", "HEAD~1", "--stat", "--", ".gitattributes") == ""


def test_editor_swap_backup_and_lock_files_beside_cards_are_never_committed_or_pushed(
    tmp_path: Path,
) -> None:
    """A swap file holds the editor's unsaved text (a token pasted a moment ago): sync commits
    the person's saved hand edit, never what an editor or Finder leaves beside it, even in a
    vault whose .gitignore (older, or written by hand) does not ignore those."""
    (a,) = clones(tmp_path, "a")
    (a / ".gitignore").write_text(".cardvault/\n", encoding="utf-8")
    git(
        a,
        "-c",
        "user.name=Ann",
        "-c",
        "user.email=ann@example.com",
        "commit",
        "-qam",
        "an old ignore",
    )
    cards = a / "memory" / "cards"
    edit(cards / "shared-runbook.md", "kept 1", "kept 1, saved by hand")
    junk = {
        cards
        / ".shared-runbook.md.swp": b"b0VIM 9.0\x00\x00ghp_1234567890abcdefghijklmnopqrstuvwxyzAB",
        cards / "shared-runbook.md~": b"the previous version",
        cards / "#shared-runbook.md#": b"an autosave",
        cards / "notes.png": b"\x89PNG\r\n",
        a / "memory" / ".DS_Store": b"\x00\x00\x00\x01Bud1",
    }
    for path, data in junk.items():
        path.write_bytes(data)
    (cards / ".#shared-runbook.md").symlink_to("someone@host.4242")  # Emacs's lock
    ok(a, "sync")
    pushed = git(a, "ls-tree", "-r", "--name-only", "origin/main").split()
    assert "memory/cards/shared-runbook.md" in pushed
    assert not [name for name in pushed if name.endswith(("~", "#", ".swp", ".png", "Store"))]
    assert not [name for name in pushed if "/.#" in name]
    shown = git(a, "show", "origin/main:memory/cards/shared-runbook.md")
    assert "kept 1, saved by hand" in shown
    assert all(path.exists() for path in junk)  # left where they were, the user's own


def test_a_new_vault_ignores_editor_files(tmp_path: Path) -> None:
    root = tmp_path / "v"
    ok(tmp_path, "init", str(root))
    for name in (".card.md.swp", "card.md~", "#card.md#", ".#card.md", ".DS_Store"):
        (root / "memory" / "cards" / name).write_text("x", encoding="utf-8")
    assert git(root, "status", "--porcelain", "--untracked-files=all").strip() == ""
