"""`cardvault forget`: what goes, one commit that says logs were rewritten, exact `git revert`."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from cardvault.edits.door import Door
from cardvault.errors import CardvaultError
from cardvault.forget.logs import Needles, cut_log
from cardvault.forget.plan import apply_forget, plan_forget
from cardvault.vault.card import parse_card
from cardvault.vault.daily import parse_log
from cardvault.vault.files import FileText, digest_text
from cardvault.vault.layout import open_vault_at
from tests.support.cli import git_log, run_cli, snapshot
from tests.support.insight import card_files, frontmatter, git, log_entries, log_files
from tests.support.maintain import assert_memory_table_current
from tests.support.writers import assert_vault_sound, killed_midway

SLUG = "docker-buildx-platform-flag"
TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def forget(root: Path, *args: str, stdin: str | None = None):
    return run_cli(["--vault", str(root), "forget", *args], input=stdin)


def log_lines(root: Path) -> dict[str, list[str]]:
    return {p.name: p.read_text(encoding="utf-8").splitlines() for p in log_files(root)}


def is_subsequence(small: list[str], big: list[str]) -> bool:
    rest = iter(big)
    return all(any(line == other for other in rest) for line in small)


def test_forget_by_slug_removes_card_and_its_log_entries_then_revert_restores(
    sample_vault: Path,
) -> None:
    before = snapshot(sample_vault)
    logs_before = log_lines(sample_vault)
    cited = frontmatter(sample_vault / "memory" / "cards" / f"{SLUG}.md").get("sources") or []
    result = forget(sample_vault, SLUG, "--yes")
    assert result.exit_code == 0, result.output
    assert not (sample_vault / "memory" / "cards" / f"{SLUG}.md").exists()
    subject = git_log(sample_vault)[0]
    assert subject.startswith(f'forget: "{SLUG}"') and "daily logs rewritten" in subject
    assert "rewrote" in git(sample_vault, "log", "-1", "--format=%b")
    for name, lines in log_lines(sample_vault).items():
        assert not any(SLUG in line for line in lines), name
        assert is_subsequence(lines, logs_before[name])
    refs = {e["ref"] for p in log_files(sample_vault) for e in log_entries(p)}
    assert cited and not set(cited) & refs
    changed = {k for k in before if before[k] != snapshot(sample_vault).get(k)}
    assert changed and all(k.startswith("memory/") or k == "MEMORY.md" for k in changed)
    git(sample_vault, "revert", "--no-edit", "HEAD")
    assert snapshot(sample_vault) == before


def test_forget_by_words_matches_topics_and_every_log_line(sample_vault: Path) -> None:
    query = "nginx timeouts"
    expected = sorted(
        p.stem
        for p in card_files(sample_vault) + card_files(sample_vault, "archive")
        if {"nginx", "timeouts"}
        <= set(
            re.findall(
                r"\w+", " ".join([frontmatter(p)["topic"], p.stem, *frontmatter(p)["tags"]]).lower()
            )
        )
    )
    assert expected
    before = snapshot(sample_vault)
    result = forget(sample_vault, query, "--yes")
    assert result.exit_code == 0, result.output
    for slug in expected:
        assert not (sample_vault / "memory" / "cards" / f"{slug}.md").exists()
    for name, lines in log_lines(sample_vault).items():
        for line in lines:
            words = set(re.findall(r"\w+", line.lower()))
            assert not {"nginx", "timeouts"} <= words, (name, line)
            assert not any(slug in line for slug in expected), (name, line)
    git(sample_vault, "revert", "--no-edit", "HEAD")
    assert snapshot(sample_vault) == before


def test_forget_asks_and_no_means_nothing_changes(sample_vault: Path) -> None:
    before, commits = snapshot(sample_vault), git_log(sample_vault)
    result = forget(sample_vault, SLUG, stdin="n\n")
    assert result.exit_code == 1
    assert f"memory/cards/{SLUG}.md" in result.stderr and "Remove all of this?" in result.stderr
    assert snapshot(sample_vault) == before and git_log(sample_vault) == commits
    assert forget(sample_vault, SLUG, stdin="y\n").exit_code == 0
    assert not (sample_vault / "memory" / "cards" / f"{SLUG}.md").exists()


def test_forget_a_promoted_card_removes_its_rule(sample_vault: Path) -> None:
    promoted = [p for p in card_files(sample_vault) if frontmatter(p).get("status") == "promoted"]
    assert promoted
    rel = f"memory/cards/{promoted[0].name}"
    agents = (sample_vault / "AGENTS.md").read_text(encoding="utf-8")
    assert rel in agents
    assert forget(sample_vault, promoted[0].stem, "--yes").exit_code == 0
    after = (sample_vault / "AGENTS.md").read_text(encoding="utf-8")
    assert rel not in after
    assert [line for line in agents.splitlines() if rel not in line] == after.splitlines()


def test_nothing_matches_is_an_error(sample_vault: Path) -> None:
    result = forget(sample_vault, "zebra quaternion", "--yes")
    assert result.exit_code == 1 and "nothing in the vault matches" in result.stderr


def test_forget_drops_files_from_the_search_index(sample_vault: Path) -> None:
    from cardvault.search.index import open_index
    from cardvault.search.sync import sync_index

    vault = open_vault_at(sample_vault)
    index = open_index(vault.cache_dir)
    sync_index(vault, index, None)
    index.close()

    def indexed_slugs() -> set[str]:
        conn = sqlite3.connect(vault.cache_dir / "search.sqlite")
        try:
            return {row[0] for row in conn.execute("SELECT slug FROM docs WHERE kind = 'card'")}
        finally:
            conn.close()

    assert SLUG in indexed_slugs()
    assert forget(sample_vault, SLUG, "--yes").exit_code == 0
    assert SLUG not in indexed_slugs()


def test_a_log_edited_after_planning_keeps_the_edit(sample_vault: Path) -> None:
    vault = open_vault_at(sample_vault)
    plan = plan_forget(vault, SLUG)
    assert plan.logs
    edited = plan.logs[0].file.path
    edited.write_text(edited.read_text(encoding="utf-8") + "\nhand edit\n", encoding="utf-8")
    result = Door(vault).land(apply_forget(vault, plan))
    assert result.commit.recorded
    assert edited.read_text(encoding="utf-8").endswith("\nhand edit\n")
    assert git(sample_vault, "log", "-2", "--format=%s").splitlines()[1] == "hand edits"


def test_an_edit_that_widens_the_plan_aborts_without_writing(sample_vault: Path) -> None:
    vault = open_vault_at(sample_vault)
    plan = plan_forget(vault, SLUG)
    edited = plan.logs[0].file.path
    text = edited.read_text(encoding="utf-8") + f"\nsee also {SLUG}\n"
    edited.write_text(text, encoding="utf-8")
    before = snapshot(sample_vault)
    with pytest.raises(CardvaultError, match="changed since this plan was made"):
        Door(vault).land(apply_forget(vault, plan))
    assert snapshot(sample_vault) == before


def test_a_secret_query_is_not_written_into_the_commit(sample_vault: Path) -> None:
    log = sample_vault / "memory" / "2026-11-20.md"
    log.write_text(f"# 2026-11-20\n\n## 10:00 — Oops\nPasted {TOKEN} by mistake.\nOther note.\n")
    git(sample_vault, "add", "-A")
    git(sample_vault, "commit", "-qm", "log")
    assert forget(sample_vault, TOKEN, "--yes").exit_code == 0
    assert TOKEN not in log.read_text(encoding="utf-8")
    assert "Other note." in log.read_text(encoding="utf-8")
    message = git(sample_vault, "log", "-1", "--format=%B")
    assert TOKEN not in message and "query not shown: it may be a secret" in message


def cut(text: str, query: str):
    path = Path("memory/2026-01-05.md")
    file = FileText(path, text, digest_text(text))
    entries = parse_log(text, path, ["Lesson"])
    return cut_log(file, "memory/2026-01-05.md", entries, Needles.of(query, [], exact=False))


def test_log_cuts_keep_every_other_byte() -> None:
    text = (
        "# 2026-01-05\n\n## 09:00 — Morning\nred fox seen\nblue sky\n\n"
        "## 10:00 — Only fox\nred fox again\n\n## 11:00 — Red fox title\nanything\n"
    )
    result = cut(text, "red fox")
    assert result is not None
    assert result.new_text == "# 2026-01-05\n\n## 09:00 — Morning\nblue sky\n"
    assert result.entries == ("10:00", "11:00")
    assert result.removed == (4, 6, 7, 8, 9, 10, 11)


def test_log_with_nothing_left_is_removed_and_fences_are_not_entries() -> None:
    assert cut("# 2026-01-05\n\n## 09:00 — Fox\nred fox\n", "fox").new_text is None
    fenced = "# 2026-01-05\n\n## 09:00 — Code\n```\n## 10:00 — fox\n```\nkeep\n"
    result = cut(fenced, "fox")
    assert result is not None and result.new_text == fenced.replace("## 10:00 — fox\n", "")
    assert cut("# 2026-01-05\n\n## 09:00 — A\nnothing here\n", "fox") is None


def test_entries_a_forgotten_card_cites_go_whole() -> None:
    card = parse_card(
        "---\ntopic: Zeta Rule\ncategory: tools\ntags: [z]\ncreated: 2026-01-01\n"
        "updated: 2026-01-01\nsources:\n  - memory/2026-01-05.md#09:00\n---\nBody.\n",
        Path("memory/cards/zeta-rule.md"),
    )
    text = "# 2026-01-05\n\n## 09:00 — Unrelated title\nplain words\n\n## 10:00 — B\nkept\n"
    path = Path("memory/2026-01-05.md")
    entries = parse_log(text, path, ["Lesson"])
    result = cut_log(
        FileText(path, text, digest_text(text)),
        "x",
        entries,
        Needles.of("zeta-rule", [card], exact=True),
    )
    assert result is not None and result.new_text == "# 2026-01-05\n\n## 10:00 — B\nkept\n"


def test_memory_table_is_regenerated_without_the_forgotten_card(sample_vault: Path) -> None:
    memory = sample_vault / "MEMORY.md"
    text = memory.read_text(encoding="utf-8")
    slug = "nginx-proxy-timeouts"
    head, _, rest = text.partition("<!-- cardvault:begin categories -->")
    _, _, tail = rest.partition("<!-- cardvault:end categories -->")
    assert slug in rest.partition("<!-- cardvault:end categories -->")[0]
    before = snapshot(sample_vault)
    assert forget(sample_vault, slug, "--yes").exit_code == 0
    after = memory.read_text(encoding="utf-8")
    assert slug not in after
    assert after.startswith(head) and after.endswith(tail)
    assert "MEMORY.md: categories table regenerated" in git(
        sample_vault, "log", "-1", "--format=%b"
    )
    git(sample_vault, "revert", "--no-edit", "HEAD")
    assert snapshot(sample_vault) == before


def test_a_forget_leaves_memory_md_a_current_table_and_its_own_words(sample_vault: Path) -> None:
    """Forgetting a card the table does not name still leaves the table true to the cards
    (edits/derived.py), in the forget's commit; MEMORY.md's hand-written parts stay as they
    were."""
    from cardvault.vault.sections import get_section, set_section

    memory = sample_vault / "MEMORY.md"
    text = memory.read_text(encoding="utf-8")
    assert "conference-talk-ideas" not in text
    assert forget(sample_vault, "conference-talk-ideas", "--yes").exit_code == 0
    after = memory.read_text(encoding="utf-8")
    assert set_section(after, "categories", get_section(text, "categories") or "") == text
    assert "MEMORY.md" in git(sample_vault, "show", "--name-only", "--format=", "HEAD").split()
    assert_memory_table_current(sample_vault)


def test_forget_turns_links_to_the_removed_card_into_plain_text(vault_path: Path) -> None:
    """Kept cards that linked to a forgotten card (by slug, path or alias) keep their words,
    lose the dangling link; `check` finds no broken link afterwards."""
    cards = vault_path / "memory" / "cards"
    head = "---\ntopic: {}\ncategory: tools\ntags: [t]\ncreated: 2026-01-01\nupdated: 2026-01-01\n"
    (cards / "gone-card.md").write_text(
        head.format("Gone card") + "aliases: [old-gone]\n---\nSoon forgotten.\n"
    )
    (cards / "keeper.md").write_text(
        head.format("Keeper")
        + "rule: see [[gone-card]]\n---\n"
        + "See [[gone-card]], [[old-gone|the old one]] and [[memory/cards/gone-card.md]].\n"
        + "Also [[keeper]] itself.\n"
    )
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "cards")
    result = forget(vault_path, "gone-card", "--yes")
    assert result.exit_code == 0, result.output
    text = (cards / "keeper.md").read_text()
    assert "rule: see gone-card\n" in text
    assert (
        "See gone-card, the old one and memory/cards/gone-card.md.\nAlso [[keeper]] itself." in text
    )
    findings = run_cli(["--vault", str(vault_path), "check", "--json"]).stdout
    assert "broken-link" not in findings


def test_forget_removes_the_review_questions_about_what_it_removes(sample_vault: Path) -> None:
    """The review queue keeps each question's members with their text (a lesson, a card's
    topic): a question about a forgotten card, or about an entry it cites, goes with it (the
    rest of the queue stays byte for byte), and `git revert` brings it back."""
    import json

    card = sample_vault / "memory" / "cards" / f"{SLUG}.md"
    cited = str((frontmatter(card).get("sources") or [])[0])
    about_card = {"key": f"memory/cards/{SLUG}.md", "path": f"memory/cards/{SLUG}.md",
                  "text": "Docker buildx needs --platform linux/amd64 on an M1"}  # fmt: skip
    about_entry = {"key": cited, "path": cited.split("#")[0], "source": cited,
                   "text": "buildx built an arm64 image"}  # fmt: skip
    other = {"key": "memory/cards/x.md", "path": "memory/cards/x.md", "text": "unrelated"}
    items = [
        {"id": "aaaaaa", "kind": "duplicate", "members": [about_card, other], "evidence": {},
         "asked": "2026-03-01", "status": "pending"},
        {"id": "bbbbbb", "kind": "same-lesson", "members": [about_entry, other], "evidence": {},
         "asked": "2026-03-01", "status": "rejected", "decided": "2026-03-02", "by": "person"},
        {"id": "cccccc", "kind": "duplicate", "members": [other, {**other, "key": "y"}],
         "evidence": {}, "asked": "2026-03-01", "status": "pending"},
    ]  # fmt: skip
    lines = [json.dumps(item, sort_keys=True) for item in items]
    queue = sample_vault / "memory" / "review.jsonl"
    queue.write_text("\n".join(lines) + "\n", encoding="utf-8")
    git(sample_vault, "add", "-A")
    git(sample_vault, "commit", "-qm", "questions")
    before = snapshot(sample_vault)
    result = forget(sample_vault, SLUG, "--yes")
    assert result.exit_code == 0, result.output
    assert queue.read_text(encoding="utf-8") == lines[2] + "\n"
    git(sample_vault, "revert", "--no-edit", "HEAD")
    assert snapshot(sample_vault) == before


def test_a_card_made_only_of_forgotten_entries_goes_and_the_ids_are_recorded(
    vault_path: Path,
) -> None:
    """A card whose every source is an entry forget removes holds nothing else, whatever its
    name: it goes too. A card that also cites a kept entry stays. The forget records the
    removed entries' ids (never their text) in a file of its own, which `git revert` removes."""
    now = {"CARDVAULT_NOW": "2026-12-01T09:00"}
    for body, title in (("Gotcha: the CDN caches 404s for 10 minutes.", "Stale 404s"),
                        ("Lesson: warm the upload cache first.", "Uploads")):  # fmt: skip
        result = run_cli(["--vault", str(vault_path), "log", body, "--title", title], env=now)
        assert result.exit_code == 0, result.output
    log = vault_path / "memory" / "2026-12-01.md"
    refs = [f"memory/2026-12-01.md#{i}" for i in re.findall(r"<!-- id:(\w+) -->", log.read_text())]
    cards = vault_path / "memory" / "cards"
    card = "---\ntopic: {}\ncategory: lessons\ntags: [edge]\ncreated: 2026-12-01\n"
    card += "updated: 2026-12-01\nsources: [{}]\n---\n{}\n"
    (cards / "edge-caching.md").write_text(card.format("Edge caching", refs[0], "404s stay."))
    (cards / "edge-uploads.md").write_text(
        card.format("Edge uploads", ", ".join(refs), "404s stay; warm uploads.")
    )
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "cards")
    before = snapshot(vault_path)
    result = run_cli(["--vault", str(vault_path), "forget", "CDN", "--yes"],
                     env={"CARDVAULT_NOW": "2026-12-03T09:00"})  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "edge-caching.md  Edge caching  (made only of entries that go)" in result.output
    assert not (cards / "edge-caching.md").exists()
    assert (cards / "edge-uploads.md").exists()
    records = list((vault_path / "memory" / "forgotten").glob("*.txt"))
    assert len(records) == 1 and records[0].name.startswith("2026-12-03-")  # the session's day
    record = records[0].read_text(encoding="utf-8")
    assert refs[0] in record and refs[1] not in record and "CDN" not in record
    git(vault_path, "revert", "--no-edit", "HEAD")
    assert snapshot(vault_path) == before


