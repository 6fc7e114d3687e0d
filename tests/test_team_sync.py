"""A team shares a vault through a bare remote, each clone running its own `maintain` between
syncs (the routine: log, maintain, sync): what two clones distil into the same card must merge
without a conflict a person has to resolve, and every lesson of both must be in the card once."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from cardvault.vault.card import Card
from cardvault.vault.decisions import read_queue
from cardvault.vault.read import read_card
from tests.support.cli import cli_at
from tests.support.writers import assert_vault_sound, git

WRITTEN = "2026-11-01T09:00"
TODAY = "2026-12-01T09:00"
REDIS = "Redis evicts keys with allkeys-lru when maxmemory is hit."


def cli(root: Path, *args: str, now: str = TODAY, code: int | None = 0) -> str:
    return cli_at(root, *args, now=now, code=code)


def two_clones(tmp_path: Path) -> tuple[Path, Path]:
    """Clones a and b of a vault holding one card, `redis-eviction`, written with `new`."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    a = tmp_path / "a"
    cli(tmp_path, "init", str(a), now=WRITTEN)
    git(a, "remote", "add", "origin", str(remote))
    cli(a, "new", "Redis eviction", "-c", "infrastructure", "--body", REDIS, now=WRITTEN)
    cli(a, "sync", now=WRITTEN)
    b = tmp_path / "b"
    subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
    cli(b, "sync", now=WRITTEN)  # sets up the merge drivers in this clone
    return a, b


def card_text(vault: Path, slug: str) -> str:
    return (vault / "memory/cards" / f"{slug}.md").read_text(encoding="utf-8")


def duplicate_merged_by_hand(root: Path) -> None:
    """`maintain --only merge` asks whether the two hand-written Redis cards are duplicates (it
    never merges curated cards on its own), and a person on clone `root` accepts: the answer
    merges them."""
    cli(root, "maintain", "--only", "merge")
    [asked] = json.loads(cli(root, "review", "--json"))
    assert asked["kind"] == "duplicate"
    cli(root, "review", "accept", asked["id"])


@pytest.mark.slow
def test_two_clones_distilling_other_lessons_into_one_card_merge_both(tmp_path: Path) -> None:
    """Each clone logs a lesson about the same card and runs maintain, which appends it to the
    card's body; the sync keeps both paragraphs, once, and both sources (no conflict)."""
    a, b = two_clones(tmp_path)
    policy = "Decision: set maxmemory-policy to allkeys-lru in redis.conf.\n→ card: redis-eviction"
    threshold = "Gotcha: eviction starts at 90 percent of maxmemory.\n→ card: redis-eviction"
    cli(a, "log", policy, "--title", "Redis policy")
    cli(b, "log", threshold, "--title", "Redis threshold")
    cli(a, "maintain")
    cli(b, "maintain")
    cli(a, "sync")
    cli(b, "sync")  # merges a's fold into b's
    cli(a, "sync")
    assert card_text(a, "redis-eviction") == card_text(b, "redis-eviction")
    card = read_card(a / "memory/cards/redis-eviction.md", a)
    assert "<<<<<<<" not in card_text(a, "redis-eviction")
    paragraphs = [p.strip() for p in card.body.split("\n\n") if p.strip()]
    assert paragraphs[0] == REDIS
    assert sorted(paragraphs[1:]) == [
        "Eviction starts at 90 percent of maxmemory.",
        "Set maxmemory-policy to allkeys-lru in redis.conf.",
    ]
    assert len(card.sources) == 2
    assert card.meta["seen"] == 3  # once by `new` (no `seen` key: 1), once on each clone
    for root in (a, b):
        assert_vault_sound(root)


