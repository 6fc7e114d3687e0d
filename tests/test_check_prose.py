"""`cardvault check` reads Markdown as Markdown (issue 22): wiki-links only outside code, entry
times that are times of day; `prose.py`'s code spans agree with markdown-it-py's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardvault.vault.links import wiki_links
from cardvault.vault.prose import code_spans
from tests.support.cli import run_cli

HEAD = "---\ntopic: T\ncategory: tools\ntags: [a]\ncreated: 2026-01-01\nupdated: 2026-01-01\n---\n"
CODE_BODIES = {
    "bash-fence": 'Guard the ref:\n\n```bash\nif [[ -z "$REF" ]]; then exit 1; fi\n```\n',
    "toml-fence": "Fly config:\n\n```toml\n[[services]]\n  internal_port = 8080\n```\n",
    "tilde-fence": "~~~\n[[services.ports]]\n~~~\n",
    "indented": 'The test:\n\n    [[ -n "${CRON}" ]] && migrate\n',
    "inline": 'Use `[[ -z "$x" ]]` in bash, not `[ -z $x ]`.\n',
    "inline-double": "Write ``a `[[b]]` c`` like that.\n",
    "rails-log": 'Log:\n\n```\nUser Load  SELECT * LIMIT $1  [["LIMIT", 1]]\n```\n',
}


def check(root: Path) -> tuple[int, list[dict[str, object]]]:
    result = run_cli(["--vault", str(root), "check", "--json"])
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("name", sorted(CODE_BODIES))
def test_brackets_in_code_are_not_links(vault_path: Path, name: str) -> None:
    (vault_path / "memory" / "cards" / f"{name}.md").write_text(HEAD + CODE_BODIES[name])
    code, found = check(vault_path)
    assert [f for f in found if f["code"] == "broken-link"] == []
    assert code == 0


def test_links_in_prose_quotes_lists_and_frontmatter_still_count(vault_path: Path) -> None:
    body = (
        "See [[gone-one]] and `[[not-a-link]]`.\n\n> quoted [[gone-two]]\n\n- item [[gone-three]]\n"
        "\n```\n[[inside-code]]\n```\nAfter the fence [[gone-four]].\n"
    )
    head = HEAD.replace("tags: [a]\n", "tags: [a]\nrule: see [[gone-rule]]\n")
    (vault_path / "memory" / "cards" / "links.md").write_text(head + body)
    _, found = check(vault_path)
    broken = sorted((f["line"], f["message"]) for f in found if f["code"] == "broken-link")
    assert broken == [
        (5, "[[gone-rule]] links to no card"),
        (9, "[[gone-one]] links to no card"),
        (11, "[[gone-two]] links to no card"),
        (13, "[[gone-three]] links to no card"),
        (18, "[[gone-four]] links to no card"),
    ]


def test_an_entry_time_that_is_no_time_of_day_is_an_error(vault_path: Path) -> None:
    (vault_path / "memory" / "2026-01-02.md").write_text(
        "# 2026-01-02\n\n## 09:15 — Fine\nok\n\n## 23:99 — Typo\nLesson: x\n\n## 24:00 — Also\ny\n"
    )
    code, found = check(vault_path)
    times = [(f["line"], f["message"]) for f in found if f["code"] == "entry-time"]
    assert times == [
        (6, "entry time 23:99 is not a time of day (00:00 to 23:59)"),
        (9, "entry time 24:00 is not a time of day (00:00 to 23:59)"),
    ]
    assert code == 1
    text = run_cli(["--vault", str(vault_path), "check"]).stdout
    assert "memory/2026-01-02.md:6: error: entry time 23:99" in text


def test_a_heading_that_looks_like_an_entry_but_is_none_is_named(vault_path: Path) -> None:
    """`##10:00` (no space) is no entry heading: its lines, lessons too, belong to the entry
    above. check names each such line; one in code, a deeper heading (a part of an entry), or
    `## 10:00 Standup` (an entry: the dash is optional) is not named."""
    (vault_path / "memory" / "2026-01-02.md").write_text(
        "# 2026-01-02\n\n## 09:15 — Fine\nok\n\n## 10:00 Standup\nLesson: x\n\n"
        "##10:30 — Squashed\ny\n\n```\n## 11:00 quoted output\n```\n\n### 12:00 — Deeper\nz\n"
        "\n## 13:00 — Good\nw\n"
    )
    code, found = check(vault_path)
    named = [(f["line"], f["severity"]) for f in found if f["code"] == "entry-heading"]
    assert named == [(9, "warning")]
    messages = [f["message"] for f in found if f["code"] == "entry-heading"]
    assert "'##10:30 — Squashed' is not an entry heading" in messages[0]
    assert "## HH:MM — Title" in messages[0] and "10:00" in messages[0]
    assert code == 0


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("# 2026-01-03\n\nLesson: pin the node version.\n\n## 09:00 — Real\nx\n", 3),
        ("Notes of the day, Lesson: no title either.\n", 1),
        ("# 2026-01-03\n\n<!-- a comment -->\n## 09:00 — Real\nx\n", 3),
        ("# 2026-01-03\n\n## 09:00 — Real\nx\n", None),
        ("# 2026-01-03\n\n\n", None),
    ],
)
def test_text_before_the_first_entry_is_named(
    vault_path: Path, text: str, line: int | None
) -> None:
    """Lines between the day's title and its first entry belong to no entry: maintenance never
    distills a lesson written there, so check says where they start."""
    (vault_path / "memory" / "2026-01-03.md").write_text(text)
    code, found = check(vault_path)
    named = [f for f in found if f["code"] == "outside-entry"]
    assert [f["line"] for f in named] == ([] if line is None else [line])
    assert all(f["severity"] == "warning" and "no entry" in str(f["message"]) for f in named)
    assert code == 0


@given(st.text(alphabet="ab `\\\n", max_size=40))
@settings(max_examples=300, deadline=None)
def test_code_spans_agree_with_markdown_it(text: str) -> None:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parseInline(text.replace("\n", " "))
    theirs = [t.content for t in tokens[0].children or [] if t.type == "code_inline"]
    flat = text.replace("\n", " ")
    mine = [flat[a:b].strip("`") for a, b in code_spans(flat)]
    assert len(mine) == len(theirs)


def test_wiki_links_keep_their_lines_around_code() -> None:
    text = HEAD + "one [[a]]\n```\n[[b]]\n```\n`[[c]]` two [[d]]\n"
    assert [(link.target, link.line) for link in wiki_links(text)] == [("a", 8), ("d", 12)]