def test_an_entry_sharing_a_forgotten_entrys_id_is_not_recorded_so_it_stays(
    vault_path: Path,
) -> None:
    """A heading copied by hand carries the id of the entry it was copied from (hidden in a
    Markdown viewer). Forgetting the copy must not record that id, which still names the
    entry that stays: the next maintain (and every sync) would remove it "again", an entry
    the user never asked to forget and the forget's plan never showed."""
    now = {"CARDVAULT_NOW": "2026-12-01T09:00"}
    kept = "Keep this: the deploy needs two approvals."
    result = run_cli(["--vault", str(vault_path), "log", kept, "--title", "Deploy"], env=now)
    assert result.exit_code == 0, result.output
    log = vault_path / "memory" / "2026-12-01.md"
    [entry_id] = re.findall(r"<!-- id:(\w+) -->", log.read_text(encoding="utf-8"))
    with log.open("a", encoding="utf-8") as out:
        out.write(f"\n## 10:30 — CDN trouble <!-- id:{entry_id} -->\nThe CDN was slow.\n")
    git(vault_path, "commit", "-qam", "a copied heading")
    result = run_cli(["--vault", str(vault_path), "forget", "CDN", "--yes"], env=now)
    assert result.exit_code == 0, result.output
    assert kept in log.read_text(encoding="utf-8") and "CDN" not in log.read_text()
    result = run_cli(["--vault", str(vault_path), "maintain"], env=now)
    assert result.exit_code == 0, result.output
    assert kept in log.read_text(encoding="utf-8")
    assert "removed again" not in git_log(vault_path)[0]


