"""`cardvault import FOLDER`: Obsidian, Claude Code memory and basic-memory folders (fixtures in
tests/fixtures/import/), plain notes, and simonw's TILs become cards whose links resolve, with
their tags and dates, in one commit, the folder untouched; and `init` in a folder of notes."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cardvault.vault.card import parse_card
from tests.support.cli import REPO, git_log, run_cli, snapshot
from tests.support.machine import scaled

FIXTURES = REPO / "tests" / "fixtures" / "import"
TIL = Path("/work/shared/data/til-simonw/notes")
NOW = {"CARDVAULT_NOW": "2026-11-30T09:15"}
OLD = dt.datetime(2022, 3, 4, 12, 0).timestamp()  # the file time given to fixture notes


def copy_fixture(name: str, tmp_path: Path) -> Path:
    """The fixture folder copied, every file's time set to OLD (a copy's times are now)."""
    target = tmp_path / "sources" / name
    shutil.copytree(FIXTURES / name, target)
    for path in target.rglob("*"):
        os.utime(path, (OLD, OLD), follow_symlinks=False)
    return target


def fingerprint(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every entry under `root` (symlinks and dot-folders included): bytes (or link target) and
    modification time in nanoseconds."""
    found: dict[str, tuple[bytes, int]] = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        if path.is_symlink():
            data = os.readlink(path).encode()
        elif path.is_file():
            data = path.read_bytes()
        else:
            data = b"<folder>"
        found[path.relative_to(root).as_posix()] = (data, info.st_mtime_ns)
    return found


