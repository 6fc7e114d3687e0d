"""No secret of the guard's corpus reaches git history, a file name or `.cardvault/`, on any
write path, refused or redacted.

Each test feeds every secret note of tests/fixtures/secrets/secrets.txt through one write path
of the real CLI, with and without `--redact` where the command has it, then looks for every
10-character piece of every secret in `git log -p --all` (messages and diffs of every branch),
in every file name the history has ever held, and in every byte under `.cardvault/`.

Paths that act on what is already in the vault (maintain, promote, forget) start from secrets
planted by hand in a commit of the test's own; for them the check covers what cardvault added:
its commits' messages, the lines their diffs add, and the names of the files they create.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.test_guard import SECRETS

CASES = [(label, secrets, text) for label, secrets, text in SECRETS]


def windows(secret: str, size: int = 10) -> set[str]:
    """Every `size`-character piece of `secret` (the whole of a shorter one)."""
    if len(secret) <= size:
        return {secret}
    return {secret[i : i + size] for i in range(len(secret) - size + 1)}


def leaks(haystack: str, cases: Iterable[tuple[str, list[str], str]] = CASES) -> list[str]:
    """Labels of the cases any piece of whose secrets occurs in `haystack`."""
    found = []
    for label, secrets, _ in cases:
        if any(piece in haystack for secret in secrets for piece in windows(secret)):
            found.append(label)
    return found


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=True)
    return done.stdout.decode("utf-8", "replace")


def whole_history(root: Path) -> str:
    """Messages and diffs of every commit on every branch, and every file name ever held."""
    return git(root, "log", "-p", "--all", "--format=%H%n%B") + git(
        root, "log", "--all", "--name-only", "--format="
    )


def added_since(root: Path, base: str) -> str:
    """What cardvault's commits after `base` add: messages, `+` lines, names of new files."""
    patch = git(root, "log", "-p", "--all", "--format=%n%B", f"{base}..")
    added = [line for line in patch.splitlines() if not line.startswith(("-", " "))]
    names = git(root, "log", "--all", "--diff-filter=AR", "--name-only", "--format=", f"{base}..")
    return "\n".join(added) + names


def cache_bytes(root: Path) -> str:
    """Every file under `.cardvault/` (the index, vectors, lock), as text."""
    cache = root / ".cardvault"
    files = sorted(p for p in cache.rglob("*") if p.is_file()) if cache.is_dir() else []
    return "\n".join(p.read_bytes().decode("latin-1") for p in files)


def files_now(root: Path) -> str:
    return "\n".join(
        p.relative_to(root).as_posix() for p in root.rglob("*") if ".git" not in p.parts
    )