def test_an_export_made_before_a_forget_does_not_bring_the_forgotten_back(
    vault_path: Path, tmp_path: Path
) -> None:
    """An export (with its logs) made before the forget, imported after it: the forgotten
    entry and the card made only of it stay out; the rest of the export is as it was."""
    now = {"CARDVAULT_NOW": "2026-12-01T09:00"}
    result = run_cli(["--vault", str(vault_path), "log", "Gotcha: the CDN caches 404s.",
                      "--title", "Stale 404s"], env=now)  # fmt: skip
    assert result.exit_code == 0, result.output
    log = vault_path / "memory" / "2026-12-01.md"
    ref = "memory/2026-12-01.md#" + re.findall(r"<!-- id:(\w+) -->", log.read_text())[0]
    card = "---\ntopic: Edge caching\ncategory: lessons\ntags: [edge]\ncreated: 2026-12-01\n"
    card += f"updated: 2026-12-01\nsources: [{ref}]\n---\n404s stay cached.\n"
    (vault_path / "memory" / "cards" / "edge-caching.md").write_text(card)
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "card")
    export = tmp_path / "before.json"
    assert run_cli(["--vault", str(vault_path), "export", "--logs", str(export)]).exit_code == 0
    assert forget(vault_path, "CDN", "--yes").exit_code == 0
    result = run_cli(["--vault", str(vault_path), "import", str(export), "--json"], env=now)
    assert result.exit_code == 0, result.output
    assert not (vault_path / "memory" / "cards" / "edge-caching.md").exists()
    assert not log.exists() or "CDN" not in log.read_text()