@pytest.mark.slow
def test_the_same_lesson_distilled_into_a_new_card_on_two_clones_merges(tmp_path: Path) -> None:
    """Both clones distil the same synced log entry into a new card, of one slug; a holds a
    neighbouring card b does not have yet, so the two guess other categories. The sync keeps
    one card, with ours' category, the one source, seen once."""
    a, b = two_clones(tmp_path)
    cli(a, "log", "Uploads were slow. Lesson: always warm the upload cache before the big "
        "import.", "--title", "Upload warmup")  # fmt: skip
    cli(a, "sync")
    cli(b, "sync")
    cli(a, "new", "Upload cache", "-c", "tools", "--body", "The upload cache lives in "
        "/var/cache/upload and is cold after a deploy.")  # fmt: skip
    cli(a, "maintain")
    cli(b, "maintain")
    slug = "always-warm-the-upload-cache-before-the-big-import"
    guessed = {read_card(v / f"memory/cards/{slug}.md", v).category for v in (a, b)}
    assert guessed == {"tools", "lessons"}  # the case: each clone's own guess
    cli(a, "sync")
    cli(b, "sync")  # merges a's card into b's
    cli(a, "sync")
    assert card_text(a, slug) == card_text(b, slug)
    assert "<<<<<<<" not in card_text(b, slug)
    card = read_card(b / f"memory/cards/{slug}.md", b)
    assert card.category == "lessons"  # b merged: its own guess
    assert len(card.sources) == 1 and card.meta["seen"] == 1
    assert card.body.count("Always warm the upload cache before the big import.") == 1
    for root in (a, b):
        assert_vault_sound(root)


def forgotten_and_replaced(tmp_path: Path) -> tuple[Path, Path]:
    """Clones a and b sharing a small card, `worker-cdn-note`, which b then forgets and
    replaces with a new card of the same shape, `queue-login-note` (neither synced yet)."""
    a, b = two_clones(tmp_path)
    cli(a, "new", "Worker cdn note", "-c", "tools", "--body", "The worker needs the cdn.")
    cli(a, "sync")
    cli(b, "sync")
    cli(b, "forget", "worker-cdn-note", "--yes")
    cli(b, "new", "Queue login note", "-c", "tools", "--body", "The queue needs the login.")
    return a, b


def test_a_card_removed_and_another_added_is_not_taken_for_a_rename(tmp_path: Path) -> None:
    """b forgets a small card and writes a new one of the same shape; git's rename detection
    pairs the two (58 % alike: the same frontmatter lines). a folded a use into the forgotten
    card: the merge must not put a's tag edit or uses on b's new card, another card."""
    a, b = forgotten_and_replaced(tmp_path)
    new_card = card_text(b, "queue-login-note")
    cli(a, "--agent", "bot", "show", "worker-cdn-note")  # one use, recorded in a's ledger
    cli(a, "maintain", "--only", "uses")
    assert "uses: 1" in card_text(a, "worker-cdn-note")
    cli(a, "sync")
    cli(b, "sync")  # a's use of a card b forgot: the removal stands (sync/run.py)
    cli(a, "sync")
    for root in (a, b):
        assert card_text(root, "queue-login-note") == new_card
        assert not (root / "memory/cards/worker-cdn-note.md").exists()
        assert_vault_sound(root)


def test_a_tag_added_to_a_card_the_other_clone_removed_stops_the_sync(tmp_path: Path) -> None:
    """As above with a hand edit (a tag) of the forgotten card: a change a person made to a
    card the other clone removed is theirs to settle, not another card's to take."""
    a, b = forgotten_and_replaced(tmp_path)
    head = git(b, "rev-parse", "HEAD")
    card = a / "memory/cards/worker-cdn-note.md"
    card.write_text(card.read_text().replace("tags: []", "tags: [assets]"), encoding="utf-8")
    cli(a, "sync")
    out = cli(b, "sync", code=1)
    assert "memory/cards/worker-cdn-note.md: changed on one side, removed" in out
    assert git(b, "rev-parse", "HEAD") == head
    assert "assets" not in card_text(b, "queue-login-note")