@pytest.fixture(autouse=True)
def built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Typer rebuilds the click command on every invoke (~80 ms); these tests invoke it ~1,000
    times, so build it once."""
    import typer.testing

    monkeypatch.setattr(typer.testing, "_get_command", functools.cache(typer.testing._get_command))


def cli(root: Path, *args: str):
    return run_cli(["--vault", str(root), *args])


def secret_line(secrets: list[str], text: str) -> str:
    """The line of `text` holding the first secret, with the note's own wording around it; the
    whole note for a key block (one line of a key's body says nothing about what it is)."""
    from cardvault import guard

    line = next(line for line in text.splitlines() if secrets[0].splitlines()[0] in line)
    return line if guard.scan_text(line) else text


def assert_clean(root: Path) -> None:
    """Nothing in history, file names or the cache; the index is brought up to date first (for
    keywords, which hold the text: vectors hold numbers), so what reached a file reaches it."""
    from cardvault.search.keyword import keyword_hits
    from cardvault.vault.layout import open_vault_at

    keyword_hits(open_vault_at(root), "anything", 1, logs=True)
    assert leaks(whole_history(root)) == []
    assert leaks(files_now(root)) == []
    assert leaks(cache_bytes(root)) == []


@pytest.mark.parametrize("redact", [False, True], ids=["refused", "redacted"])
def test_log_remember_and_new(vault_path: Path, redact: bool) -> None:
    flag = ["--redact"] if redact else []
    expected = 0 if redact else 1
    for label, secrets, text in CASES:
        line = secret_line(secrets, text)
        body = line + "\n" + text  # the default title comes from the secret's line
        runs = {
            "log": cli(vault_path, "log", *flag, "--", body),
            "log --title": cli(vault_path, "log", *flag, "--title", line, "see the note"),
            "remember": cli(vault_path, "remember", *flag, "--", text),
            "new": cli(vault_path, "new", *flag, "-c", "tools", "-t", line, "-b", text, "--", line),
        }
        for name, result in runs.items():
            assert result.exit_code == expected, f"{label}: {name}: {result.output}"
            assert not leaks(result.output), f"{label}: {name} printed the secret"
    assert_clean(vault_path)


def test_capture_redacts_command_line_and_stderr(vault_path: Path) -> None:
    for label, _, text in CASES:
        script = 'printf %s "$1" >&2; exit 3'  # the note on the command line and on stderr
        result = cli(vault_path, "capture", "--", "sh", "-c", script, "sh", text)
        assert result.exit_code == 3, f"{label}: {result.output}"
    assert_clean(vault_path)


def recognisable_alone(secret: str) -> bool:
    """Whether `secret` with no words around it can be told from a name: a known format, or a
    random token. A file name of `hunter2` is indistinguishable from a word."""
    from cardvault import guard

    return bool(guard.scan_text(secret)) or any(
        guard.looks_random(part) for part in secret.replace("_", "-").split("-")
    )


def export_of(cases: list[tuple[str, list[str], str]]) -> dict[str, object]:
    """An export whose cards carry each secret in topic, tags and body, and in the file name
    where the secret is recognisable alone; whose rules and logs carry them too."""
    cards, logs = [], []
    for number, (_, secrets, text) in enumerate(cases):
        topic = json.dumps(secret_line(secrets, text))
        front = f"topic: {topic}\ncategory: tools\ntags: [imported]\n"
        front += "created: 2026-01-01\nupdated: 2026-01-01"
        slug = "-".join(re.findall(r"[a-z0-9]+", secrets[0].lower()))
        name = slug if slug and recognisable_alone(secrets[0]) else f"card-{number}"
        cards.append({"path": f"memory/cards/{name}.md", "text": f"---\n{front}\n---\n{text}\n"})
        logs.append(f"## 10:{number % 60:02d} — {secret_line(secrets, text)}\n{text}\n")
    log = {"path": "memory/2026-11-20.md", "text": "# 2026-11-20\n\n" + "\n".join(logs)}
    rules = [f"- {secret_line(s, t)}" for _, s, t in cases if "\n" not in secret_line(s, t)]
    return {
        "format": "cardvault-export",
        "version": 1,
        "cards": cards,
        "rules": rules,
        "logs": [log],
    }


@pytest.mark.parametrize("redact", [False, True], ids=["refused", "redacted"])
def test_import(vault_path: Path, tmp_path: Path, redact: bool) -> None:
    source = tmp_path / "leaky.json"
    source.write_text(json.dumps(export_of(CASES)), encoding="utf-8")
    args = ["--partial", "--redact"] if redact else []
    result = cli(vault_path, "import", *args, str(source))
    assert result.exit_code == (0 if redact else 1), result.output[-2000:]
    assert not leaks(result.output)
    assert_clean(vault_path)


def plant(root: Path, files: dict[str, str]) -> str:
    """Write `files` by hand and commit them outside cardvault; the commit id."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "hand-written notes")
    return git(root, "rev-parse", "HEAD").strip()


@pytest.mark.slow
def test_maintain_never_copies_a_hand_written_secret(vault_path: Path) -> None:
    entries = []
    for number, (_, secrets, text) in enumerate(CASES):
        line = " ".join(secret_line(secrets, text).split())
        lesson = "\n".join(f"Lesson: {part}" for part in text.splitlines() if part.strip())
        entries.append(f"## {number // 60 + 8:02d}:{number % 60:02d} — {line}\n{lesson}\n")
    base = plant(vault_path, {"memory/2026-11-20.md": "# 2026-11-20\n\n" + "\n".join(entries)})
    result = cli(vault_path, "maintain")
    assert result.exit_code == 0, result.output[-2000:]
    assert leaks(added_since(vault_path, base)) == []


def test_promote_demote_archive_and_forget_name_no_secret(vault_path: Path) -> None:
    """Every card's rule (its note's secret line) is promoted into AGENTS.md in one maintain
    promote run; a few are promoted, demoted and archived by hand; forget takes bare secrets as
    its query (forgetting a leaked key is what it is for)."""
    cards = {}
    log = "# 2026-11-01\n"  # each card a lesson the log told (promotion reads its sightings)
    for number, (_, secrets, text) in enumerate(CASES):
        rule = json.dumps(secret_line(secrets, text))
        at = f"{9 + number // 60:02d}:{number % 60:02d}"
        log += f"\n## {at} — Leaky {number}\nLesson: keep the leaky {number} tool in check.\n"
        front = f"topic: Leaky {number}\ncategory: tools\ntags: [leaky]\nseverity: high\n"
        front += f"created: 2026-11-01\nupdated: 2026-11-01\nrule: {rule}\n"
        front += f"sources:\n  - memory/2026-11-01.md#{at}"
        cards[f"memory/cards/leaky-{number}.md"] = f"---\n{front}\n---\n{text}\n"
    cards["memory/2026-11-01.md"] = log
    base = plant(vault_path, cards)
    promoted = cli(vault_path, "maintain", "--only", "promote")
    assert promoted.exit_code == 0, promoted.output[-2000:]
    assert (vault_path / "AGENTS.md").read_text().count("(memory/cards/leaky-") == len(CASES)
    for number in range(0, 12, 3):
        for command in ("demote", "archive", "promote"):
            result = cli(vault_path, command, f"leaky-{number + 1}")
            assert result.exit_code in (0, 1) and not leaks(result.output), result.output
    for _, secrets, _ in CASES[::6]:  # the query itself is the secret
        result = cli(vault_path, "forget", "--yes", "--match-text", secrets[0].splitlines()[0])
        assert result.exit_code in (0, 1) and not leaks(result.output)
    assert leaks(added_since(vault_path, base)) == []