def test_the_record_the_plan_names_is_the_one_written(vault_path: Path) -> None:
    """The plan shown names the forget's record file; the forget writes that file (the plan
    made again under the lock keeps its name), so what was shown is what the vault holds."""
    now = {"CARDVAULT_NOW": "2026-12-01T09:00"}
    result = run_cli(["--vault", str(vault_path), "log", "Gotcha: the CDN caches 404s.",
                      "--title", "Stale 404s"], env=now)  # fmt: skip
    assert result.exit_code == 0, result.output
    result = run_cli(["--vault", str(vault_path), "forget", "CDN", "--yes"], env=now)
    assert result.exit_code == 0, result.output
    (shown,) = re.findall(r"memory/forgotten/[\w-]+\.txt", result.output)
    assert [p.name for p in (vault_path / "memory/forgotten").glob("*.txt")] == [Path(shown).name]


def test_an_export_made_before_a_forget_does_not_bring_a_hand_written_entry_back(
    vault_path: Path, tmp_path: Path
) -> None:
    """As above, with entries a person wrote by hand (no id): the forget recorded the id the
    forgotten one takes on every clone, and the import knows it by that id too."""
    log = vault_path / "memory" / "2026-12-01.md"
    log.write_text("# 2026-12-01\n\n## 09:00 — Stale 404s\nGotcha: the CDN caches 404s.\n\n"
                   "## 10:00 — Uploads\nLesson: warm the upload cache first.\n")  # fmt: skip
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "by hand")
    export = tmp_path / "before.json"
    assert run_cli(["--vault", str(vault_path), "export", "--logs", str(export)]).exit_code == 0
    assert forget(vault_path, "CDN", "--yes").exit_code == 0
    now = {"CARDVAULT_NOW": "2026-12-01T11:00"}
    result = run_cli(["--vault", str(vault_path), "import", str(export), "--json"], env=now)
    assert result.exit_code == 0, result.output
    assert "CDN" not in log.read_text() and "warm the upload cache" in log.read_text()