def test_a_card_renamed_or_archived_on_one_clone_keeps_the_others_edit(tmp_path: Path) -> None:
    """The card's own moves are still followed: `rename` on a (the old slug becomes an alias)
    and a hand edit on b; `archive` on a and a use folded on b. The edit and the use land on
    the moved card."""
    a, b = two_clones(tmp_path)
    cli(a, "new", "Deploy flow", "-c", "workflow", "--body", "Deploy with make deploy.")
    cli(a, "sync")
    cli(b, "sync")
    cli(a, "rename", "redis-eviction", "redis-lru-eviction")
    cli(a, "archive", "deploy-flow")
    card = b / "memory/cards/redis-eviction.md"
    card.write_text(card.read_text() + "Set maxmemory-policy in redis.conf.\n", encoding="utf-8")
    cli(b, "--agent", "bot", "show", "deploy-flow")
    cli(b, "maintain", "--only", "uses", "--commit-pending")
    cli(b, "sync")
    cli(a, "sync")  # merges b's edit and use into a's moves
    cli(b, "sync")
    for root in (a, b):
        moved = read_card(root / "memory/cards/redis-lru-eviction.md", root)
        assert moved.body.endswith("Set maxmemory-policy in redis.conf.\n")
        archived = read_card(root / "memory/archive/deploy-flow.md", root)
        assert archived.meta["uses"] == 1
        assert not (root / "memory/cards/redis-eviction.md").exists()
        assert_vault_sound(root)


def test_a_log_forget_emptied_keeps_the_entry_another_clone_added(tmp_path: Path) -> None:
    """b forgets the one entry of a day's log, so forget removes the file; a logged another
    entry that day. The sync keeps a's new entry (and not the forgotten one), no conflict."""
    a, b = two_clones(tmp_path)
    friday = "2026-11-27T10:00"
    cli(a, "log", "Deploy broke on friday. Lesson: never deploy on friday.", "--title",
        "Friday", now=friday)  # fmt: skip
    cli(a, "sync")
    cli(b, "sync")
    cli(b, "forget", "friday", "--yes")
    assert not (b / "memory/2026-11-27.md").exists()
    cli(a, "log", "Rollback worked. Lesson: keep the rollback script handy.", "--title",
        "Rollback", now="2026-11-27T11:00")  # fmt: skip
    cli(a, "sync")
    cli(b, "sync")
    cli(a, "sync")
    for root in (a, b):
        text = (root / "memory/2026-11-27.md").read_text(encoding="utf-8")
        assert text.startswith("# 2026-11-27\n") and "## 11:00 — Rollback" in text
        assert "friday" not in text.lower()
        assert_vault_sound(root)
    assert (a / "memory/2026-11-27.md").read_bytes() == (b / "memory/2026-11-27.md").read_bytes()


def test_a_log_forget_emptied_stays_removed_when_the_other_clone_only_had_it(
    tmp_path: Path,
) -> None:
    """The day's log forget removed, unchanged on the other clone since: removed on both."""
    a, b = two_clones(tmp_path)
    cli(a, "log", "Deploy broke on friday. Lesson: never deploy on friday.", now="2026-11-27T10:00")
    cli(a, "sync")
    cli(b, "sync")
    cli(b, "forget", "friday", "--yes")
    cli(a, "log", "Another day. Lesson: x.")
    cli(a, "sync")
    cli(b, "sync")
    cli(a, "sync")
    for root in (a, b):
        assert not (root / "memory/2026-11-27.md").exists()
        assert_vault_sound(root)


def test_a_branch_following_the_teams_branch_under_another_name_syncs_with_it(
    tmp_path: Path,
) -> None:
    """b works on a branch `work` made from origin/main (`git checkout -b work origin/main`:
    its upstream is origin/main, as `git pull` and `git status` say). Its sync shares b's
    entry with the team's main, not with a new remote branch `work` no one else syncs."""
    a, b = two_clones(tmp_path)
    git(b, "checkout", "-q", "-b", "work", "origin/main")
    cli(b, "log", "Lesson: the work branch entry reaches the team.")
    out = cli(b, "sync")
    assert "origin/main" in out
    assert "refs/heads/work" not in git(b, "ls-remote", "origin")
    cli(a, "sync")
    assert "the work branch entry" in (a / "memory").joinpath(f"{TODAY[:10]}.md").read_text()
    status = git(b, "status", "-sb").splitlines()[0]
    assert status == "## work...origin/main"  # nothing left unpushed


