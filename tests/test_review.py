"""The review queue end to end, with the real model, real git vaults and the real CLI: a lesson
told three ways becomes one rule once a person answers; answers hold on every clone."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cardvault.search.embedder import Embedder
from cardvault.vault.layout import Vault, iter_card_paths, open_vault_at
from cardvault.vault.read import read_card
from cardvault.vault.sections import get_section
from tests.support.cli import run_cli
from tests.support.maintain import (
    card,
    cited_as,
    commit_all,
    contradicting_vault,
    git,
    log,
    new_vault,
    run,
)
from tests.test_maintain_merge import PLATFORM_A, PLATFORM_B

pytestmark = pytest.mark.slow

TIMEOUTS = {
    "memory/2026-03-02.md#10:15",
    "memory/2026-03-09.md#09:30",
    "memory/2026-03-16.md#11:20",
}


def timeout_logs(vault: Vault) -> None:
    """The issue's three phrasings of "give every HTTP call a timeout", with distractors that
    share their words (HTTP retries, a database timeout, Redis expiry)."""
    log(vault, "2026-03-02", [
        ("10:15", "Import job stuck",
         "The nightly import sat for three hours, parked in `requests.get` on the rates API.\n"
         "Lesson: set a timeout on every HTTP client call; requests never gives up on its own."),
        ("16:40", "Retry storm against the geocoder",
         "Our client retried failed geocoder calls instantly and made the outage worse.\n"
         "Lesson: retry HTTP calls with exponential backoff and jitter, never in a tight loop."),
    ])  # fmt: skip
    log(vault, "2026-03-09", [
        ("09:30", "Worker hung on a slow API",
         "One worker stopped consuming; its last log line was the call to the vendor.\n"
         "Gotcha: requests made without a timeout can block indefinitely when the other side "
         "goes quiet."),
        ("14:00", "Runaway report query",
         "An ad-hoc report held a database connection for an hour.\n"
         "Lesson: set statement_timeout on the web app's Postgres role so no query runs forever."),
    ])  # fmt: skip
    log(vault, "2026-03-16", [
        ("11:20", "Webhook relay froze during the partner outage",
         "The relay stayed up but relayed nothing for 40 minutes.\n"
         "Lesson: HTTP calls need an explicit timeout (connect and read), or one dead peer "
         "stalls the whole process."),
        ("15:10", "Redis filled with old rate-limit keys",
         "Counters were written without expiry and memory grew every day.\n"
         "Lesson: always set a TTL on Redis keys that only matter for a while."),
    ])  # fmt: skip


def cli(root: Path, *args: str, now: str = "2026-03-20T10:00") -> Any:
    result = run_cli(["--vault", str(root), *args], env={"CARDVAULT_NOW": now})
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def pending(root: Path) -> list[dict[str, Any]]:
    found = json.loads(cli(root, "review", "--json").stdout)
    assert isinstance(found, list)
    return found


def answer_like_a_person(root: Path, same: set[str]) -> None:
    """Accept the members that tell the lesson in `same` (two or more), reject the rest."""
    for _ in range(4):
        items = pending(root)
        if not items:
            return
        for item in items:
            chosen = [m["n"] for m in item["members"] if m.get("source") in same]
            if len(chosen) >= 2:
                extra = [] if len(chosen) == len(item["members"]) else ["--only", _numbers(chosen)]
                cli(root, "review", "accept", item["id"], *extra)
            else:
                cli(root, "review", "reject", item["id"], "--reason", "different lessons")


def _numbers(found: list[int]) -> str:
    return ",".join(str(n) for n in found)


def cards_citing(vault: Vault, refs: set[str]) -> dict[str, Any]:
    refs = cited_as(vault, refs)
    found = {}
    for path in iter_card_paths(vault):
        parsed = read_card(path)
        if refs & set(parsed.sources):
            found[path.stem] = parsed
    return found


@pytest.fixture
def timeout_vault(tmp_path: Path) -> Vault:
    vault = new_vault(tmp_path / "v")
    timeout_logs(vault)
    commit_all(vault, "three weeks of logs")
    return vault


def test_three_phrasings_become_one_card_and_one_rule_after_review(
    timeout_vault: Vault, embedder: Embedder
) -> None:
    vault, root = timeout_vault, timeout_vault.root
    first = run(vault, embedder, today="2026-03-20")
    assert first.review_pending >= 1
    asked = pending(root)
    timeouts = cited_as(vault, TIMEOUTS)
    assert any({m.get("source") for m in item["members"]} >= timeouts for item in asked), (
        "one question links all three tellings"
    )
    for item in asked:
        assert {"id", "kind", "members", "evidence"} <= set(item)
        for member in item["members"]:
            assert {"path", "text"} <= set(member)
            assert member.get("source") is None or member["source"].startswith("memory/2026-")
    answer_like_a_person(root, timeouts)
    holders = cards_citing(vault, TIMEOUTS)
    assert len(holders) == 1, holders
    lesson = next(iter(holders.values()))
    assert lesson.seen == 3 and set(lesson.sources) >= timeouts
    assert lesson.status == "promoted" and "timeout" in lesson.topic.lower()
    rules = get_section(vault.agents_md.read_text(encoding="utf-8"), "rules") or ""
    lines = [line for line in rules.splitlines() if line.strip()]
    assert len(lines) == 1 and f"memory/cards/{lesson.slug}.md" in lines[0]
    head = git(root, "rev-parse", "HEAD")
    second = run(vault, embedder, today="2026-03-21")
    assert second.plan.empty and second.commit is None
    assert git(root, "rev-parse", "HEAD") == head
    assert cli(root, "review", "--json").stdout.strip() == "[]"


def test_rejected_questions_are_not_asked_again_on_another_clone(
    timeout_vault: Vault, embedder: Embedder
) -> None:
    vault, root = timeout_vault, timeout_vault.root
    run(vault, embedder, today="2026-03-20")
    for item in pending(root):
        cli(root, "review", "reject", item["id"])
    settled = (root / "memory" / "review.jsonl").read_text(encoding="utf-8")
    clone = root.parent / "clone"
    subprocess.run(["git", "clone", "-q", str(root), str(clone)], check=True)
    other = open_vault_at(clone)
    log(other, "2026-03-23", [("09:00", "Standup", "Nothing new. #lesson keep standups short")])
    commit_all(other, "a new day")
    run(other, embedder, today="2026-03-24")
    assert pending(clone) == []
    again = (clone / "memory" / "review.jsonl").read_text(encoding="utf-8")
    assert again == settled
    apart = cards_citing(other, TIMEOUTS)
    assert len(apart) == 3, "rejected tellings stay apart"


def test_contradiction_keeps_one_side_and_archives_the_other(
    tmp_path: Path, embedder: Embedder
) -> None:
    vault = contradicting_vault(tmp_path / "v", embedder)
    items = [i for i in pending(vault.root) if i["kind"] == "contradiction"]
    assert len(items) == 1
    winner = next(m["n"] for m in items[0]["members"] if "vitest" in m["path"])
    cli(vault.root, "review", "accept", items[0]["id"], "--keep", str(winner))
    archived = read_card(vault.root / "memory" / "archive" / "use-jest.md")
    assert archived.status == "archived" and archived.meta["superseded_by"] == "vitest-not-jest"
    assert (vault.root / "memory" / "cards" / "vitest-not-jest.md").exists()
    assert run(vault, embedder, today="2026-03-21").plan.empty
    assert pending(vault.root) == []


def test_two_new_lessons_that_contradict_are_asked_about_once(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Both sides new in one run: distill asks about the two entries, and the merge step must
    not ask again about the two cards they became (the same two sentences)."""
    vault = new_vault(tmp_path / "v")
    log(vault, "2026-03-02", [
        ("10:00", "Messy history on main",
         "main had fifty fix-typo commits from one PR.\n"
         "Rule: always squash merge pull requests into main."),
    ])  # fmt: skip
    log(vault, "2026-03-09", [
        ("11:00", "Lost the history of the migration PR",
         "Bisecting the migration series was impossible after the squash.\n"
         "Rule: never squash merge pull requests into main; keep their commits."),
    ])  # fmt: skip
    commit_all(vault)
    run(vault, embedder, today="2026-03-20")
    asked = [i for i in pending(vault.root) if i["kind"] == "contradiction"]
    assert len(asked) == 1, [[m["path"] for m in i["members"]] for i in asked]
    run(vault, embedder, today="2026-03-21")
    assert len([i for i in pending(vault.root) if i["kind"] == "contradiction"]) == 1


