"""A vault that arrived through git cannot make cardvault's work grow faster than its size.

Every vault file is at most 1,000,000 bytes as the readers take it (vault/files.py), but the
work done on those bytes must stay in proportion too: a daily log of tens of thousands of
one-line entries, pulled into a team vault, must not cost each reader (or the merge driver a
`git pull` runs) entries x entries steps. Each test builds the hostile vault, pushes it to a
bare remote, clones it with real git and runs the real CLI (or git) on the clone in a new
process; the timeout only stops a hung command, it measures nothing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.hostile import attacker_git as git
from tests.support.hostile import published
from tests.support.machine import scaled

#: Far above what these commands take (a few seconds), far below what they took before; longer
#: on a loaded machine.
HUNG = scaled(120)


def cardvault(root: Path, *args: str, now: str = "2026-11-20T11:00") -> None:
    """`cardvault --vault ROOT ARGS` in a new process started in ROOT (where the project of
    `install --project` and `doctor` is), which must finish cleanly."""
    import os

    done = subprocess.run(
        [sys.executable, "-m", "cardvault", "--vault", str(root), *args],
        capture_output=True, text=True, timeout=HUNG, check=False, cwd=root,
        env={**os.environ, "CARDVAULT_NOW": now}, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr, done.stderr


def pull(victim: Path) -> subprocess.CompletedProcess[str]:
    """`git pull` in `victim`; on a hang, git and the merge driver it started are stopped."""
    import os
    import signal

    command = ["git", "-c", "user.name=v", "-c", "user.email=v@x", "pull", "--no-rebase", "-q"]
    pipe = subprocess.PIPE
    process = subprocess.Popen(
        command, cwd=victim, stdout=pipe, stderr=pipe, text=True, start_new_session=True
    )
    try:
        out, err = process.communicate(timeout=HUNG)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def test_a_log_of_many_short_entries_does_not_hang_the_readers(tmp_path: Path) -> None:
    """33,000 entry headings, then 160,000 one-line paragraphs, under 1 MB: the log parser
    looked for each entry's paragraphs among all of the log's, so `check` took 4 min 46 s (2 min
    35 s of CPU) on a clone of it, and `context` at session start as long; now a few seconds."""
    from cardvault.app.vaults import init_vault

    attacker = tmp_path / "attacker"
    init_vault(attacker)
    text = "# 2026-11-20\n\n" + "## 10:00 — e\n" * 33_000 + "Lesson: x\n\n" + "x\n\n" * 160_000
    assert len(text.encode("utf-8")) < 1_000_000
    (attacker / "memory" / "2026-11-20.md").write_text(text, encoding="utf-8")
    victim = published(attacker, tmp_path, "a busy day")
    cardvault(victim, "check")
    cardvault(victim, "context", "--budget", "500")


def a_day_both_logged(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The attacker's published vault with a log of 2026-11-20, and the victim's clone, which
    logged its own entry that day: (the attacker's vault, its log, the victim's clone)."""
    from cardvault.app.vaults import init_vault

    attacker = tmp_path / "attacker"
    init_vault(attacker)
    log = attacker / "memory" / "2026-11-20.md"
    log.write_text("# 2026-11-20\n\n## 09:00 — start\nLesson: begin\n", encoding="utf-8")
    victim = published(attacker, tmp_path, "the day starts")
    mine = run_cli(["--vault", str(victim), "log", "Lesson: my own", "--title", "mine"],
                   env={"CARDVAULT_NOW": "2026-11-20T11:00"})  # fmt: skip
    assert mine.exit_code == 0, mine.output  # a write: the clone's merge drivers are set up
    return attacker, log, victim


