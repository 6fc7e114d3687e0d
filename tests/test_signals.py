"""Signals where people write them (issue 22): a signal word and a colon wherever a sentence
starts, a `#lesson` tag anywhere, never in code or quoted output; the README tour's examples
distilled verbatim through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardvault.vault.config import DEFAULT_SIGNALS
from cardvault.vault.daily import parse_log
from cardvault.vault.read import read_card
from tests.support.cli import run_cli


def signals(body: str, words: tuple[str, ...] = DEFAULT_SIGNALS) -> list[tuple[str, str]]:
    text = f"# 2026-03-19\n\n## 14:30 — An entry\n{body}\n"
    [entry] = parse_log(text, Path("memory/2026-03-19.md"), words)
    return [(s.kind, s.text) for s in entry.signals]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # the README tour, verbatim
        ("Login kept failing. Lesson: send the token twice.",
         [("lesson", "send the token twice.")]),
        ("Lesson: Bearer tokens bypass Cortex CSRF entirely",
         [("lesson", "Bearer tokens bypass Cortex CSRF entirely")]),
        # after any sentence end, several in one line, any case, bold
        ("Deploy failed! Fix: pin the base image.", [("fix", "pin the base image.")]),
        ("Why did it hang? gotcha: requests has no default timeout.",
         [("gotcha", "requests has no default timeout.")]),
        ("Two things. Rule: keep one. Decision: ship two.",
         [("rule", "keep one."), ("decision", "ship two.")]),
        ("It broke. **Lesson:** pin it.", [("lesson", "pin it.")]),
        ("It broke. **Lesson**: pin it.", [("lesson", "pin it.")]),
        ("1. Preference: tabs over spaces", [("preference", "tabs over spaces")]),
        # a hard-wrapped lesson goes on to the next line; the story after a finished one does not
        ("Slow again. Lesson: set a timeout on every HTTP call,\notherwise the worker hangs.",
         [("lesson", "set a timeout on every HTTP call, otherwise the worker hangs.")]),
        ("Lesson: one thing\n→ card: somewhere", [("lesson", "one thing")]),
        ("Lesson: always paginate.\nSwitched fetch to the paginator.",
         [("lesson", "always paginate.")]),
        ("Lesson: wrapped `code`\nand more. Then a story.",
         [("lesson", "wrapped `code` and more. Then a story.")]),
        ("Lesson: first things\n\nA story told after it.", [("lesson", "first things")]),
        # a #lesson tag anywhere: what follows it, or the sentence it ends
        ("Met the team. #lesson write the agenda first", [("tag", "write the agenda first")]),
        ("Always pin the image #lesson", [("tag", "Always pin the image")]),
        # after a comma or inside parentheses; after a word or two people put before one
        ("It works now, lesson: send the token twice.", [("lesson", "send the token twice.")]),
        ("We hit the limit (lesson: batch the calls in 50s). Then lunch.",
         [("lesson", "batch the calls in 50s")]),
        ("It hung (gotcha: the pool (default 10) was full) all day.",
         [("gotcha", "the pool (default 10) was full")]),
        ("Finally fixed it. The lesson: always pin it.", [("lesson", "always pin it.")]),
        ("The fix: restart the pod.", [("fix", "restart the pod.")]),
        ("Key lesson: run migrations first.", [("lesson", "run migrations first.")]),
        ("**Key lesson:** pin it.", [("lesson", "pin it.")]),
        ("One more rule: no deploys on Friday.", [("rule", "no deploys on Friday.")]),
        ("Today's big gotcha: the VPN drops.", [("gotcha", "the VPN drops.")]),
        ("Design decision: Postgres over Mongo.", [("decision", "Postgres over Mongo.")]),
        # not at a sentence or clause start, or after words that make it prose: not a signal
        ("We took a decision: ship it.", []),
        ("Not a fix: just a workaround.", []),
        ("He said the fix: was trivial.", []),
        ("Call fix(x): it returns y.", []),
        ("Lesson:", []),
        ("Rules are rules: obey them.", []),
        ("Ruled: out.", []),
        # the forms people give a signal word: plural, "learned", numbered
        ("Lessons learned: pin the base image.", [("lesson", "pin the base image.")]),
        ("It broke twice. Lesson learned: pin it.", [("lesson", "pin it.")]),
        ("**Lessons Learned:** pin it.", [("lesson", "pin it.")]),
        ("Lesson 2: pin it.", [("lesson", "pin it.")]),
        ("Fixes: pin it.", [("fix", "pin it.")]),
        # a signal that heads a list: each item without a signal of its own is one
        ("Postmortem.\n\nLessons learned:\n- pin the base image\n- set a timeout\n  on every call",
         [("lesson", "pin the base image"), ("lesson", "set a timeout on every call")]),
        ("Lessons:\n\n1. one `cmd` thing\n2. Fix: its own\n3. Mistake: a field",
         [("lesson", "one `cmd` thing"), ("fix", "its own")]),
        ("- Lessons:\n  - nested one\n  - nested two\n- not listed",
         [("lesson", "nested one"), ("lesson", "nested two")]),
        ("Lessons:\n\nA paragraph, not a list.\n\n- nor this", []),
        ("Lesson: pin it.\n- not listed", [("lesson", "pin it.")]),
        ("Lessons:\n> - quoted output", []),
        ("Lessons:\n```\n- code\n```", []),
        # the list right below: not one after a code block, quote or HTML between them
        ("Lessons:\n\n```\nx\n```\n\n- after code", []),
        ("Lessons:\n\n> quoted\n\n- after quote", []),
        ("Lessons:\n<div>html</div>\n\n- after html", []),
        # a plural is the word and an s (or es), not any letter and an s
        ("Rulers: measure twice.", []),
        ("Decisions: ship it.", [("decision", "ship it.")]),
        # a reference beside anything else stays a lesson (one alone is none: the test below)
        ("Fix: pin urllib3 to 1.26 (#123)", [("fix", "pin urllib3 to 1.26 (#123)")]),
        ("Fixes: JIRA-1234 by retrying the upload", [("fix", "JIRA-1234 by retrying the upload")]),
        ("Lesson: utf-8", [("lesson", "utf-8")]),
        ("Lesson: use deadbeef1 as the seed", [("lesson", "use deadbeef1 as the seed")]),
        ("Lessons:\n- #12\n- pin it", [("lesson", "pin it")]),
        ("Lesson: 私は毎日", [("lesson", "私は毎日")]),
        # one word states nothing: a verdict, a number, one character
        ("Fix: 42", []),
        ("**Decision: RETAIN**", []),
        ("Lesson: 保留", []),
    ],
)  # fmt: skip
def test_signal_words_wherever_a_sentence_starts(
    body: str, expected: list[tuple[str, str]]
) -> None:
    assert signals(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        "Ran `grep Lesson: foo` and it printed nothing.",
        "Output was ``Fix: `x` done`` here.",
        "```\nLesson: this is tool output\n```",
        "~~~text\nGotcha: pasted log\n~~~",
        "Captured:\n\n    Fix: indented code, a pasted traceback\n",
        "> Lesson: quoted output of a tool",
        "> The tool said\n> Rule: never do that",
        "`#lesson` is the tag we use",
        "> quoted #lesson text",
        "```\n#lesson inside a fence\n```",
        # a URL's fragment is no tag
        "See https://wiki.example.com/onboarding#lesson-3 for the steps.",
        "The course app is at https://learn.example.com/#lesson and it loads slowly.",
        "[The wiki](https://wiki.example.com/#lesson) says so.",
        "Read <https://wiki.example.com/#lesson> first.",
    ],
)
def test_signals_in_code_and_quotes_are_ignored(body: str) -> None:
    assert signals(body) == []


@pytest.mark.parametrize(
    "body",
    [
        "Merged the branch.\n\nFixes: #123",  # a git trailer
        "Fixes: #123, #456.",
        "Fix: owner/repo#12",
        "Fixes: https://github.com/owner/repo/issues/9",
        "Fixes: <https://tracker.example.com/T-1>",
        "Fixes: JIRA-1234, GH-7",
        "Fix: 3f9c2e1ab",  # a commit
        "Lessons:\n- #12\n- #13",
        "Fixes: #123\n\n- not a list of fixes",
    ],
)
def test_a_signal_that_only_names_an_issue_or_commit_is_no_lesson(body: str) -> None:
    """`Fixes: #123` is how git trailers and changelogs name an issue: a signal word, but
    nothing to learn; a card made of it would hold only the reference."""
    assert signals(body) == []


def test_a_transcript_trailer_is_no_lesson() -> None:
    """An agent's message quoting the commit it made: the trailer is not taken as a lesson,
    the lesson beside it is."""
    from cardvault.vault.daily import signals_in

    message = "Committed the fix.\n\nFixes: #88\n\nLesson: retry the upload once on a 502."
    assert [(s.kind, s.text) for s in signals_in(message, DEFAULT_SIGNALS)] == [
        ("lesson", "retry the upload once on a 502.")
    ]


def test_prose_around_code_still_counts() -> None:
    body = "Ran `make` twice. Lesson: `make clean` first.\n\n> Fix: quoted\n\nRule: real one"
    assert signals(body) == [("lesson", "`make clean` first."), ("rule", "real one")]


def test_the_signal_words_are_configurable() -> None:
    assert signals("Ok. Takeaway: be brief.", ("Takeaway",)) == [("takeaway", "be brief.")]
    assert signals("Ok. Lesson: be brief.", ("Takeaway",)) == []


def test_structured_correction_lines_stay_fields() -> None:
    text = (
        "# 2026-03-19\n\n## 14:30 — Wrong context\nMistake: deleted in prod\n"
        "Fix: restored the backup\nPrevention: pass --context\nSeverity: high\n"
    )
    [entry] = parse_log(text, Path("memory/2026-03-19.md"), DEFAULT_SIGNALS)
    assert entry.is_correction and entry.fields["prevention"] == "pass --context"
    assert [(s.kind, s.text) for s in entry.signals] == [("fix", "restored the backup")]


def test_signal_lines_are_file_lines() -> None:
    text = "# 2026-03-19\n\n## 14:30 — E\nStory.\nMore story. Lesson: on line six\n"
    [entry] = parse_log(text, Path("memory/2026-03-19.md"), DEFAULT_SIGNALS)
    assert [(s.text, s.line) for s in entry.signals] == [("on line six", 5)]


@pytest.mark.slow
def test_the_readme_tour_is_distilled_verbatim(tmp_path: Path) -> None:
    """The tour of README.md, command for command, then `maintain`: both lessons are in cards,
    in the words they were written in."""
    root = tmp_path / "my-vault"
    env = {"CARDVAULT_NOW": "2026-03-19T14:30:00"}

    def cli(*argv: str) -> str:
        result = run_cli(["--vault", str(root), *argv], env=env)
        assert result.exit_code == 0, result.output
        return result.output

    assert run_cli(["init", str(root)]).exit_code == 0
    body = "Cortex 3.1.8 wants the CSRF token as cookie AND header on every POST."
    cli(
        "new", "Cortex CSRF Automation", "-c", "infrastructure", "-t", "cortex,csrf", "--body", body
    )
    cli("log", "Login kept failing. Lesson: send the token twice.", "--title", "Cortex CSRF")
    cli("remember", "Bearer tokens bypass Cortex CSRF entirely")
    done = json.loads(cli("maintain", "--json"))
    assert done["counts"]["distill"] == 2
    cards = [read_card(p) for p in sorted((root / "memory" / "cards").glob("*.md"))]
    bodies = "\n".join(c.body for c in cards)
    assert "Send the token twice." in bodies
    assert "Bearer tokens bypass Cortex CSRF entirely" in bodies
    assert "Cortex 3.1.8 wants the CSRF token as cookie AND header on every POST." in bodies
    cited = {s for c in cards for s in c.sources}
    log_path = root / "memory" / "2026-03-19.md"
    entries = parse_log(log_path.read_text("utf-8"), log_path, DEFAULT_SIGNALS)
    assert [(e.time, e.ordinal) for e in entries] == [("14:30", 1), ("14:30", 2)]
    assert all(e.entry_id for e in entries)  # both cited by the ids their headings carry
    assert cited == {e.ref for e in entries}


def test_a_tag_written_with_a_colon_gives_the_text_after_the_colon() -> None:
    body = "Checked #lesson: Postgres migrations never need lock_timeout on replicas."
    assert signals(body) == [("tag", "Postgres migrations never need lock_timeout on replicas.")]


@pytest.mark.parametrize(
    ("said", "line"),
    [
        ("send the token twice.", "Send the token twice."),
        ("lock_timeout is 5 min on RDS.", "lock_timeout is 5 min on RDS."),
        ("iOS builds need Xcode 15.", "iOS builds need Xcode 15."),
        ("`npm ci` before the build.", "`npm ci` before the build."),
        ("eBPF probes need root.", "eBPF probes need root."),
    ],
)
def test_a_lesson_starting_with_an_identifier_keeps_its_case(said: str, line: str) -> None:
    """A lesson's first word is capitalised only when it is a plain lower-case word: an
    identifier or a name (lock_timeout, iOS, eBPF) is a fact and stays as written."""
    from cardvault.maintain.lessons import lesson_lines

    text = f"# 2026-03-19\n\n## 14:30 — An entry\nIt broke. Lesson: {said}\n"
    [entry] = parse_log(text, Path("memory/2026-03-19.md"), DEFAULT_SIGNALS)
    assert lesson_lines(entry) == (line,)