def test_a_run_with_thousands_of_questions_asks_some_and_never_overfills_the_queue(
    tmp_path: Path, embedder: Embedder
) -> None:
    """160 lessons that each give the build another port disagree pairwise: thousands of
    "which one holds?" questions, a queue over the file limit, and maintain failed on every
    run with nothing written. A step asks at most MAX_NEW_QUESTIONS and keeps the queue under
    QUEUE_BUDGET; the commit says how many were not asked, the lessons are all distilled, and
    the next run works. No question grows past MAX_ASK members by taking in the ones that
    touch it (one did, to all 160 lessons, and once rejected it kept every pair apart, so the
    questions left out were never asked): one that would widen a pending question past MAX_ASK
    waits for its answer, and once the queue is answered the next run asks more."""
    from cardvault.maintain.asking import MAX_NEW_QUESTIONS, QUEUE_BUDGET
    from cardvault.maintain.grouping import MAX_ASK
    from cardvault.vault.decisions import parse_queue, pending_items, render_queue

    vault = new_vault(tmp_path / "v")
    log(vault, "2026-03-02", [
        (f"{10 + n // 60:02d}:{n % 60:02d}", f"b{n}", f"Lesson: the build uses port {n + 8000}")
        for n in range(160)
    ])  # fmt: skip
    commit_all(vault)
    result = run(vault, embedder, today="2026-03-20")
    queue = vault.root / "memory" / "review.jsonl"
    asked = queue.read_text(encoding="utf-8").splitlines()
    assert len(asked) <= 2 * MAX_NEW_QUESTIONS and queue.stat().st_size <= QUEUE_BUDGET
    told = git(vault.root, "log", "-1", "--format=%B")
    assert "more question(s) not asked" in told, told[-600:]
    assert result.plan.counts()["distill"] == 160
    items = parse_queue(queue.read_text(encoding="utf-8"))
    widest = max(len({m.card or m.key for m in item.members}) for item in items)
    assert widest <= MAX_ASK, widest
    run(vault, embedder, today="2026-03-21")
    assert queue.stat().st_size <= QUEUE_BUDGET
    assert git(vault.root, "status", "--porcelain") == ""
    items = parse_queue(queue.read_text(encoding="utf-8"))
    answered = [i.settled("rejected", "2026-03-22", "test", "different ports") for i in items]
    queue.write_text(render_queue(answered), encoding="utf-8")
    commit_all(vault, "every question answered")
    run(vault, embedder, today="2026-03-23")
    again = pending_items(parse_queue(queue.read_text(encoding="utf-8")))
    assert again and all(i.asked == "2026-03-23" for i in again), len(again)
    told = git(vault.root, "log", "-1", "--format=%B")
    assert "more question(s) not asked" in told or "more question(s) wait" in told, told[-600:]