def test_a_card_with_a_lesson_of_its_own_stays_when_its_one_cited_entry_goes(
    vault_path: Path,
) -> None:
    """A card `new` wrote (one sighting, no source) that maintain folded one logged lesson into
    (`seen: 2`, that entry its one source): forgetting the entry does not take the card, whose
    first lesson no entry holds; it is listed as still mentioning what went."""
    now = {"CARDVAULT_NOW": "2026-12-01T09:00"}
    result = run_cli(["--vault", str(vault_path), "log", "Gotcha: eviction starts at 90 "
                      "percent of maxmemory.", "--title", "Redis threshold"], env=now)  # fmt: skip
    assert result.exit_code == 0, result.output
    log = vault_path / "memory" / "2026-12-01.md"
    ref = "memory/2026-12-01.md#" + re.findall(r"<!-- id:(\w+) -->", log.read_text())[0]
    card = vault_path / "memory" / "cards" / "redis-eviction.md"
    meta = f"created: 2026-11-01\nupdated: 2026-12-01\nseen: 2\nsources: [{ref}]\n"
    body = "Redis evicts keys with allkeys-lru.\n\nEviction starts at 90 percent.\n"
    card.write_text(f"---\ntopic: Redis eviction\ncategory: lessons\ntags: []\n{meta}---\n{body}")
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "card")
    result = forget(vault_path, "Redis threshold", "--yes")
    assert result.exit_code == 0, result.output
    assert card.exists() and "Still mentioned" in result.output
    assert "maxmemory" not in (log.read_text() if log.exists() else "")