def test_one_question_accepted_on_one_clone_and_rejected_on_the_other(tmp_path: Path) -> None:
    """'Duplicate?' answered accept on a (the cards become one) and reject on b, the same day;
    b syncs first, then a. The queue both clones read says what the vault holds, accepted,
    whichever order the two answers' lines took in the merged file."""
    a, b = two_clones(tmp_path)
    cli(a, "new", "Redis maxmemory", "-c", "infrastructure", "--body", "Redis evicts keys "
        "with allkeys-lru when maxmemory is hit, so set maxmemory.")  # fmt: skip
    members = [
        {"key": f"memory/cards/{slug}.md", "path": f"memory/cards/{slug}.md", "text": slug}
        for slug in ("redis-eviction", "redis-maxmemory")
    ]
    item = {"id": "d00d1e", "kind": "duplicate", "members": members, "evidence": {},
            "asked": "2026-12-01", "status": "pending"}  # fmt: skip
    (a / "memory/review.jsonl").write_text(json.dumps(item, sort_keys=True) + "\n")
    cli(a, "sync")  # the question, committed as a hand edit
    cli(b, "sync")
    cli(a, "review", "accept", "d00d1e")
    cli(b, "review", "reject", "d00d1e", "--reason", "not the same")
    cli(b, "sync")
    cli(a, "sync")  # a's file: its accept, then b's reject
    cli(b, "sync")
    assert not (a / "memory/cards/redis-maxmemory.md").exists()  # the accept merged them
    for root in (a, b):
        assert json.loads(cli(root, "review", "--json")) == []
        (found,) = read_queue(root)
        assert found.status == "accepted" and found.reason is None, root.name


@pytest.mark.slow
def test_a_lesson_folded_into_a_card_the_other_clone_merged_away_moves_on(tmp_path: Path) -> None:
    """a merges the duplicate `redis-eviction-policy` into `redis-eviction` (the question
    maintain asks, accepted); b folded a new lesson into the duplicate meanwhile. The sync
    carries b's lesson (its paragraph, source and sighting) into the card that survived
    instead of stopping."""
    a, b = two_clones(tmp_path)
    cli(a, "new", "Redis eviction policy", "-c", "infrastructure", "--body", REDIS)
    cli(a, "sync")
    cli(b, "sync")
    cli(b, "log", "Gotcha: eviction starts at 90 percent of maxmemory.\n→ card: "
        "redis-eviction-policy", "--title", "Redis threshold")  # fmt: skip
    cli(b, "maintain", "--only", "distill")
    cli(b, "promote", "redis-eviction-policy")  # by hand: a rule in AGENTS.md
    assert "90 percent" in card_text(b, "redis-eviction-policy")
    assert "status: promoted" in card_text(b, "redis-eviction-policy")
    duplicate_merged_by_hand(a)
    assert not (a / "memory/cards/redis-eviction-policy.md").exists()
    cli(a, "sync")
    cli(b, "sync")  # b's fold of the duplicate a merged away
    cli(a, "sync")
    for root in (a, b):
        assert not (root / "memory/cards/redis-eviction-policy.md").exists()
        card = read_card(root / "memory/cards/redis-eviction.md", root)
        assert card.body.count("Eviction starts at 90 percent of maxmemory.") == 1
        assert card.meta["merged_from"] == ["redis-eviction-policy"]
        # seen: the card's own telling and b's entry (distinct sightings, never a sum)
        assert len(card.sources) == 1 and card.meta["seen"] == 2
        assert card.status == "promoted"
        rules = (root / "AGENTS.md").read_text(encoding="utf-8")
        assert "memory/cards/redis-eviction-policy.md" not in rules
        assert_vault_sound(root)
    assert card_text(a, "redis-eviction") == card_text(b, "redis-eviction")