def test_a_question_never_names_an_entry_beside_the_card_that_holds_it(
    tmp_path: Path, embedder: Embedder
) -> None:
    """The issue-22 Go family in one run: distill asks about the entries, which become cards;
    the merge step's question about those cards adds nothing to it (it used to add the three
    cards, a six-member question saying everything twice)."""
    vault = new_vault(tmp_path / "v")
    for day, title, body in [
        ("2026-01-05", "Connection pool ran dry in the poller",
         "The poller leaked a TCP connection per request until it hit the file limit.\n"
         "Lesson: in Go, always defer resp.Body.Close() after a successful http.Get, even when "
         "you don't read the body."),
        ("2026-01-09", "Too many open files in the crawler",
         "lsof showed thousands of sockets in CLOSE_WAIT. Fix: close every response body "
         "(defer res.Body.Close()) right after checking the error."),
        ("2026-02-27", "Nil pointer panic on a failed request",
         "defer resp.Body.Close() ran before the error check and resp was nil.\n"
         "Lesson: check err first and defer the Close only once you know the response exists."),
    ]:  # fmt: skip
        log(vault, day, [("10:00", title, body)])
    commit_all(vault)
    run(vault, embedder, today="2026-03-20")
    items = pending(vault.root)
    assert items
    for item in items:
        places = [m.get("card") or m["key"] for m in item["members"]]
        assert len(places) == len(set(places)) and len(places) <= 4, places