def test_a_pulled_log_of_many_entries_merges_without_hanging_git_pull(tmp_path: Path) -> None:
    """The victim logged an entry today; the attacker pushes 42,000 one-line entries (under
    1 MB) to the same day's log. `git pull` runs cardvault's log driver on it, which placed
    each entry of theirs by a scan of every entry kept so far, after three quadratic parses:
    minutes in all. The merge must finish and keep both sides' entries."""
    attacker, log, victim = a_day_both_logged(tmp_path)
    many = "".join(f"\n## 23:59 — e{i}\nx\n" for i in range(42_000))
    log.write_text(log.read_text("utf-8") + many, encoding="utf-8")
    assert log.stat().st_size < 1_000_000
    git(attacker, "commit", "-qam", "many entries")
    git(attacker, "push", "-q", str(tmp_path / "remote.git"), "HEAD")
    pulled = pull(victim)
    assert pulled.returncode == 0, pulled.stderr
    merged = (victim / "memory" / "2026-11-20.md").read_text("utf-8")
    assert "Lesson: my own" in merged and "## 23:59 — e41999" in merged
    assert "<<<<<<<" not in merged


def test_a_pulled_blob_bigger_than_any_vault_file_is_left_to_git(tmp_path: Path) -> None:
    """A 6 MB daily log: no reader takes more than its first 1,000,000 bytes, and the driver
    no longer parses three copies of it either; git's own line merge settles it (here: both
    sides appended at the end, a conflict git reports, the pull refused in one go)."""
    attacker, log, victim = a_day_both_logged(tmp_path)
    many = "".join(f"\n## 23:59 — e{i}\n" + "x" * 100 + "\n" for i in range(50_000))
    log.write_text(log.read_text("utf-8") + many, encoding="utf-8")
    git(attacker, "commit", "-qam", "a huge day")
    git(attacker, "push", "-q", str(tmp_path / "remote.git"), "HEAD")
    pulled = pull(victim)
    assert pulled.returncode == 1, pulled.stderr  # git's own conflict, not a driver's merge
    merged = (victim / "memory" / "2026-11-20.md").read_text("utf-8")
    assert merged.count("<<<<<<<") == 1 and "Lesson: my own" in merged