def test_forgetting_an_entry_whose_heading_was_copied_keeps_the_copy_out_of_the_record(
    vault_path: Path,
) -> None:
    """A person copied an entry's heading, id and all, to start another entry; then the first
    entry is forgotten. The copy is given an id of its own in the same write, so the record
    (the first's id) never takes it: nothing is left for a sync to remove again."""
    from cardvault.forget.tombstone import plan_still_forgotten

    log = vault_path / "memory" / "2026-12-01.md"
    log.write_text("# 2026-12-01\n\n## 09:00 — Staging deploy <!-- id:abcdef -->\nLesson: the "
                   "staging deploy needs the VPN.\n\n## 09:05 — Upload cache <!-- id:abcdef -->"
                   "\nLesson: warm the upload cache first.\n")  # fmt: skip
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "by hand")
    result = forget(vault_path, "Staging deploy", "--yes")
    assert result.exit_code == 0, result.output
    text = log.read_text(encoding="utf-8")
    assert "VPN" not in text and "warm the upload cache" in text and "id:abcdef" not in text
    (record,) = (vault_path / "memory" / "forgotten").glob("*.txt")
    assert "memory/2026-12-01.md#abcdef" in record.read_text()
    assert plan_still_forgotten(open_vault_at(vault_path)) is None