def test_pending_decisions_show_in_stats_and_context(
    timeout_vault: Vault, embedder: Embedder
) -> None:
    run(timeout_vault, embedder, today="2026-03-20")
    count = len(pending(timeout_vault.root))
    stats = json.loads(cli(timeout_vault.root, "stats", "--json").stdout)
    assert stats["review_pending"] == count
    pack = cli(timeout_vault.root, "context").stdout
    noun = "decisions" if count != 1 else "decision"
    assert pack.splitlines()[0] == f"{count} memory {noun} pending: cardvault review"


def test_an_answer_names_a_pending_item(timeout_vault: Vault, embedder: Embedder) -> None:
    run(timeout_vault, embedder, today="2026-03-20")
    item = pending(timeout_vault.root)[0]
    cli(timeout_vault.root, "review", "reject", item["id"][:4])
    result = run_cli(["--vault", str(timeout_vault.root), "review", "accept", item["id"]])
    assert result.exit_code == 1 and "was settled on" in result.output
    missing = run_cli(["--vault", str(timeout_vault.root), "review", "reject", "ffff"])
    assert missing.exit_code == 1 and "no review item" in missing.output


def test_maintain_asks_the_judge_and_applies_its_answers(timeout_vault: Vault) -> None:
    """A judge set in cardvault.toml answers after `maintain`, as `judge:NAME`."""
    import sys

    root = timeout_vault.root
    script = root.parent / "judge.py"
    script.write_text(
        "import json, sys\n"
        "item = json.load(sys.stdin)['item']\n"
        "same = [m['n'] for m in item['members']\n"
        "        if 'timeout' in m['text'].lower() and 'statement_timeout' not in m['text']]\n"
        "if len(same) >= 2:\n"
        "    print(json.dumps({'answer': 'same', 'members': same, 'reason': 'all say: timeout'}))\n"
        "else:\n"
        "    print('different')\n",
        encoding="utf-8",
    )
    config = root / "cardvault.toml"
    judge = f"{sys.executable} {script}"
    text = config.read_text(encoding="utf-8").replace('judge = ""', f"judge = {json.dumps(judge)}")
    config.write_text(text, encoding="utf-8")
    commit_all(open_vault_at(root), "a judge")
    assert cli(root, "trust", "--yes").exit_code == 0  # the user approves the vault's judge
    for day in ("2026-03-20", "2026-03-21"):
        done = json.loads(cli(root, "maintain", "--json", now=f"{day}T09:00").stdout)
        if not done["review_pending"]:
            break
    holders = cards_citing(open_vault_at(root), TIMEOUTS)
    assert len(holders) == 1 and next(iter(holders.values())).seen == 3
    decided = [
        json.loads(line) for line in (root / "memory" / "review.jsonl").read_text().splitlines()
    ]
    assert decided and all(d["by"] == f"judge:{Path(sys.executable).name}" for d in decided)