def import_notes(vault: Path, source: Path, *extra: str, env: dict[str, str] | None = None) -> Any:
    result = run_cli(
        ["--vault", str(vault), "import", str(source), "--json", *extra], env=env or NOW
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def card_at(vault: Path, rel: str) -> Any:
    path = vault / rel
    return parse_card(path.read_text(encoding="utf-8"), path)


def link_findings(vault: Path) -> list[dict[str, Any]]:
    result = run_cli(["--vault", str(vault), "check", "--json"])
    return [f for f in json.loads(result.stdout) if f["code"] == "broken-link"]


def test_an_obsidian_vault_imports_with_every_feature(vault_path: Path, tmp_path: Path) -> None:
    source = copy_fixture("obsidian", tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.md").write_text("private notes outside the folder\n", encoding="utf-8")
    (source / "Outside.md").symlink_to(outside / "secret.md")
    (source / "Linked folder").symlink_to(outside, target_is_directory=True)
    before = fingerprint(source)
    commits = len(git_log(vault_path))

    outcome = import_notes(vault_path, source)

    assert fingerprint(source) == before  # bytes and mtimes, symlinks and dot-folders too
    assert len(git_log(vault_path)) == commits + 1
    assert (
        git_log(vault_path)[0] == "import: 5 new, 0 merged, 0 skipped, 0 conflicting from obsidian"
    )
    assert outcome["kind"] == "obsidian" and outcome["notes"] == 5
    cards = {c["note"]: c for c in outcome["cards"]}
    assert set(cards) == {
        "Welcome.md",
        "Projects/Acme Plan.md",
        "Projects/Meeting Notes.md",
        "Projects/Setup.md",
        "Areas/Home/Setup.md",
    }  # fmt: skip  (.obsidian/ and .trash/ ignored, symlinks not followed)
    assert {s["rel"] for s in outcome["skipped"]} == {"Outside.md", "Linked folder"}
    assert link_findings(vault_path) == []

    plan = card_at(vault_path, "memory/cards/projects/acme-plan.md")
    assert plan.meta["topic"] == "Acme Plan" and plan.meta["category"] == "projects"
    assert plan.meta["tags"] == ["project", "acme", "launch", "projects"]
    assert plan.meta["aliases"] == ["Acme", "ACME plan"]
    assert (plan.meta["created"], plan.meta["updated"]) == (
        dt.date(2023, 4, 1),
        dt.date(2023, 5, 2),
    )
    assert plan.meta["note_status"] == "draft" and "status" not in plan.meta
    assert plan.meta["related"] == "[[welcome|Welcome]]"  # a link in a property
    assert plan.meta["cssclasses"] == ["wide"]
    assert plan.meta["imported_from"] == "obsidian/Projects/Acme Plan.md"
    assert "[[meeting-notes#Pricing|the pricing meeting]]" in plan.body
    assert "![diagram.png](" in plan.body and "|300" not in plan.body

    welcome = card_at(vault_path, "memory/cards/welcome.md")
    assert welcome.meta["topic"] == "Welcome" and welcome.meta["category"] == "lessons"
    assert welcome.meta["tags"] == ["welcome", "area-home"]  # not #notatag (a heading), code
    assert welcome.meta["created"] == welcome.meta["updated"] == dt.date(2022, 3, 4)
    for converted in (
        "[[acme-plan|Projects/Acme Plan]]",
        "[[acme-plan|the plan]]",
        "[[meeting-notes#Decisions|Meeting Notes > Decisions]]",
        "[[setup|Setup]]",
        "[[setup-2|at home]]",
        "[[meeting-notes|the meeting notes]]",
        "![[acme-plan]]",
        "| [[acme-plan]] | the plan |",
        "[\\[Someday Note]] is not written yet",
        "https://obsidian.md/#not-a-tag",
    ):
        assert converted in welcome.body, converted
    code = (FIXTURES / "obsidian" / "Welcome.md").read_text(encoding="utf-8")
    fence = code[code.index("```bash") :]
    assert fence in welcome.body and "`#nope`" in welcome.body  # code is copied as it was

    card_folder = vault_path / "memory" / "cards"
    for name in ("diagram.png", "spec.pdf"):
        target = (
            next(line for line in welcome.body.splitlines() if f"[{name}](" in line)
            .split("(", 1)[1]
            .rstrip(")")
        )
        assert (card_folder / target).resolve() == (source / "attachments" / name).resolve()
    assert welcome.body.count("![diagram.png](") == 1 and "\n[spec.pdf](" in welcome.body

    home = card_at(vault_path, "memory/cards/areas/home/setup-2.md")
    assert "[[setup-2|Setup]] (this one)" in home.body  # same folder wins
    assert "[[setup|Projects/Setup]] (the work one)" in home.body
    meeting = card_at(vault_path, "memory/cards/projects/meeting-notes.md")
    assert meeting.meta["created"] == dt.date(2023, 6, 10)  # from `date:`
    assert meeting.meta["updated"] == dt.date(2022, 3, 4) or meeting.meta["updated"] >= dt.date(
        2023, 6, 10
    )
    assert "[[acme-plan|ACME plan]]" in meeting.body  # by alias, any case
    links = {(link["note"], link["written"]): link for link in outcome["links"]}
    assert links[("Welcome.md", "[[Someday Note]]")]["kind"] == "unresolved"
    assert links[("Welcome.md", "[[Setup]]")]["detail"] == "ambiguous: also Areas/Home/Setup.md"
    assert links[("Projects/Acme Plan.md", "[[Welcome]]")]["line"] == 7


def test_dates_never_run_backwards(vault_path: Path, tmp_path: Path) -> None:
    """A note whose frontmatter dates it after its file time keeps created <= updated."""
    source = copy_fixture("obsidian", tmp_path)
    outcome = import_notes(vault_path, source, "--dry-run")
    for card in outcome["cards"]:
        assert card["created"] <= card["updated"], card


def test_claude_code_memory_imports_with_types_as_categories(
    vault_path: Path, tmp_path: Path
) -> None:
    source = copy_fixture("claude-memory", tmp_path)
    before = fingerprint(source)
    commits = len(git_log(vault_path))
    outcome = import_notes(vault_path, source)
    assert fingerprint(source) == before
    assert len(git_log(vault_path)) == commits + 1
    assert outcome["kind"] == "claude-code"
    found = {c["note"]: (c["slug"], c["topic"], c["category"]) for c in outcome["cards"]}
    assert found == {
        "MEMORY.md": ("memory", "Memory index", "lessons"),
        "debugging.md": ("debugging", "Debugging the API", "lessons"),
        "user_role.md": ("user-role", "User role", "human"),
        "feedback_testing.md": ("feedback-testing", "No mocked database", "lessons"),
        "project_freeze.md": ("project-freeze", "Merge freeze", "projects"),
        "reference_dashboards.md": ("reference-dashboards", "Dashboards", "tools"),
    }
    index = card_at(vault_path, "memory/cards/memory.md")
    assert "- [[feedback-testing|No mocked database]] — integration tests" in index.body
    assert "`make test`" in index.body
    role = card_at(vault_path, "memory/cards/user-role.md")
    assert role.meta["description"].startswith("The user is a backend engineer")
    assert role.meta["type"] == "user" and role.meta["created"] == dt.date(2022, 3, 4)
    assert "See [[debugging]] for" in card_at(vault_path, "memory/cards/feedback-testing.md").body
    assert all(link["kind"] == "note" for link in outcome["links"])
    assert link_findings(vault_path) == []


def test_basic_memory_notes_resolve_by_title_and_permalink(
    vault_path: Path, tmp_path: Path
) -> None:
    source = copy_fixture("basic-memory", tmp_path)
    before = fingerprint(source)
    outcome = import_notes(vault_path, source)
    assert fingerprint(source) == before
    assert outcome["kind"] == "basic-memory"
    methods = card_at(vault_path, "memory/cards/coffee/coffee-brewing-methods.md")
    assert methods.meta["tags"] == ["coffee", "brewing", "temperature"]  # an observation's #tag
    assert methods.meta["permalink"] == "coffee/coffee-brewing-methods"
    for relation in (
        "- relates_to [[coffee-bean-origins|Coffee Bean Origins]]",
        "- requires [[grinding|Proper Grinding Technique]]",  # by title: the file is grinding.md
        "- taught_by [[james-hoffmann|people/james-hoffmann]]",  # by permalink
        "- contrasts_with [\\[Tea Brewing Methods]]",  # no such note
        "- [method] Pour over gives more flavour clarity",
    ):
        assert relation in methods.body, relation
    origins = card_at(vault_path, "memory/cards/coffee/coffee-bean-origins.md")
    assert origins.meta["tags"] == ["coffee", "origins", "ethiopia"]  # `tags: coffee, origins`
    person = card_at(vault_path, "memory/cards/people/james-hoffmann.md")
    assert person.meta["category"] == "human"  # type: Person
    relations = [link["detail"] for link in outcome["links"] if link["detail"]]
    assert "relation requires" in relations and "relation used_by" in relations
    assert link_findings(vault_path) == []


def test_dry_run_shows_every_card_and_link_and_writes_nothing(
    vault_path: Path, tmp_path: Path
) -> None:
    source = copy_fixture("obsidian", tmp_path)
    before, commits = snapshot(vault_path), git_log(vault_path)
    outcome = import_notes(vault_path, source, "--dry-run")
    assert snapshot(vault_path) == before and git_log(vault_path) == commits
    assert outcome["dry_run"] is True and len(outcome["cards"]) == 5
    assert outcome["link_counts"] == {"note": 15, "card": 0, "attachment": 3, "unresolved": 1}
    written = [link["written"] for link in outcome["links"]]
    assert "[[Someday Note]]" in written and "![[spec.pdf]]" in written


def test_importing_the_same_folder_again_changes_nothing(vault_path: Path, tmp_path: Path) -> None:
    source = copy_fixture("obsidian", tmp_path)
    import_notes(vault_path, source)
    commits, files = git_log(vault_path), snapshot(vault_path)
    later = {"CARDVAULT_NOW": "2027-02-01T10:00"}
    again = import_notes(vault_path, source, env=later)
    assert again["counts"]["skipped"] == 5 and again["counts"]["new"] == 0
    assert git_log(vault_path) == commits and snapshot(vault_path) == files


def test_dates_come_from_git_when_the_folder_is_a_repository(
    vault_path: Path, tmp_path: Path
) -> None:
    source = tmp_path / "notes"
    source.mkdir()

    def commit(when: str, name: str, text: str) -> None:
        (source / name).write_text(text, encoding="utf-8")
        env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
        for args in (["add", name], ["commit", "-qm", f"edit {name}"]):
            subprocess.run(["git", "-C", str(source), *args], check=True, env=env)

    subprocess.run(["git", "init", "-q", str(source)], check=True)
    for key, value in (("user.name", "t"), ("user.email", "t@example.com")):
        subprocess.run(["git", "-C", str(source), "config", key, value], check=True)
    commit("2021-01-02T10:00:00+00:00", "a.md", "# A\n\nFirst words.\n")
    commit("2021-05-06T10:00:00+00:00", "a.md", "# A\n\nFirst words, then more.\n")
    commit("2021-07-08T10:00:00+00:00", "b.md", "---\ncreated: 2019-09-09\n---\nSee [[a]].\n")
    (source / "c.md").write_text("Not committed.\n", encoding="utf-8")
    os.utime(source / "c.md", (OLD, OLD))
    outcome = import_notes(vault_path, source)
    dates = {c["note"]: (c["created"], c["updated"], c["dates_from"]) for c in outcome["cards"]}
    assert dates == {
        "a.md": ("2021-01-02", "2021-05-06", "git"),
        "b.md": ("2019-09-09", "2021-07-08", "frontmatter+git"),
        "c.md": ("2022-03-04", "2022-03-04", "file"),
    }


def test_notes_that_cannot_be_taken_are_refused_by_name(vault_path: Path, tmp_path: Path) -> None:
    source = copy_fixture("claude-memory", tmp_path)
    (source / "latin1.md").write_bytes("# Café\n\nna\xefve\n".encode("latin-1"))
    (source / "huge.md").write_bytes(b"# Big\n" + b"x" * 1_000_001)
    (source / "broken.md").write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    (source / "key.md").write_text("# Key\n\ntoken ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5\n")
    before, commits = snapshot(vault_path), git_log(vault_path)
    refused = run_cli(["--vault", str(vault_path), "import", str(source)], env=NOW)
    assert refused.exit_code == 1
    for expected in (
        "latin1.md:1: not UTF-8 text (byte 0xe9)",
        "huge.md: over the 1,000,000-byte limit of a card",
        "broken.md:3: invalid YAML",
        "key.md:3: refusing to write a secret (GitHub token)",
        "--partial imports the 6 valid card(s)",
    ):
        assert expected in refused.stderr, refused.stderr
    assert snapshot(vault_path) == before and git_log(vault_path) == commits
    partial = import_notes(vault_path, source, "--partial")
    assert partial["counts"]["new"] == 6 and len(partial["problems"]) == 4
    redacted = import_notes(vault_path, source, "--partial", "--redact")
    assert [c["note"] for c in redacted["cards"] if c["outcome"] == "new"] == ["key.md"]
    assert "ghp_" not in (vault_path / "memory" / "cards" / "key.md").read_text()


def test_a_partial_import_run_again_does_not_claim_every_note_is_in(
    vault_path: Path, tmp_path: Path
) -> None:
    """The second --partial run imports nothing new: it says so, and that the notes with
    problems are still left out, never that the vault has every note."""
    source = copy_fixture("claude-memory", tmp_path)
    (source / "latin1.md").write_bytes("# Café\n\nna\xefve\n".encode("latin-1"))
    import_notes(vault_path, source, "--partial")
    commits = git_log(vault_path)
    again = run_cli(["--vault", str(vault_path), "import", str(source), "--partial"], env=NOW)
    assert again.exit_code == 0, again.output
    assert "every note" not in again.stderr
    assert "nothing new to import" in again.stderr and "1 note(s) left out" in again.stderr
    assert git_log(vault_path) == commits
    source_clean = copy_fixture("obsidian", tmp_path)
    import_notes(vault_path, source_clean)
    clean = run_cli(["--vault", str(vault_path), "import", str(source_clean)], env=NOW)
    assert "the vault already has every note" in clean.stderr


def test_a_note_left_out_takes_its_links_with_it(vault_path: Path, tmp_path: Path) -> None:
    """With --partial, a link to a note that is not imported is no link in the cards."""
    source = tmp_path / "notes"
    source.mkdir()
    (source / "keep.md").write_text("See [[Secret]] and [[Other]].\n", encoding="utf-8")
    (source / "Secret.md").write_text("password = hunter2hunter2hunter2\n", encoding="utf-8")
    (source / "Other.md").write_text("Plain words.\n", encoding="utf-8")
    outcome = import_notes(vault_path, source, "--partial")
    assert outcome["counts"]["new"] == 2
    keep = card_at(vault_path, "memory/cards/keep.md")
    assert "[\\[Secret]]" in keep.body and "[[other|Other]]" in keep.body
    assert link_findings(vault_path) == []


def test_names_taken_in_the_vault_get_a_suffix_and_links_follow(
    vault_path: Path, tmp_path: Path
) -> None:
    made = run_cli(
        ["--vault", str(vault_path), "new", "Welcome", "--category", "tools", "--tags", "x",
         "--body", "The vault's own welcome card."],
        env=NOW,
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    source = copy_fixture("obsidian", tmp_path)
    import_notes(vault_path, source)
    assert "The vault's own" in (vault_path / "memory/cards/welcome.md").read_text()
    assert (vault_path / "memory/cards/welcome-2.md").exists()
    plan = card_at(vault_path, "memory/cards/projects/acme-plan.md")
    assert plan.meta["related"] == "[[welcome-2|Welcome]]"
    assert link_findings(vault_path) == []


def test_the_category_rule_and_the_default(vault_path: Path, tmp_path: Path) -> None:
    source = tmp_path / "notes"
    (source / "Security").mkdir(parents=True)
    (source / "Security" / "keys.md").write_text("Rotate keys yearly.\n", encoding="utf-8")
    (source / "tagged.md").write_text("A #tool I like.\n", encoding="utf-8")
    (source / "typed.md").write_text("---\ntype: project\n---\nShip it.\n", encoding="utf-8")
    (source / "own.md").write_text("---\ncategory: Recipes\n---\nSoup.\n", encoding="utf-8")
    (source / "plain.md").write_text("Nothing says.\n", encoding="utf-8")
    outcome = import_notes(vault_path, source, "--category", "workflow", "--dry-run")
    found = {c["note"]: (c["category"], c["category_from"], c["tags"]) for c in outcome["cards"]}
    assert found == {
        "Security/keys.md": ("security", "folder", ["security"]),
        "tagged.md": ("tools", "tag", ["tool"]),
        "typed.md": ("projects", "type", []),
        "own.md": ("workflow", "default", ["recipes"]),
        "plain.md": ("workflow", "default", []),
    }
    bad = run_cli(["--vault", str(vault_path), "import", str(source), "--category", "bogus"])
    assert bad.exit_code == 1 and "not one of this vault's categories: system" in bad.stderr


def test_a_folder_inside_the_vault_memory_is_refused(vault_path: Path) -> None:
    refused = run_cli(["--vault", str(vault_path), "import", str(vault_path / "memory")])
    assert refused.exit_code == 1 and "inside the vault's own memory/ folder" in refused.stderr


def test_imported_old_notes_are_not_archived_on_the_next_maintain(
    vault_path: Path, tmp_path: Path
) -> None:
    """The notes keep their dates (2022), older than archive.days: maintain holds them back
    until archive.days after the import, and says so."""
    source = copy_fixture("claude-memory", tmp_path)
    import_notes(vault_path, source)

    def archive_run(now: str) -> Any:
        result = run_cli(
            ["--vault", str(vault_path), "maintain", "--only", "archive", "--dry-run", "--json"],
            env={"CARDVAULT_NOW": now},
        )
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    first = archive_run("2026-12-01T09:00")
    assert first["counts"]["archive"] == 0
    assert [f["message"].split(" whose")[0] for f in first["flags"]] == [
        "not archived: 6 card(s) imported on 2026-11-30"
    ]
    later = archive_run("2027-06-01T09:00")  # 183 days after the import
    assert later["counts"]["archive"] == 6 and later["flags"] == []


def test_init_in_a_folder_of_notes_offers_the_import_and_imports_nothing(tmp_path: Path) -> None:
    folder = copy_fixture("obsidian", tmp_path)
    result = run_cli(["init", str(folder)])
    assert result.exit_code == 0, result.output
    assert "already holds 5 Markdown file(s) (an Obsidian vault)" in result.stderr
    command = f"cardvault --vault {folder} import {folder}"
    assert command in result.stderr
    assert git_log(folder) == ["vault: init"]
    assert not list((folder / "memory" / "cards").glob("**/*.md"))
    outcome = import_notes(folder, folder)  # the command it printed
    assert outcome["counts"]["new"] == 5
    welcome = card_at(folder, "memory/cards/welcome.md")
    target = welcome.body.split("![diagram.png](", 1)[1].split(")", 1)[0]
    assert target == "../../attachments/diagram.png"  # inside the vault: a short path
    assert link_findings(folder) == []


def test_init_in_a_code_project_does_not_offer_an_import(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    (folder / "docs").mkdir(parents=True)
    (folder / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (folder / "README.md").write_text("# x\n", encoding="utf-8")
    (folder / "docs" / "usage.md").write_text("# Usage\n", encoding="utf-8")
    result = run_cli(["init", str(folder)])
    assert result.exit_code == 0, result.output
    assert "looks like a code project's documentation" in result.stderr
    assert "to import them as cards, run" not in result.stderr


@pytest.mark.parametrize("answer", ["y", "n"])
def test_init_asks_in_a_terminal(tmp_path: Path, answer: str) -> None:
    """In a real terminal (a pseudo-terminal here) init asks, and imports only on yes."""
    pty = pytest.importorskip("pty")
    folder = copy_fixture("claude-memory", tmp_path)
    code = (
        "import sys; from cardvault.cli.app import app; "
        f"sys.argv = ['cardvault', 'init', {str(folder)!r}]; app()"
    )
    main, child = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-c", code], stdin=child, stdout=child, stderr=child, cwd=tmp_path
    )
    os.close(child)
    output = _answer_prompt(main, answer)
    assert process.wait(timeout=scaled(120)) == 0, output
    assert "Import them as cards now?" in output
    cards = list((folder / "memory" / "cards").glob("*.md"))
    if answer == "y":
        assert len(cards) == 5 and git_log(folder)[0].startswith("import: 5 new")
    else:
        assert cards == [] and git_log(folder) == ["vault: init"]
        assert f"later: cardvault --vault {folder} import {folder}" in output


def _answer_prompt(main: int, answer: str) -> str:
    """Read the child's terminal until the question, answer it, read to the end."""
    seen = b""
    answered = False
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the child closed its side
            break
        if not chunk:
            break
        seen += chunk
        if not answered and b"[y/N]" in seen:
            os.write(main, f"{answer}\n".encode())
            answered = True
    os.close(main)
    return seen.decode("utf-8", "replace")


@pytest.mark.slow
@pytest.mark.skipif(not TIL.is_dir(), reason="needs /work/shared/data/til-simonw")
def test_simonw_tils_import_without_false_link_findings(vault_path: Path) -> None:
    """577 notes in 113 folders; 10 hold example credentials (refused without --redact).
    No link finding outside code: the `[[services]]` of TOML and bash's `[[ -f x ]]` inside
    code blocks are reported by `check` until its link finder skips code (another change)."""
    from cardvault.portable.markup import code_spans, inside

    before = fingerprint(TIL)
    refused = run_cli(["--vault", str(vault_path), "import", str(TIL)], env=NOW)
    assert refused.exit_code == 1 and refused.stderr.count("refusing to write a secret") == 10
    outcome = import_notes(vault_path, TIL, "--redact")
    assert outcome["counts"]["new"] == 577 and outcome["notes"] == 577
    assert fingerprint(TIL) == before
    assert git_log(vault_path)[0].startswith("import: 577 new")
    outside_code = []
    for finding in link_findings(vault_path):
        text = (vault_path / finding["path"]).read_text(encoding="utf-8")
        lines = text.split("\n")
        offset = sum(len(line) + 1 for line in lines[: finding["line"] - 1])
        if not inside(code_spans(text), offset + lines[finding["line"] - 1].index("[[")):
            outside_code.append(finding)
    assert outside_code == []


def test_links_and_tags_inside_code_are_left_as_they_are(vault_path: Path, tmp_path: Path) -> None:
    """Fenced, indented and inline code is copied byte for byte: no link in it is converted,
    no `#word` in it is a tag (whether `check` reads links in code is check's own rule)."""
    source = tmp_path / "notes"
    source.mkdir()
    (source / "Target.md").write_text("The target.\n", encoding="utf-8")
    code = (
        "```toml\n[[Target]]\nname = '#fenced'\n```\n\n    indented [[Target]] #indented\n\n"
        "Inline `[[Target]] #inline` then prose [[Target]] #prose.\n"
    )
    (source / "code.md").write_text(code, encoding="utf-8")
    import_notes(vault_path, source)
    card = card_at(vault_path, "memory/cards/code.md")
    assert card.meta["tags"] == ["prose"]
    assert card.body == code.replace("prose [[Target]]", "prose [[target|Target]]")


def test_a_stray_backtick_hides_no_later_link(vault_path: Path, tmp_path: Path) -> None:
    """A code span ends with its paragraph: an unmatched backtick in one list item does not
    make the next paragraphs code, so their links are converted as `check` reads them."""
    source = tmp_path / "notes"
    source.mkdir()
    (source / "Target Note.md").write_text("The target.\n", encoding="utf-8")
    text = (
        "- verified from `<dir> `/lookup` read it\n- see [[Target Note]] first\n\n"
        "## Related\n- [[Target Note]] and `code`\n"
    )
    (source / "stray.md").write_text(text, encoding="utf-8")
    done = import_notes(vault_path, source)
    assert [link["line"] for link in done["links"] if link["note"] == "stray.md"] == [2, 5]
    body = card_at(vault_path, "memory/cards/stray.md").body
    assert body == text.replace("[[Target Note]]", "[[target-note|Target Note]]")
    assert link_findings(vault_path) == []


def test_a_vault_inside_the_folder_is_not_imported_into_itself(tmp_path: Path) -> None:
    source = copy_fixture("claude-memory", tmp_path)
    vault = source / "vault"
    assert run_cli(["init", str(vault)]).exit_code == 0
    outcome = import_notes(vault, source)
    assert outcome["notes"] == 6 and all(
        not c["note"].startswith("vault/") for c in outcome["cards"]
    )
    again = import_notes(vault, source)
    assert again["counts"]["skipped"] == 6


@pytest.mark.slow
def test_a_note_edited_since_its_import_is_folded_into_its_card(
    vault_path: Path, tmp_path: Path
) -> None:
    source = copy_fixture("claude-memory", tmp_path)
    import_notes(vault_path, source)
    with (source / "debugging.md").open("a", encoding="utf-8") as note:
        note.write("\nThe billing API's fixtures live in `tests/fixtures/billing/`.\n")
    outcome = import_notes(vault_path, source)
    assert outcome["counts"] == {**outcome["counts"], "merged": 1, "skipped": 5, "new": 0}
    card = card_at(vault_path, "memory/cards/debugging.md")
    assert card.body.count("recorded fixtures") == 1 and "billing API's fixtures" in card.body


def test_a_folder_without_notes_is_one_clear_error(vault_path: Path, tmp_path: Path) -> None:
    (tmp_path / "empty" / ".obsidian").mkdir(parents=True)
    (tmp_path / "empty" / "picture.png").write_bytes(b"\x89PNG")
    result = run_cli(["--vault", str(vault_path), "import", str(tmp_path / "empty")])
    assert result.exit_code == 1 and "no Markdown notes (*.md) in this folder" in result.stderr


#: A `kill -9` (edits/faults.py `N:KILL`) just before the import renames its 7th card into
#: place: steps 1-2 write the journal, then each card takes two (its temporary file, its
#: rename), so step 16 is the 7th rename: the journal is left, with 6 cards written.
KILLED_IMPORT = "16:KILL"


def test_an_import_killed_midway_is_finished_and_run_again_imports_nothing_more(
    vault_path: Path, tmp_path: Path
) -> None:
    """The rerun planned against the half-written vault folded notes into the few cards there
    (every change a merge into a card the recovery left alone), then applied that plan after
    the lock's recovery had written the rest (here `import: 0 new, 14 merged, 6 skipped`)."""
    source = tmp_path / "notes"
    source.mkdir()
    for n in range(1, 21):
        (source / f"Note {n}.md").write_text(
            f"---\ntags: [t{n % 7}]\n---\n# Note {n}\nSome fact number {n} about module m{n}. "
            f"See [[Note {n % 20 + 1}]].\n",
            encoding="utf-8",
        )
    clean = tmp_path / "clean"
    run_cli(["init", str(clean), "-q"])
    import_notes(clean, source)
    argv = ["--vault", str(vault_path), "import", str(source), "-q"]
    killed = subprocess.run(  # through sh, which reports the kill as status 137
        ["sh", "-c", '"$@"; exit $?', "sh", sys.executable, "-m", "cardvault", *argv],
        cwd=REPO,
        env={**os.environ, **NOW, "CARDVAULT_FAIL_AT": KILLED_IMPORT},
        check=False,
    )
    assert killed.returncode == 137
    assert (vault_path / ".cardvault" / "journal.json").exists()
    again = import_notes(vault_path, source)
    assert again["counts"] == {**again["counts"], "new": 0, "merged": 0, "skipped": 20}
    assert again["commit"] is None
    assert git_log(vault_path)[0] == "import: 20 new, 0 merged, 0 skipped, 0 conflicting from notes"
    assert snapshot(vault_path / "memory") == snapshot(clean / "memory")