@pytest.mark.slow
def test_an_entry_distilled_into_a_card_on_each_clone_is_seen_once_when_they_merge(
    tmp_path: Path,
) -> None:
    """a distils its own entry into a card; b, holding both clones' entries, distils the two
    into a card of its own, citing a's entry too. After the syncs two cards cite a's entry;
    the next maintain merges them into one card seen once per entry (2, not 1 + 2), so below
    the promote threshold (3) it gets no rule."""
    a, b = two_clones(tmp_path)
    cli(a, "remember", "Restart the worker after changing the queue config")
    cli(a, "sync")
    cli(b, "remember", "Restart the worker after the queue config changes")
    cli(b, "sync")
    cli(a, "maintain")  # a has only its own entry
    cli(b, "maintain")  # b has both
    cli(b, "sync")
    cli(a, "sync")

    def worker_cards() -> list[Card]:
        cards = [read_card(p, a) for p in sorted((a / "memory/cards").glob("*.md"))]
        return [card for card in cards if "worker" in card.topic.lower()]

    cited = Counter(source for card in worker_cards() for source in card.sources)
    assert sorted(cited.values()) == [1, 2]  # the case: a's entry cited by both cards
    cli(a, "maintain")
    [card] = worker_cards()
    assert len(card.sources) == 2 and card.seen == 2
    assert card.status == "active"
    assert "worker" not in (a / "AGENTS.md").read_text(encoding="utf-8").lower()
    assert_vault_sound(a)


def memory_files(root: Path) -> dict[str, bytes]:
    """Every tracked file under memory/ and the managed files, by path (a clone's memory)."""
    names = git(root, "ls-files", "memory", "MEMORY.md", "AGENTS.md").split()
    return {name: (root / name).read_bytes() for name in names}


def synced_in_turn(a: Path, b: Path, first: str) -> None:
    """Both clones synced, the forgetting one (a) first or the other (b), then the first again,
    and the two hold the same memory."""
    for root in (a, b, a) if first == "forgetting" else (b, a, b):
        cli(root, "sync")
    assert memory_files(a) == memory_files(b)


def forgotten_on_a_distilled_on_b(tmp_path: Path, *entries: tuple[str, str]) -> tuple[Path, Path]:
    """Two synced clones of a vault whose log tells the CDN lesson (and `entries`, each a text
    and its title); then a forgets the CDN, and b, which has not seen the forget, distils it into a
    card (asserted: the case every caller tests)."""
    a, b = two_clones(tmp_path)
    cli(a, "log", "Saw stale 404s. Gotcha: the CDN caches 404s for 10 minutes.", "--title",
        "Stale 404s")  # fmt: skip
    for text, title in entries:
        cli(a, "log", text, "--title", title)
    cli(a, "sync")
    cli(b, "sync")
    cli(a, "forget", "CDN", "--yes")
    cli(b, "maintain")
    assert (b / "memory/cards/the-cdn-caches-404s-for-10-minutes.md").is_file()
    return a, b


@pytest.mark.slow
@pytest.mark.parametrize("first", ["forgetting", "distilling"])
def test_a_card_distilled_from_an_entry_the_other_clone_forgot_stays_forgotten(
    tmp_path: Path, first: str
) -> None:
    """a forgets the CDN entry; b, which has not seen the forget, distils it into a card and
    asks a review question about it. Whichever clone syncs first, after the syncs neither
    clone holds the card, the question, or any of the entry's text; b's other lesson stays."""
    a, b = forgotten_on_a_distilled_on_b(
        tmp_path, ("Uploads failed. Lesson: start the fake S3 before test_upload.", "Upload")
    )
    synced_in_turn(a, b, first)
    for root in (a, b):
        files = memory_files(root)
        assert not [n for n, text in files.items() if b"CDN" in text or b"404" in text]
        assert "memory/cards/the-cdn-caches-404s-for-10-minutes.md" not in files
        assert any(b"fake S3" in text for n, text in files.items() if "/cards/" in n)
        assert_vault_sound(root)


@pytest.mark.slow
def test_a_git_pull_by_hand_then_maintain_keeps_the_forgotten_forgotten(tmp_path: Path) -> None:
    """a forgets the CDN entry; b distils it into a card and syncs. a then pulls with git
    itself (no cardvault sync) and runs maintain: maintain first removes the card again, in
    its own commit, and says so; nothing of the entry is left or distilled again."""
    a, b = forgotten_on_a_distilled_on_b(tmp_path)
    cli(b, "sync")
    git(a, "-c", "user.name=a", "-c", "user.email=a@a", "pull", "-q", "--no-rebase", "--no-edit")
    assert (a / "memory/cards/the-cdn-caches-404s-for-10-minutes.md").is_file()  # it came back
    out = cli(a, "maintain")
    assert "removed again what a merge brought back of forgotten entries (1 card(s)" in out
    files = memory_files(a)
    assert not [n for n, text in files.items() if b"CDN" in text or b"404" in text]
    assert "forget: removed again" in git(a, "log", "--format=%s")
    assert_vault_sound(a)