def test_a_duplicate_kept_apart_stays_apart_in_maintain_and_import(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Two near-duplicate cards a person said are different: maintain never merges them, and
    importing one of them from an export never folds it into the other."""
    from cardvault.vault.decisions import Member, ReviewItem, item_id, render_queue

    vault = new_vault(tmp_path / "v")
    card(vault, "docker-platform-flag", "Docker Platform Flag", PLATFORM_A, created="2026-01-02")
    card(vault, "apple-silicon-images", "Apple Silicon Images", PLATFORM_B, created="2026-02-02")
    members = tuple(
        Member(f"memory/cards/{slug}.md", f"memory/cards/{slug}.md", "…")
        for slug in ("docker-platform-flag", "apple-silicon-images")
    )
    answered = ReviewItem(
        item_id("duplicate", [m.key for m in members]), "duplicate", members, {}, "2026-03-01"
    ).settled("rejected", "2026-03-02", "person", "one is about CI images")
    (vault.root / "memory" / "review.jsonl").write_text(render_queue([answered]), "utf-8")
    commit_all(vault)
    result = run(vault, embedder, today="2026-03-20")
    assert result.plan.counts()["merge"] == 0 and pending(vault.root) == []
    exported = tmp_path / "export.json"
    cli(vault.root, "export", str(exported))
    (vault.root / "memory" / "cards" / "apple-silicon-images.md").unlink()
    commit_all(vault, "removed by hand")
    outcome = json.loads(cli(vault.root, "import", str(exported), "--json").stdout)
    assert outcome["counts"]["new"] == 1 and outcome["counts"]["merged"] == 0
    assert (vault.root / "memory" / "cards" / "apple-silicon-images.md").exists()


def test_same_words_different_tool_is_asked_not_merged(tmp_path: Path, embedder: Embedder) -> None:
    """'use Jest' and 'use Vitest' share nearly every word; the STS-B check showed such pairs
    ("playing a guitar" / "playing a flute") can score as high as one lesson told twice."""
    vault = new_vault(tmp_path / "v")
    for day, tool in (("2026-03-02", "Jest"), ("2026-03-09", "Vitest")):
        decision = (
            f"Decision: use {tool} for the dashboard's unit tests with the jsdom environment."
        )
        log(vault, day, [("10:00", "Dashboard tests", decision)])
    commit_all(vault)
    run(vault, embedder, today="2026-03-20")
    refs = cited_as(vault, {"memory/2026-03-02.md#10:00", "memory/2026-03-09.md#10:00"})
    assert len(cards_citing(vault, refs)) == 2
    asked = [{m.get("source") for m in item["members"]} for item in pending(vault.root)]
    assert any(refs <= members for members in asked)


def test_an_answer_never_joins_cards_an_earlier_answer_kept_apart(tmp_path: Path) -> None:
    """A person said two cards are different; a later question names both with a third.
    Accepting all of it is refused with the way out named, and nothing is written; accepting
    only the members that tell one lesson works."""
    from cardvault.vault.decisions import Member, ReviewItem, item_id, render_queue

    vault = new_vault(tmp_path / "v")
    card(vault, "docker-platform-flag", "Docker Platform Flag", PLATFORM_A, created="2026-01-02")
    card(vault, "apple-silicon-images", "Apple Silicon Images", PLATFORM_B, created="2026-02-02")
    card(vault, "buildx-for-amd64", "Buildx for amd64", PLATFORM_A + " Use buildx.",
         created="2026-02-10")  # fmt: skip

    def members(*slugs: str) -> tuple[Member, ...]:
        return tuple(Member(f"memory/cards/{s}.md", f"memory/cards/{s}.md", "…") for s in slugs)

    apart = members("docker-platform-flag", "apple-silicon-images")
    answered = ReviewItem(
        item_id("duplicate", [m.key for m in apart]), "duplicate", apart, {}, "2026-03-01"
    ).settled("rejected", "2026-03-02", "person", "one is about CI images")
    asked = members("docker-platform-flag", "apple-silicon-images", "buildx-for-amd64")
    question = ReviewItem(item_id("same-lesson", [m.key for m in asked]), "same-lesson", asked,
                          {}, "2026-03-03")  # fmt: skip
    (vault.root / "memory" / "review.jsonl").write_text(render_queue([answered, question]), "utf-8")
    commit_all(vault)
    head = git(vault.root, "rev-parse", "HEAD")
    refused = run_cli(["--vault", str(vault.root), "review", "accept", question.id])
    assert refused.exit_code == 1
    assert "were kept apart by an earlier answer" in refused.stderr and "--only" in refused.stderr
    assert git(vault.root, "rev-parse", "HEAD") == head
    assert git(vault.root, "status", "--porcelain") == ""
    cli(vault.root, "review", "accept", question.id, "--only", "1,3")
    cards = vault.root / "memory" / "cards"
    assert (cards / "apple-silicon-images.md").exists()
    joined = [(cards / f"{s}.md").exists() for s in ("docker-platform-flag", "buildx-for-amd64")]
    assert joined.count(True) == 1  # members 1 and 3 are one card now


def test_a_person_who_said_two_cards_do_not_contradict_may_later_say_they_tell_one_lesson(
    tmp_path: Path,
) -> None:
    """A contradiction rejected (both stand: "they do not contradict") is no answer against the
    two telling one lesson: a later same-lesson question naming both can be accepted. It was
    refused with "accept --only the members that tell one lesson", which the person had done."""
    from cardvault.vault.decisions import Member, ReviewItem, item_id, render_queue

    vault = new_vault(tmp_path / "v")
    card(vault, "docker-platform-flag", "Docker Platform Flag", PLATFORM_A, created="2026-01-02")
    card(vault, "buildx-for-amd64", "Buildx for amd64", PLATFORM_A + " Use buildx.",
         created="2026-02-10")  # fmt: skip
    both = tuple(
        Member(f"memory/cards/{s}.md", f"memory/cards/{s}.md", "…")
        for s in ("docker-platform-flag", "buildx-for-amd64")
    )
    settled = ReviewItem(
        item_id("contradiction", [m.key for m in both]), "contradiction", both, {}, "2026-03-01"
    ).settled("rejected", "2026-03-02", "person", "both hold")
    question = ReviewItem(item_id("same-lesson", [m.key for m in both]), "same-lesson", both,
                          {}, "2026-03-03")  # fmt: skip
    (vault.root / "memory" / "review.jsonl").write_text(render_queue([settled, question]), "utf-8")
    commit_all(vault)
    cli(vault.root, "review", "accept", question.id)
    cards = vault.root / "memory" / "cards"
    joined = [(cards / f"{s}.md").exists() for s in ("docker-platform-flag", "buildx-for-amd64")]
    assert joined.count(True) == 1


def test_the_queue_budget_counts_bytes_as_the_file_limit_does() -> None:
    """The queue is written with ensure_ascii=False: a question in Chinese takes three bytes a
    character. Counting characters let a queue of such questions reach some 1.5 MB, over the
    vault file limit the budget is there to keep it under."""
    from cardvault.maintain.asking import QUEUE_BUDGET, _added
    from cardvault.vault.decisions import Member, ReviewItem, render_queue

    text = "构建使用端口" * 300
    asked = [
        ReviewItem("", "contradiction", (
            Member(f"memory/2026-03-02.md#{n:04d}a", "memory/2026-03-02.md", text + str(n)),
            Member(f"memory/2026-03-02.md#{n:04d}b", "memory/2026-03-02.md", text),
        ), {}, "2026-03-20")
        for n in range(190)
    ]  # fmt: skip
    items, _ = _added([], asked)
    assert len(render_queue(items).encode("utf-8")) <= QUEUE_BUDGET