@pytest.mark.parametrize("stop_after", [1, 2])
def test_forget_again_after_a_killed_forget_finishes_it_says_so_and_nothing_more_matches(
    sample_vault: Path, stop_after: int
) -> None:
    """A forget killed midway (its journal left, some files written): running it again
    finishes the interrupted one first, says so on stderr, and plans against the vault as it
    then is: nothing more matches, exit 0. It used to show a plan of the half-written files,
    then say "nothing was written" while the door had finished and committed the forget."""
    assert killed_midway(sample_vault, "forget: ", stop_after, "forget", SLUG, "--yes") == 137
    assert (sample_vault / ".cardvault" / "journal.json").exists()
    result = forget(sample_vault, SLUG, "--yes")
    assert result.exit_code == 0, result.output
    finished = f'finished an interrupted write (forget: "{SLUG}": '
    assert result.stderr.count(finished) == 1, result.output
    assert f'nothing more matches "{SLUG}"' in result.output
    assert "nothing was written" not in result.output
    assert not (sample_vault / "memory" / "cards" / f"{SLUG}.md").exists()
    assert git_log(sample_vault)[0].startswith(f'forget: "{SLUG}"')
    body = git(sample_vault, "log", "-1", "--format=%B")
    assert body.rstrip().endswith("(finished after an interruption)")
    assert_vault_sound(sample_vault)


def test_a_forget_after_a_killed_one_finishes_it_then_forgets_what_it_names(
    sample_vault: Path,
) -> None:
    """Another query after a killed forget: the interrupted forget is finished (and said),
    then the new one is planned on the finished vault and carried out in its own commit."""
    assert killed_midway(sample_vault, "forget: ", 1, "forget", SLUG, "--yes") == 137
    result = forget(sample_vault, "nginx timeouts", "--yes")
    assert result.exit_code == 0, result.output
    assert result.stderr.count(f'finished an interrupted write (forget: "{SLUG}": ') == 1
    subjects = git_log(sample_vault)
    assert subjects[0].startswith('forget: "nginx timeouts"')
    assert subjects[1].startswith(f'forget: "{SLUG}"')
    assert_vault_sound(sample_vault)