def test_a_sync_whose_upstream_was_deleted_or_renamed_on_the_remote_pushes_nothing(
    tmp_path: Path,
) -> None:
    """A teammate renamed the team's branch main to trunk on the remote. b's main still
    follows origin/main: its sync must not bring back a `main` no one syncs any more (nor say
    "up to date"), but refuse, naming the branch and how to follow the new one, pushing
    nothing; once b follows origin/trunk, its entry reaches the team."""
    _, b = two_clones(tmp_path)
    remote = tmp_path / "remote.git"
    git(remote, "branch", "-m", "main", "trunk")
    git(remote, "symbolic-ref", "HEAD", "refs/heads/trunk")
    cli(b, "log", "Lesson: the entry after the rename reaches the team.")
    out = cli(b, "sync", code=1)
    assert "main" in out and "git branch -u" in out
    assert git(remote, "for-each-ref", "--format=%(refname:short)", "refs/heads").split() == [
        "trunk"
    ]
    git(b, "fetch", "-q", "--prune", "origin")  # our copy of main goes: trunk still says
    git(b, "remote", "set-head", "origin", "trunk")  # (origin/HEAD named the pruned main)
    assert "git branch -u" in cli(b, "sync", code=1)
    git(b, "branch", "-q", "-u", "origin/trunk")
    cli(b, "sync")
    assert "after the rename" in git(remote, "show", f"trunk:memory/{TODAY[:10]}.md")
    assert_vault_sound(b)


def test_the_first_sync_of_a_vault_made_in_a_clone_of_an_empty_repository_publishes_it(
    tmp_path: Path,
) -> None:
    """The team made an empty repository and cloned it (git then has the clone's main follow
    origin/main, which no one has pushed yet); `init` in the clone, then `sync`: main is not
    "deleted or renamed" on the remote, it is new, and the sync publishes it."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    team = tmp_path / "team"
    subprocess.run(["git", "clone", "-q", str(remote), str(team)], check=True, capture_output=True)
    cli(tmp_path, "init", str(team))
    cli(team, "log", "Lesson: the first entry reaches the new repository.")
    cli(team, "sync")
    assert "first entry" in git(remote, "show", f"main:memory/{TODAY[:10]}.md")
    assert git(team, "status", "-sb").splitlines()[0] == "## main...origin/main"


@pytest.mark.slow
@pytest.mark.parametrize("first", ["forgetting", "folding"])
def test_a_card_forgotten_on_one_clone_and_folded_into_on_the_other_stays_forgotten(
    tmp_path: Path, first: str
) -> None:
    """a forgets redis-eviction; b, not yet synced, folds a new lesson into it (maintain).
    The sync does not stop: the card stays gone on both clones, and b's new entry stays in
    the log, cited by no card, so b's next maintain distils it again, on its own."""
    a, b = two_clones(tmp_path)
    cli(a, "forget", "redis-eviction", "--yes")
    cli(b, "log", "Gotcha: eviction starts at 90 percent of maxmemory.\n→ card: redis-eviction",
        "--title", "Redis threshold")  # fmt: skip
    cli(b, "maintain")
    assert "90 percent" in card_text(b, "redis-eviction")  # the case: b folded it
    synced_in_turn(a, b, first)
    for root in (a, b):
        assert not (root / "memory/cards/redis-eviction.md").exists()
        assert "90 percent of maxmemory" in (root / f"memory/{TODAY[:10]}.md").read_text()
        assert_vault_sound(root)
    cli(b, "maintain")
    cards = [p.read_text() for p in (b / "memory/cards").glob("*.md")]
    assert any("90 percent of maxmemory" in text for text in cards)
    assert not any("allkeys-lru" in text for text in cards)