@pytest.mark.parametrize("answer", ["rejected", "accepted"])
def test_a_settled_question_of_many_members_does_not_eat_memory(
    tmp_path: Path, answer: str
) -> None:
    """One settled line in `memory/review.jsonl` (a tracked file: a shared vault carries it),
    a question of 30,000 members, under 1 MB. Rejected, it was turned into every pair it keeps
    apart, 450 million sets (3,000 members already took 2.1 GB and 97 s); accepted, each member
    got its own copy of the other 29,999 keys. Either way the victim's `maintain` grew past any
    machine's memory. Run with its address space capped at 4 GB (so a regression fails here
    instead of taking the machine), it must finish."""
    import json
    import resource

    from tests.support.hostile import make_base

    attacker = make_base(tmp_path / "attacker")
    git(attacker, "init", "-q")
    members = [{"key": f"k{n}", "path": "p"} for n in range(30_000)]
    settled = {"id": "abc123", "kind": "same-lesson", "members": members, "asked": "2026-11-01",
               "status": answer, "decided": "2026-11-02", "by": "person"}  # fmt: skip
    (attacker / "memory" / "review.jsonl").write_text(json.dumps(settled) + "\n", "utf-8")
    victim = published(attacker, tmp_path, "a shared vault")

    def capped() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    done = subprocess.run(
        [sys.executable, "-m", "cardvault", "--vault", str(victim),
         "maintain", "--dry-run", "--json"],
        capture_output=True, text=True, timeout=HUNG * 2, check=False, preexec_fn=capped,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["counts"]["distill"] > 0  # the lessons were grouped


def test_a_card_naming_a_pin_with_a_long_version_does_not_hang_verify(tmp_path: Path) -> None:
    """A card in a vault that shares its repository with code (so `verify` and `maintain`,
    which verifies before it promotes, check it against that code) whose prose holds
    `a@1.` and 200,000 digits, under 1 MB: the pattern for a pin written in prose tried every
    split of those digits between the version and its suffix, squared (8,000 digits took
    1.7 s, 100,000 over a minute, the 1 MB a card may hold hours); now linear."""
    from cardvault.app.vaults import init_vault

    attacker = tmp_path / "attacker"
    init_vault(attacker)
    (attacker / "app.py").write_text("def main():\n    pass\n", encoding="utf-8")
    head = "---\ntopic: Pins\ncategory: tools\ntags: [a]\ncreated: 2026-11-01\n"
    body = "We pin a@1." + "1" * 200_000 + "@ and numpy==1.26.4 here.\n"
    card = attacker / "memory" / "cards" / "pins.md"
    card.write_text(head + "updated: 2026-11-01\n---\n" + body, encoding="utf-8")
    victim = published(attacker, tmp_path, "a card with a long pin")
    cardvault(victim, "verify")
    cardvault(victim, "maintain", "--dry-run")


def test_a_paragraph_of_many_signals_and_clauses_does_not_hang_the_readers(
    tmp_path: Path,
) -> None:
    """One paragraph each of 30,000 `#lesson` tags inside signals, of 20,000 signals, and a
    line of 60,000 tabs then 30,000 semicolons, under 1 MB: each tag looked for its sentence's
    start among all of the paragraph's again, each signal for its end among all ends, each
    clause after a semicolon matched the line's tabs again (10,000 tags took 50 s, the tabs'
    line 200 s at 160 KB: squared); the readers of a clone of it now take a few seconds."""
    from cardvault.app.vaults import init_vault

    attacker = tmp_path / "attacker"
    init_vault(attacker)
    text = "# 2026-11-20\n\n## 10:00 — e\nStart\n" + "Lesson: a #lesson. " * 30_000
    text += "\n\n" + "Lesson: a. " * 20_000 + "\n\nStart\n" + "\t" * 60_000 + "; " * 30_000
    assert len(text.encode("utf-8")) < 1_000_000
    (attacker / "memory" / "2026-11-20.md").write_text(text + "\n", encoding="utf-8")
    victim = published(attacker, tmp_path, "a day of many lessons")
    cardvault(victim, "check")


def test_an_export_of_many_entries_for_a_day_the_vault_has_imports_without_hanging(
    tmp_path: Path,
) -> None:
    """A teammate's export whose log holds 6,000 short entries (170 KB) of a day the victim's
    vault has a log for: `import` appended them one by one, each one parsing the whole log
    grown so far for blocks it leaves open (3,000 entries took 217 s, 6,000 over 300 s:
    squared); now it takes a few seconds, and every entry is there once."""
    from cardvault.app.vaults import init_vault

    attacker, victim = tmp_path / "attacker", tmp_path / "victim"
    init_vault(attacker)
    init_vault(victim)
    text = "# 2026-11-20\n\n" + "".join(f"## 10:00 — e{i}\nx{i}\n\n" for i in range(6_000))
    (attacker / "memory" / "2026-11-20.md").write_text(text, encoding="utf-8")
    export = tmp_path / "export.json"
    cardvault(attacker, "export", "--logs", str(export))
    cardvault(victim, "log", "mine", "--title", "Mine")
    cardvault(victim, "import", str(export))
    log = (victim / "memory" / "2026-11-20.md").read_text(encoding="utf-8")
    assert log.count("\n## 10:00 — e") == 6_000 and "## 11:00 — Mine" in log


def test_a_vault_of_many_broken_cards_does_not_flood_the_mcp_tools_notes(tmp_path: Path) -> None:
    """3,000 cards of unreadable frontmatter, pushed to a shared vault: MCP `context` (its
    description says "never more than `budget` tokens") answered 275 KB, one "> note: skipped
    ..." per file after the pack, and `search` 3,001 notices, all of it in the model's context
    and outside the quoted blocks. A tool says the first few and how many more there are."""
    import anyio

    from cardvault.app.vaults import init_vault
    from tests.support.mcp import connected, text_of

    attacker = tmp_path / "attacker"
    init_vault(attacker)
    for number in range(3000):
        (attacker / "memory" / "cards" / f"bad-{number}.md").write_text(
            "---\ntopic: [unclosed\n---\nx\n", encoding="utf-8"
        )
    victim = published(attacker, tmp_path, "many broken cards")

    async def scenario() -> None:
        async with connected(victim) as client:
            pack = text_of(await client.call_tool("context", {"task": "deploy"}))
            assert pack.count("> note: ") <= 6 and len(pack) < 20_000, len(pack)
            assert "2995 more" in pack, pack[-400:]
            found = (await client.call_tool("search", {"query": "deploy"})).structured_content
            assert found is not None and len(found["notices"]) <= 7, found["notices"]  # + no match

    anyio.run(scenario)


def test_a_makefile_and_requirements_of_many_short_lines_do_not_hang_verify(
    tmp_path: Path,
) -> None:
    """A Makefile of 60,000 one-letter lines (120 KB) and a requirements.txt of 40,000 blank
    lines beside a card naming `make deploy` and a pin: the patterns for a make target and a
    pinned requirement let a blank run on across lines, so each line start scanned all the
    lines after it (verify took minutes on the Makefile; the 4 MB a file may be read at,
    hours)."""
    from cardvault.app.vaults import init_vault

    attacker = tmp_path / "attacker"
    init_vault(attacker)
    (attacker / "Makefile").write_text("a\n" * 60_000, encoding="utf-8")
    (attacker / "requirements.txt").write_text("\n" * 40_000 + "requests==2.31.0\n")
    head = "---\ntopic: Deploy steps\ncategory: workflow\ntags: [deploy]\ncreated: 2026-01-01\n"
    body = "Run `make deploy` after pinning `requests==2.31.0`.\n"
    card = attacker / "memory" / "cards" / "deploy-steps.md"
    card.write_text(head + "updated: 2026-01-01\n---\n" + body, encoding="utf-8")
    victim = published(attacker, tmp_path, "a long Makefile")
    cardvault(victim, "verify", "--dry-run")


def test_a_card_of_many_unclosed_section_markers_does_not_hang_maintain(tmp_path: Path) -> None:
    """A card whose topic is 45,000 unclosed `<!--cardvault:begin ` (900 KB), and an AGENTS.md
    rule line of 40,000 `(memory/cards/`: each marker looked for its `-->` to the end of the
    text, each citation for its `)` (the card's maintain took 457 s, the rule's 25 s)."""
    from cardvault.app.vaults import init_vault

    attacker = tmp_path / "attacker"
    init_vault(attacker)
    topic = "<!--cardvault:begin " * 45_000
    card = attacker / "memory" / "cards" / "marker-topic.md"
    card.write_text(
        f"---\ntopic: '{topic}'\ncategory: lessons\ntags: [x]\ncreated: 2026-11-30\n"
        "updated: 2026-11-30\n---\nbody\n",
        encoding="utf-8",
    )
    agents = attacker / "AGENTS.md"
    text = agents.read_text(encoding="utf-8")
    rule = "- " + "(memory/cards/" * 40_000 + "\n"
    agents.write_text(
        text.replace("<!-- cardvault:end rules -->", rule + "<!-- cardvault:end rules -->")
    )
    victim = published(attacker, tmp_path, "many markers")
    cardvault(victim, "maintain", "--dry-run")


@pytest.mark.parametrize(
    "where", ["memory/review.jsonl", "cardvault.toml", ".mcp.json", ".codex/config.toml"]
)
def test_json_or_toml_nested_too_deeply_is_one_clear_error_not_a_traceback(
    tmp_path: Path, where: str
) -> None:
    """A committed review queue, vault settings, host configuration or codex settings of
    100,000 nested brackets: Python's parsers give up with RecursionError, which went up as a
    traceback from every command (the settings), or check, context, maintain, doctor and
    install (and took the session-start context away)."""
    from cardvault.app.vaults import init_vault

    attacker = tmp_path / "attacker"
    init_vault(attacker)
    nested = "[" * 100_000 + "]" * 100_000
    text = {
        "memory/review.jsonl": nested + "\n",
        ".mcp.json": '{"a":' * 100_000 + "1" + "}" * 100_000,
        ".codex/config.toml": "a = " + nested + "\n",
        "cardvault.toml": "zz = " + nested + "\n",
    }[where]
    (attacker / where).parent.mkdir(parents=True, exist_ok=True)
    if where == "cardvault.toml":
        text = (attacker / where).read_text(encoding="utf-8") + text
    (attacker / where).write_text(text, encoding="utf-8")
    victim = published(attacker, tmp_path, "deep nesting")
    commands = [["check"], ["context"], ["maintain", "--dry-run"], ["review"], ["stats"]]
    if where != "memory/review.jsonl":
        commands = [["doctor", "--no-model"], ["install", "claude-code", "--project", "--dry-run"]]
        commands += [["install", "codex", "--project", "--dry-run"]]
    for args in commands:
        cardvault(victim, *args)


def test_a_history_of_many_big_cards_is_read_in_bounded_memory(tmp_path: Path) -> None:
    """A vault of 4 MB in git: 200 cards of 990 KB of the same text committed, each edited in a
    second commit, removed in a third. `history` kept every changed file's text before and
    after, of every commit at once: 777 MB at its peak (1,000 such cards: 3.9 GB and 47 s).
    Now one commit is read at a time, and 4 MB of its texts: the rest is counted."""
    import json

    from cardvault.app.vaults import init_vault
    from tests.support.hostile import run_in_process

    attacker = tmp_path / "attacker"
    init_vault(attacker)
    cards = attacker / "memory" / "cards"
    body = ("The same lesson, said again and again. " * 25 + "\n") * 990

    def write_all(topic: str) -> None:
        for n in range(200):
            (cards / f"big-{n}.md").write_text(f"---\ntopic: {topic} {n}\n---\n{body}", "utf-8")

    write_all("Big")
    git(attacker, "add", "-A")
    git(attacker, "commit", "-qm", "many big cards")
    write_all("Changed")
    git(attacker, "commit", "-qam", "change them all")
    for card in cards.glob("big-*.md"):
        card.unlink()
    victim = published(attacker, tmp_path, "remove them")
    assert sum(f.stat().st_size for f in (victim / ".git").rglob("*") if f.is_file()) < 8 << 20
    for args in (("history", "--json"), ("diff", "HEAD~1", "--json")):
        _, peak_mb, clean, _ = run_in_process(victim, args)
        assert clean and 0 < peak_mb < 300, (args, peak_mb)
    found = json.loads(
        subprocess.run(
            [sys.executable, "-m", "cardvault", "--vault", str(victim), "history", "--json"],
            capture_output=True, text=True, timeout=HUNG, check=True,
        ).stdout
    )  # fmt: skip
    assert [c["message"] for c in found][:3] == ["remove them", "change them all", "many big cards"]
    for commit in found[:3]:
        told = commit["changes"]
        assert told[-1]["kind"] == "unread" and told[-1]["text"].startswith(
            f"{201 - len(told)} more"
        )
    assert found[-1]["changes"]  # the vault's first commit, read as before


def test_a_commit_of_many_cards_is_told_up_to_a_thousand_of_them(tmp_path: Path) -> None:
    """1,500 small cards in one commit: each was read and parsed (50,000 took two minutes, in a
    repository of 400 KB); now the first 1,000 are told, the rest counted, and `--limit` keeps
    to the newest commits."""
    import json

    from cardvault.app.vaults import init_vault

    attacker = tmp_path / "attacker"
    init_vault(attacker)
    for n in range(1500):
        (attacker / "memory" / "cards" / f"c-{n}.md").write_text("---\ntopic: T\n---\nbody\n")
    victim = published(attacker, tmp_path, "many cards")
    args = [sys.executable, "-m", "cardvault", "--vault", str(victim), "history", "--json"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=HUNG, check=True)
    newest = json.loads(done.stdout)[0]
    assert newest["message"] == "many cards" and len(newest["changes"]) == 1001
    assert newest["changes"][-1]["text"].startswith("500 more files changed, not read")
    limited = subprocess.run([*args, "--limit", "1"], capture_output=True, text=True, check=True)
    assert [c["message"] for c in json.loads(limited.stdout)] == ["many cards"]


def merge_driver(tmp_path: Path, kind: str, sides: tuple[str, str, str], path: str) -> str:
    """cardvault's git merge driver KIND run as git runs it, in a new process, on (base, ours,
    theirs) for the vault file `path`; what it left in ours (the merge)."""
    files = []
    for name, text in zip(("base", "ours", "theirs"), sides, strict=True):
        (tmp_path / name).write_text(text, encoding="utf-8")
        files.append(str(tmp_path / name))
    done = subprocess.run(
        [sys.executable, "-m", "cardvault.sync.driver", kind, *files, path],
        capture_output=True, text=True, timeout=HUNG, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return (tmp_path / "ours").read_text(encoding="utf-8")


def test_a_pulled_memory_md_of_many_foreign_section_markers_merges_without_hanging(
    tmp_path: Path,
) -> None:
    """15,500 marker pairs of names cardvault never writes (939 KB) pulled into a MEMORY.md the
    victim edited: the driver scanned the file once per name found (a `git pull` of 202 s).
    Only cardvault's own sections are merged as sections; the rest is text."""
    theirs = "# M\n" + "".join(
        f"<!-- cardvault:begin s{i} -->\n<!-- cardvault:end s{i} -->\n" for i in range(15_500)
    )
    assert len(theirs.encode()) < 1_000_000
    merged = merge_driver(tmp_path, "managed", ("# M\n", "# M\nmine\n", theirs), "MEMORY.md")
    assert "mine" in merged and "cardvault:end s15499" in merged


@pytest.mark.parametrize(
    ("kind", "path"), [("hot", "memory/agents/x.md"), ("managed", "AGENTS.md")]
)
def test_a_pulled_hot_memory_or_rules_of_many_lines_merges_without_hanging(
    tmp_path: Path, kind: str, path: str
) -> None:
    """38,000 hot-memory fragments, or 38,000 learned rules, pulled against one line of the
    victim's: each line was looked for in the lists of the others (a hot memory of 977 KB took
    93 s to merge, doubling the rules took five times as long)."""
    n = 38_000
    if kind == "hot":
        base = "# hot\n\n" + "".join(f"- 2024-01-01 00:00 b{i}\n" for i in range(n))
        ours = base + "- 2024-01-02 00:00 mine\n"
        theirs = "# hot\n\n" + "".join(f"- 2024-01-01 00:00 t{i}\n" for i in range(n))
    else:

        def agents(rules: str) -> str:
            return f"# A\n<!-- cardvault:begin rules -->\n{rules}<!-- cardvault:end rules -->\n"

        base = agents("".join(f"- rule b{i}\n" for i in range(n)))
        ours = agents("".join(f"- rule b{i}\n" for i in range(n)) + "- mine\n")
        theirs = agents("".join(f"- rule t{i}\n" for i in range(n)))
    merged = merge_driver(tmp_path, kind, (base, ours, theirs), path)
    assert "mine" in merged and f"t{n - 1}" in merged and "b0\n" not in merged


def test_a_card_of_one_word_repeated_does_not_hang_search(tmp_path: Path) -> None:
    """A card of "redis " 80,000 times (480 KB): the snippet looked for its best window by
    collecting, for each hit, every hit after it (at 160,000 hits 14 minutes for one search,
    `context --task` the same; at 30,000, 46 s)."""
    from cardvault.app.vaults import init_vault

    attacker = tmp_path / "attacker"
    init_vault(attacker)
    head = "---\ntopic: One word\ncategory: tools\ntags: [x]\ncreated: 2024-01-01\n"
    card = attacker / "memory" / "cards" / "oneword.md"
    card.write_text(head + "updated: 2024-01-01\n---\n" + "redis " * 80_000 + "\n")
    victim = published(attacker, tmp_path, "one word")
    cardvault(victim, "search", "redis eviction", "--mode", "keyword")


def test_cards_naming_thousands_of_missing_symbols_do_not_hang_verify(tmp_path: Path) -> None:
    """80 cards naming 100 functions each that no file defines, in a repository of 3,000
    source files of 20 KB: each name was searched for in each file (files x names x bytes:
    minutes); now each file is read once into its words."""
    from cardvault.app.vaults import init_vault

    attacker = tmp_path / "attacker"
    init_vault(attacker)
    source = attacker / "src"
    source.mkdir()
    line = "def handler_function(request_value): return request_value + 1\n"
    for i in range(3_000):
        (source / f"m{i}.py").write_text(line * 320, encoding="utf-8")
    head = "---\ntopic: Calls {i}\ncategory: tools\ntags: [x]\ncreated: 2024-01-01\n"
    for i in range(80):
        names = " ".join(f"`missing_{i}_{j}()`" for j in range(100))
        (attacker / "memory" / "cards" / f"calls-{i}.md").write_text(
            head.format(i=i) + "updated: 2024-01-01\n---\nWe call " + names + ".\n"
        )
    victim = published(attacker, tmp_path, "many names")
    cardvault(victim, "verify", "--dry-run")
