"""What a person reviewing the memory diff every week found on writing the product had not seen
(developer and agent logs, hand edits, imports), each through the real CLI, real git and the real
embedding model:

- a line of an entry's own text that starts `Agent: ...` (a narrative "Agent: went through the
  seed failure again") named the entry's agent: `agents` listed sentences as agents, and a rule
  said "learned by second try on staging, ..." (two such entries would have promoted a lesson as
  "learned by 2 agents");
- a signal after a dash or a semicolon, where a clause starts ("Note for future sessions —
  Gotcha: `make deploy` reads AWS_PROFILE from the shell"), was never distilled, and the entry
  never showed as "just remembered" either; nor was one set in italics (`*Lesson:*`, `_Gotcha_:`)
  as bold ones are, nor one that is a sub-heading of the entry (`### Lesson: pin the image`);
- a version pinned in prose ("We pin numpy==1.26.4 until the scipy upgrade lands", as it came
  from a developer's log) was not checked by `verify`: only a pin in backticks was, so the card
  stayed fresh after the lock file moved to numpy==2.1.3;
- a lesson seen a third time in the week its command left the project was promoted to AGENTS.md
  and marked stale by the same run: "promoted make-deploy-..." beside "make-deploy-...: stale
  (`make deploy`: no make target deploy)", an outdated rule every agent then loads;
- a new question sharing a card with a pending one extends it, and its evidence was dropped:
  "Redis session store must keep noeviction" (12.65 against the Redis cache card) joined last
  week's "orders migration locks vs Redis cache" question (2.75), which still showed only the
  migration/cache pair, so nothing told the reviewer why the session store was asked about;
- the merge step merged two cards that distill had just asked about in the same run ("Lower the
  TTL to 300 s ..." imported, "Lower the DNS TTL to 60 s, not 300 s, ..." remembered): the
  question was closed as "already in one card", the card held both values, and it was promoted
  (seen 3) with the 300 s rule.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardvault.vault.config import DEFAULT_SIGNALS
from cardvault.vault.daily import parse_log
from cardvault.verify.names import named_in
from tests.support.cli import cli_at
from tests.support.writers import git

pytestmark = pytest.mark.slow


def vault_at(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    cli_at(tmp_path, "init", str(root), now="2026-11-02T09:00")
    return root


def test_a_line_of_the_text_starting_agent_does_not_name_the_agent(tmp_path: Path) -> None:
    root = vault_at(tmp_path)
    body = "Run the database migrations before the seed script."
    cli_at(root, "new", "Seed order", "-c", "lessons", "--body", body, now="2026-11-02T09:01")
    told = [
        "Agent: went through the seed failure again today.\nLesson: run the database migrations "
        "before the seed script, or the seed fails.\n→ card: seed-order",
        "Agent: second try on staging, same seed failure.\nLesson: the seed script needs the "
        "migrations run first.\n→ card: seed-order",
    ]
    for day, text in zip(("03", "04"), told, strict=True):
        at = f"2026-11-{day}T10:00"
        cli_at(root, "log", "--agent", "claude", "--title", "Seed", text, now=at)
    agents = json.loads(cli_at(root, "agents", "--json", now="2026-11-05T09:00"))
    assert [a["name"] for a in agents] == ["claude"]
    assert agents[0]["entries"] == 2
    cli_at(root, "maintain", now="2026-11-05T09:00")
    rules = (root / "AGENTS.md").read_text(encoding="utf-8")
    rule = [line for line in rules.splitlines() if "seed script" in line]
    assert len(rule) == 1 and "learned by claude (" in rule[0], rules
    # a hand-written entry naming its agent the way cardvault writes it still counts
    cli_at(root, "log", "--title", "By hand", "Lesson: x.\nAgent: codex", now="2026-11-06T10:00")
    agents = json.loads(cli_at(root, "agents", "--json", now="2026-11-06T11:00"))
    assert [a["name"] for a in agents] == ["claude", "codex"]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("Note for future sessions — Gotcha: export AWS_PROFILE first.",
         [("gotcha", "export AWS_PROFILE first.")]),
        ("Note for future sessions—Lesson: export it first.", [("lesson", "export it first.")]),
        ("Deployed build 481 – Fix: pin the base image.", [("fix", "pin the base image.")]),
        ("Deployed build 481 -- Fix: pin the base image.", [("fix", "pin the base image.")]),
        ("Deployed build 481 - Fix: pin the base image.", [("fix", "pin the base image.")]),
        ("It hung for an hour; Lesson: set a timeout.", [("lesson", "set a timeout.")]),
        ("*Lesson:* italic label works like bold.", [("lesson", "italic label works like bold.")]),
        ("Deploy broke. _Gotcha_: the profile.", [("gotcha", "the profile.")]),
        ("### Lesson: always pin the base image\nWe lost a day to it.",
         [("lesson", "always pin the base image")]),
        ("#### Gotcha: the cache key", [("gotcha", "the cache key")]),
        ("```\n### Lesson: a heading in code\n```", []),
        ("> ### Lesson: a quoted heading", []),
        # still no clause start: a word joined by a hyphen, a phrase that names a word
        ("A re-Fix: nothing", []),
        # the sentence a #lesson tag ends is still the whole sentence
        ("Pin the image — always #lesson", [("tag", "Pin the image — always")]),
        ("We took a decision: ship it.", []),
    ],
)  # fmt: skip
def test_a_signal_after_a_dash_or_a_semicolon_starts_a_lesson(
    body: str, expected: list[tuple[str, str]]
) -> None:
    text = f"# 2026-11-03\n\n## 15:00 — Deploy staging\n{body}\n"
    [entry] = parse_log(text, Path("memory/2026-11-03.md"), DEFAULT_SIGNALS)
    assert [(s.kind, s.text) for s in entry.signals] == expected


def test_a_gotcha_after_a_dash_is_distilled(tmp_path: Path) -> None:
    root = vault_at(tmp_path)
    text = (
        "Deployed build 481 to staging. Note for future sessions — Gotcha: `make deploy` reads "
        "AWS_PROFILE from the shell, not from .env, so run `export AWS_PROFILE=staging` first."
    )
    cli_at(
        root, "log", "--agent", "claude", "--title", "Deploy staging", text, now="2026-11-03T15:00"
    )
    cli_at(root, "maintain", now="2026-11-04T09:00")
    cards = list((root / "memory" / "cards").glob("*.md"))
    assert len(cards) == 1
    body = cards[0].read_text(encoding="utf-8")
    assert "`make deploy` reads AWS_PROFILE from the shell, not from .env" in body


def test_a_version_pinned_in_prose_is_checked() -> None:
    body = (
        "We pin numpy==1.26.4 until scipy>=1.13 lands; react@18.2.0 too.\n"
        "Not pins: a==b, mail me at ops@example.com, x==1 and `kept==2.0.1` once.\n"
        "Ends a sentence: pin redis==5.0.1.\n"
    )
    found = [(n.kind, n.text) for n in named_in(body)]
    assert found == [
        ("pin", "numpy==1.26.4"),
        ("pin", "react@18.2.0"),
        ("pin", "kept==2.0.1"),
        ("pin", "redis==5.0.1"),
    ]


def project_with(tmp_path: Path, name: str, text: str, now: str) -> tuple[Path, Path]:
    """A project repository of one committed file (`name` holding `text`), and its vault in
    `vault/`, made at `now`: (the repository, the vault)."""
    top = tmp_path / "web"
    top.mkdir()
    (top / name).write_text(text)
    git(top, "init", "-q", "-b", "main")
    git(top, "add", "-A")
    git(top, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "code")
    vault = top / "vault"
    cli_at(top, "init", str(vault), now=now)
    return top, vault


def test_a_card_pinning_a_version_in_prose_goes_stale_when_the_lock_file_moves(
    tmp_path: Path,
) -> None:
    top, vault = project_with(tmp_path, "requirements.txt", "numpy==1.26.4\nscipy==1.12.0\n",
                              now="2026-11-04T09:00")  # fmt: skip
    body = "We pin numpy==1.26.4 until the scipy upgrade lands."
    cli_at(vault, "new", "Numpy pin", "-c", "lessons", "--body", body, now="2026-11-04T09:30")
    cli_at(vault, "verify", now="2026-11-05T09:00")
    (top / "requirements.txt").write_text("numpy==2.1.3\nscipy==1.14.0\n")
    git(top, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qam", "bump numpy")
    out = cli_at(vault, "verify", "--json", now="2026-11-20T09:00", code=1)
    [stale] = json.loads(out)["stale"]
    assert stale["path"].endswith("memory/cards/numpy-pin.md")
    assert "numpy==1.26.4" in json.dumps(stale)


def test_a_card_found_stale_is_not_promoted_until_the_question_is_answered(
    tmp_path: Path,
) -> None:
    _, vault = project_with(tmp_path, "Makefile", "ship:\n\t./deploy.sh\n",
                            now="2026-11-02T09:00")  # fmt: skip
    body = "`make deploy` reads AWS_PROFILE from the shell, not from .env."
    cli_at(vault, "new", "Deploy profile", "-c", "lessons", "--body", body, now="2026-11-02T09:30")
    for day in ("09", "16"):
        text = "Lesson: export AWS_PROFILE before `make deploy`.\n→ card: deploy-profile"
        cli_at(vault, "log", "--title", "Deploy", text, now=f"2026-11-{day}T10:00")
    out = json.loads(cli_at(vault, "maintain", "--json", now="2026-11-20T09:00"))
    card = (vault / "memory/cards/deploy-profile.md").read_text(encoding="utf-8")
    assert "seen: 3" in card and "stale:" in card and "status: promoted" not in card, card
    assert "deploy-profile" not in (vault / "AGENTS.md").read_text(encoding="utf-8")
    assert out["counts"]["promote"] == 0 and out["counts"]["verify"] >= 1, out["counts"]
    [asked] = out["asked"]
    # the person says the card is still right: the mark goes, and the next run promotes it
    cli_at(vault, "review", "reject", asked, now="2026-11-21T09:00")
    cli_at(vault, "maintain", now="2026-11-22T09:00")
    assert "deploy-profile" in (vault / "AGENTS.md").read_text(encoding="utf-8")


# three tellings of one lesson (a timeout on every HTTP call), in words far enough apart that a
# person is asked, and one unrelated lesson no question may pair with them
BILLING = (
    "The billing export hung for an hour. Lesson: set a timeout on every HTTP call to the "
    "billing API; requests waits forever by default."
)
PAYMENTS = (
    "Payments client stuck overnight. Lesson: requests has no default timeout, so the payments "
    "client hung; pass timeout= to every call."
)
REDIS_CACHE = (
    "Agent note: Redis. Lesson: set `maxmemory-policy allkeys-lru` on the cache instance; with "
    "the default `noeviction` writes fail with OOM once 2 GB is reached."
)
EXPORT = "Lesson: always give requests.get a timeout; the nightly export hung again without one."


def pending(root: Path, now: str) -> list[dict[str, object]]:
    return [i for i in json.loads(cli_at(root, "review", "--json", now=now))]


def about(item: dict[str, object]) -> set[str]:
    members = item["members"]
    assert isinstance(members, list)
    return {str(m.get("card") or m["key"]) for m in members}


def test_a_question_joining_a_pending_one_brings_its_evidence(tmp_path: Path) -> None:
    root = vault_at(tmp_path)
    cli_at(root, "log", "--title", "Billing hang", BILLING, now="2026-11-03T11:00")
    cli_at(root, "log", "--title", "Payments hang", PAYMENTS, now="2026-11-10T11:00")
    cli_at(root, "log", "--title", "Redis cache", REDIS_CACHE, now="2026-11-10T16:00")
    cli_at(root, "maintain", now="2026-11-14T09:00")
    billing = "memory/cards/set-a-timeout-on-every-http-call-to-the-billing.md"
    payments = "memory/cards/pass-timeout-to-every-call.md"
    [before] = pending(root, "2026-11-14T09:05")
    assert about(before) == {billing, payments}, before  # the week's question, as it was
    shown = before["evidence"]["pairs"]  # type: ignore[index]
    cli_at(root, "log", "--title", "Export hang", EXPORT, now="2026-11-17T11:00")
    cli_at(root, "maintain", now="2026-11-20T09:00")
    export = "memory/cards/always-give-requests-get-a-timeout.md"
    [after] = pending(root, "2026-11-20T09:05")
    assert after["id"] == before["id"] and about(after) == {billing, payments, export}
    pairs = after["evidence"]["pairs"]  # type: ignore[index]
    assert pairs[: len(shown)] == shown, "last week's evidence is kept"
    joined = [p for p in pairs if "memory/2026-11-17.md#" in str(p["between"])]
    assert joined, pairs  # why the export lesson is asked about
    assert after["evidence"]["score"] == max(p["score"] for p in pairs)  # type: ignore[index]


DNS_NOTE = """---
title: DNS TTL before migrations
created: 2023-11-20
updated: 2023-12-01
---
Lower the TTL to 300 s a day before moving a host. Never leave it at 86400 during a cut-over.
"""


def test_cards_a_pending_question_asks_about_are_not_merged_before_the_answer(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes" / "infra"
    notes.mkdir(parents=True)
    (notes / "dns-ttl.md").write_text(DNS_NOTE, encoding="utf-8")
    root = vault_at(tmp_path)
    cli_at(root, "import", str(tmp_path / "notes"), now="2026-11-02T09:10")
    lower = "Lower the DNS TTL to 60 s, not 300 s, a day before moving a host."
    cli_at(root, "remember", lower, now="2026-11-03T11:00")
    never = "DNS TTL: never leave it at 86400 during a cut-over unless the registrar forces it."
    cli_at(root, "remember", never, now="2026-11-03T13:00")
    out = json.loads(cli_at(root, "maintain", "--json", now="2026-11-04T09:00"))
    cards = root / "memory" / "cards"
    assert (cards / "lower-the-dns-ttl-to-60-s-not-300-s.md").exists(), out["changes"]
    assert "60 s" not in (cards / "infra" / "dns-ttl.md").read_text(encoding="utf-8")
    assert "dns-ttl" not in (root / "AGENTS.md").read_text(encoding="utf-8")
    [question] = pending(root, "2026-11-04T09:05")
    assert question["kind"] == "same-lesson"
    assert {
        "memory/cards/infra/dns-ttl.md",
        "memory/cards/lower-the-dns-ttl-to-60-s-not-300-s.md",
    } <= about(question)
    # the person's answer decides: accepted, the lessons become one card
    cli_at(root, "review", "accept", str(question["id"]), now="2026-11-05T09:00")
    assert not (cards / "lower-the-dns-ttl-to-60-s-not-300-s.md").exists()
    assert lower in (cards / "infra" / "dns-ttl.md").read_text(encoding="utf-8")