@pytest.mark.slow
def test_a_card_forgotten_on_one_clone_that_the_other_merged_a_duplicate_into(
    tmp_path: Path,
) -> None:
    """a forgets redis-eviction; b merged the duplicate redis-eviction-policy into it
    meanwhile (the question maintain asks, accepted). The sync does not stop: the forgotten
    card stays gone, and the duplicate, whose text is in no other card, comes back as a has it
    (b's merge of it undone)."""
    a, b = two_clones(tmp_path)
    cli(a, "new", "Redis eviction policy", "-c", "infrastructure", "--body", REDIS)
    cli(a, "sync")
    cli(b, "sync")
    policy = card_text(a, "redis-eviction-policy")
    cli(a, "forget", "redis-eviction", "--yes")
    assert (a / "memory/cards/redis-eviction-policy.md").exists()
    duplicate_merged_by_hand(b)
    assert not (b / "memory/cards/redis-eviction-policy.md").exists()  # the case: b merged
    for root in (a, b, a):
        cli(root, "sync")
    assert memory_files(a) == memory_files(b)
    for root in (a, b):
        assert not (root / "memory/cards/redis-eviction.md").exists()
        assert card_text(root, "redis-eviction-policy") == policy
        assert_vault_sound(root)


@pytest.mark.slow
def test_a_hand_written_entry_forgotten_on_one_clone_stays_forgotten(tmp_path: Path) -> None:
    """An entry a person wrote by hand has no id. a forgets it; b, not yet synced, gives it
    its id (maintain) and distils it into a card. The forget recorded the id the entry takes
    on every clone (the id derived from its text): after the syncs, neither clone holds the
    entry, its card or any of its text; the other hand-written entry stays."""
    a, b = two_clones(tmp_path)
    (a / "memory/2026-11-30.md").write_text(
        "# 2026-11-30\n\n## 15:00 — Stale 404s\nSaw stale 404s. Gotcha: the CDN caches 404s "
        "for 10 minutes.\n\n## 16:00 — Upload\nUploads failed. Lesson: start the fake S3 "
        "before test_upload.\n",
        encoding="utf-8",
    )
    cli(a, "sync")  # commits the hand edit
    cli(b, "sync")
    cli(a, "forget", "CDN", "--yes")
    cli(b, "maintain")
    assert (b / "memory/cards/the-cdn-caches-404s-for-10-minutes.md").is_file()  # the case
    for root in (b, a, b):
        cli(root, "sync")
    assert memory_files(a) == memory_files(b)
    for root in (a, b):
        files = memory_files(root)
        assert not [n for n, text in files.items() if b"CDN" in text or b"404" in text]
        assert b"fake S3" in files["memory/2026-11-30.md"]
        assert_vault_sound(root)


def test_a_forgotten_entry_with_a_copied_heading_takes_only_itself(tmp_path: Path) -> None:
    """A person copied an entry's heading, its id too, to start another entry, and then
    forgets that second entry. Its record names the id the copy takes (the first entry keeps
    the id), not the first entry's: no sync removes the first entry, on any clone."""
    a, b = two_clones(tmp_path)
    cli(a, "log", "Lesson: run the migrations before the deploy.", "--title", "Deploy prep")
    log = a / f"memory/{TODAY[:10]}.md"
    heading = log.read_text(encoding="utf-8").splitlines()[2]
    copied = heading.replace("Deploy prep", "CDN cache")
    with log.open("a", encoding="utf-8") as out:
        out.write(f"\n{copied}\nGotcha: the CDN caches 404s for 10 minutes.\n")
    cli(a, "sync")
    cli(b, "sync")
    cli(a, "forget", "CDN", "--yes")
    for root in (a, b, a):
        cli(root, "sync")
    for root in (a, b):
        text = (root / f"memory/{TODAY[:10]}.md").read_text(encoding="utf-8")
        assert "run the migrations" in text and "CDN" not in text
        assert_vault_sound(root)


@pytest.mark.slow
def test_maintain_after_a_git_pull_by_hand_commits_nothing_it_may_not(tmp_path: Path) -> None:
    """As above, but a runs `maintain --review`, which leaves the branch as it was; then, with
    a hand edit it has not committed, maintain refuses, as it does on any hand edit, and
    commits nothing (neither the edit nor the removal). With --commit-pending, the edit is
    committed and the card removed."""
    a, b = forgotten_on_a_distilled_on_b(
        tmp_path, ("Uploads failed. Lesson: start the fake S3 before test_upload.", "Upload")
    )
    cli(b, "sync")
    git(a, "-c", "user.name=a", "-c", "user.email=a@a", "pull", "-q", "--no-rebase", "--no-edit")
    head = git(a, "rev-parse", "HEAD")
    cli(a, "maintain", "--review")
    assert git(a, "rev-parse", "HEAD") == head
    card = a / "memory/cards/start-the-fake-s3-before-test-upload.md"
    card.write_text(card.read_text() + "The bucket is in eu-west-1.\n", encoding="utf-8")
    assert "uncommitted changes in the vault" in cli(a, "maintain", code=1)
    assert git(a, "rev-parse", "HEAD") == head
    assert git(a, "status", "--porcelain").split() == ["M", card.relative_to(a).as_posix()]
    out = cli(a, "maintain", "--commit-pending", "--json").splitlines()
    done = json.loads(next(line for line in out if line.startswith("{")))
    assert done["pending_commit"] is not None  # the hand edit, committed and said
    assert "removed again what a merge brought back of forgotten entries (1 card(s)" in str(
        done["notices"]
    )
    files = memory_files(a)
    assert not [n for n, text in files.items() if b"CDN" in text or b"404" in text]
    assert b"eu-west-1" in files[card.relative_to(a).as_posix()]
    assert_vault_sound(a)


@pytest.mark.slow
@pytest.mark.parametrize("first", ["forgetting", "folding"])
def test_an_entry_forgotten_on_one_clone_and_folded_into_a_card_on_the_other(
    tmp_path: Path, first: str
) -> None:
    """a forgets the entry "Redis threshold"; b, not yet synced, folded its lesson into
    redis-eviction, a card `new` wrote (so the entry is the card's one source, but not its
    one lesson). After the syncs the entry is gone on both clones, and the card is not: its
    own lesson is in no entry."""
    a, b = two_clones(tmp_path)
    cli(a, "log", "Gotcha: eviction starts at 90 percent of maxmemory.\n→ card: redis-eviction",
        "--title", "Redis threshold")  # fmt: skip
    cli(a, "sync")
    cli(b, "sync")
    cli(a, "forget", "Redis threshold", "--yes")
    cli(b, "maintain")
    assert "90 percent" in card_text(b, "redis-eviction")  # the case: b folded it
    synced_in_turn(a, b, first)
    for root in (a, b):
        assert REDIS in card_text(root, "redis-eviction")
        assert not (root / f"memory/{TODAY[:10]}.md").exists()  # its one entry went
        assert_vault_sound(root)


def test_two_clones_entries_of_one_id_and_a_forget_of_one_takes_only_it(tmp_path: Path) -> None:
    """Two clones' entries of one day share an id (written by hand, or ids drawn at random on
    two machines that met); the merge keeps both. a forgets its own: the record names the id
    the first holds, and no sync, on either clone, takes b's entry for it."""
    a, b = two_clones(tmp_path)
    log = f"memory/{TODAY[:10]}.md"
    (a / log).write_text(f"# {TODAY[:10]}\n\n## 09:00 — Staging deploy <!-- id:abcdef -->\n"
                         "Lesson: the staging deploy needs the VPN.\n")  # fmt: skip
    (b / log).write_text(f"# {TODAY[:10]}\n\n## 09:05 — Upload cache <!-- id:abcdef -->\n"
                         "Lesson: warm the upload cache first.\n")  # fmt: skip
    for root in (a, b, a):
        cli(root, "sync")
    assert "warm the upload cache" in (a / log).read_text()  # the case: both kept
    cli(a, "forget", "Staging deploy", "--yes")
    for root in (a, b, a):
        cli(root, "sync")
    for root in (a, b):
        text = (root / log).read_text(encoding="utf-8")
        assert "warm the upload cache" in text and "VPN" not in text
        assert_vault_sound(root)
