"""Real agent logs as agents write them (issue 40): excerpts cut from real OpenClaw workspaces and a
Claude Code session log (tests/fixtures/real-logs/<set>/, each MIT set beside its LICENSE) parse
into the entries their headings name, with their times, and the lessons their lesson sections,
labels and lead words hold. `written/` holds the forms the issue quotes that the real sets lack."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path

import pytest

from cardvault.sync.merge_log import merge_log
from cardvault.vault.config import DEFAULT_SIGNALS
from cardvault.vault.daily import appended_log_text, format_entry, parse_log, signals_in
from tests.support.cli import run_cli
from tests.support.maintain import git, snapshot

FIXTURES = Path(__file__).parent / "fixtures" / "real-logs"
_DATED = re.compile(r"\d{4}-\d{2}-\d{2}")

#: fixture -> its entries' (time, title), in file order ("" : an untimed section)
ENTRIES = {
    "openclaw-catalyst-zh/2026-03-23.md": [
        ("03:00", "Morning Testing Session"), ("22:39", "Heartbeat Check"),
        ("14:39", "Heartbeat Check"), ("14:09", "Heartbeat Check"),
        ("07:09", "Heartbeat: Community Check"),
    ],
    "openclaw-catalyst-zh/2026-04-07.md": [
        ("01:00", "开发任务3 探索"), ("09:20", "Karpathy Wiki 方法论讨论 + 知识库搭建"),
        ("19:00", "GitHub 创意晚间：Tiny Agent Workshop"),
    ],
    "openclaw-catalyst-zh/2026-04-11.md": [("02:00", "知识整理工作")],
    "openclaw-catalyst-zh/2026-04-12.md": [("21:00", "代码实验室晚间实验")],
    "openclaw-catalyst-zh/2026-04-23.md": [("19:00", "Autoresearch Evening")],
    "openclaw-catalyst-zh/2026-03-28.md": [("", "反思"), ("", "下一步")],
    "openclaw-catalyst-zh/2026-05-09.md": [("19:00", "Autoresearch Evening Session")],
    "openclaw-catalyst-zh/2026-05-19.md": [
        ("20:00", "深度技术研究 — A2A Trust Protocol ES256 补充"),
    ],
    "openclaw-dharmic-claw-en/2026-02-12.md": [
        ("14:49", "SESSION_START"), ("", "Critical Achievement: Subagent Pipeline Verified"),
        ("", "Blockers"), ("", "Actions Taken"), ("", "Next Actions"),
    ],
    "openclaw-dharmic-claw-en/2026-02-13.md": [("10:20", "MAJOR BREAKTHROUGH: EBADF RESOLVED")],
    "claude-memory-koenvue-ko/2026-05-22.md": [
        ("08:24", "turn"), ("08:28", "turn"), ("09:58", "session-end (clear)"),
        ("15:07", "세션 정리 — 하네스 정합성 보강 사이클"),
    ],
    "written/2026-02-20.md": [
        ("03:00", "Nightly backup check"), ("11:00", "Proactive Work Session"),
        ("22:30", "Compound Review"), ("", "Open questions"),
    ],
}  # fmt: skip

#: fixture -> the (kind, text) of every signal of its entries, in file order
LESSONS = {
    # ### Lessons: each numbered item
    "openclaw-catalyst-zh/2026-04-16-key-development-2.md": [
        ("lesson", "**Changelog is simple** — No need for full event-sourcing complexity for "
                   "this use case"),
        ("lesson", "**Batch ops integration** — `batchAdd` already used `add()`, so changelog "
                   "was automatic"),
        ("lesson", "**Snapshot in changes()** — Returning current state makes API more useful"),
    ],
    # ### ⚠️ Lesson Learned: its paragraph
    "openclaw-catalyst-zh/2026-04-18-key-development-3.md": [
        ("lesson", "Previous key-dev sessions lost work because they updated experiments.tsv but "
                   "didn't `git commit` the actual code. **Always commit after each successful "
                   "experiment.**"),
    ],
    # `- 教训: ...` lines: a signal word in Chinese
    "openclaw-catalyst-zh/2026-04-23.md": [
        ("lesson", "`new MemoryService(tmp)` vs `new MemoryService({ dbPath: tmp })` — "
                   "字符串参数不会设 dbPath"),
        ("lesson", "minCoOccurrence=2 时低频共现不建关系；totalTags 是唯一标签数不是输入标签数"),
    ],
    # ## 💡 经验总结 / ### 开发经验: each item with its sub-items
    "openclaw-catalyst-zh/2026-03-19-knowledge-organization-summary.md": [
        ("lesson", "**测试驱动开发** ✅ 先写测试，再写代码 ✅ 测试覆盖所有核心功能 "
                   "✅ 100% 通过率是目标"),
        ("lesson", "**模块化设计** ✅ 关注点分离 ✅ 每个模块职责清晰 ✅ 易于测试和扩展"),
        ("lesson", "**渐进式开发** ✅ 从简单到复杂 ✅ 每次完成一个小目标 ✅ 持续迭代优化"),
    ],
    # ## 📝 经验总结: paragraphs and items under numbered sub-headings
    "openclaw-catalyst-zh/2026-03-24-documentation-improvement.md": [
        ("lesson", "清晰的目录和导航可以大大提升用户体验。"),
        ("lesson", "提供可运行的代码示例比长篇解释更有效。"),
        ("lesson", "快速开始(5 分钟)"), ("lesson", "基础教程(30 分钟)"),
        ("lesson", "深入指南(数小时)"), ("lesson", "API 参考(查询)"),
        ("lesson", "文档需要随着代码一起演进,定期审查很重要。"),
        ("lesson", "用户的问题和困惑是改进文档的最佳指导。"),
    ],
    # ## 反思: its paragraph; ## 下一步 (next steps) is none
    "openclaw-catalyst-zh/2026-03-28.md": [
        ("lesson", "这个评价表明工作方式正在向更自主、更 proactive 的方向演进。关键是形成了"
                   "\"提出问题→探索→实现→总结\"的完整闭环。"),
    ],
    # `- **关键发现**:` (key findings) heads the list below it
    "openclaw-catalyst-zh/2026-05-19.md": [
        ("lesson", "A2A 认证是声明式（Agent Card 声明 securitySchemes），中间件需插件式"),
        ("lesson", "Trust Score 衰减函数：增长慢(+5)惩罚快(-20)，半衰期1h"),
        ("lesson", "Auth0 × Google Cloud 合作定义 A2A auth spec（2025-05-20发布）"),
        ("lesson", "@a2a-js/sdk 已发布到 npm"),
    ],
    # ### Key Strategic Insights
    "openclaw-dharmic-claw-en/2026-02-03.md": [
        ("lesson", "R_V metric is the wedge into $16B AI interpretability market"),
        ("lesson", "Phoenix Protocol + R_V = first app that can PROVE consciousness state "
                   "transitions"),
        ("lesson", "Hardware-agnostic tooling (Triton) captures research community as GPU "
                   "dominance fragments"),
        ("lesson", "The swarm designed itself — research agents returned the architecture"),
    ],
    # ## 💡 KEY INSIGHT: the quote is output, not a lesson; a `Rule:` item keeps its kind
    "openclaw-dharmic-claw-en/2026-02-15_AUDIT_FINDINGS.md": [
        ("lesson", "**Missing Gate:** Document existence approval"),
        ("lesson", "Before: NAME_REGISTRY prevents naming drift"),
        ("lesson", "After: Need \"Document Lifecycle Gate\" — creation requires justification"),
        ("rule", "\"No new doc without deprecating an old one\""),
    ],
    # ### Patterns That Worked, **Key findings:**, **What I Learned:**, ### Preferences Learned
    "written/2026-02-20.md": [
        ("lesson", "Checking the restore, not just the backup job's exit code"),
        ("lesson", "Small batches of 50 files"),
        ("lesson", "The staging bucket has no lifecycle rule"),
        ("lesson", "Old snapshots cost more than the live data"),
        ("lesson", "Review the diff before the summary"),
        ("lesson", "A failing test names the change that broke it"),
        ("lesson", "The user wants one summary a day, not one per task"),
    ],
    # headings only: heartbeat checks, hook-written turns, status sections hold no lesson
    "openclaw-catalyst-zh/2026-03-23.md": [],
    "claude-memory-koenvue-ko/2026-05-22.md": [],
}  # fmt: skip


def entries_of(name: str):  # type: ignore[no-untyped-def]
    """The entries of a fixture, read as the log of the day its name starts with."""
    day = _DATED.match(name.rpartition("/")[2])
    assert day is not None, name
    text = (FIXTURES / name).read_text("utf-8")
    return parse_log(text, Path("memory") / f"{day.group()}.md", DEFAULT_SIGNALS)


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_headings_parse_into_entries_with_their_times(name: str) -> None:
    assert [(e.time, e.title) for e in entries_of(name)] == ENTRIES[name]


@pytest.mark.parametrize("name", sorted(LESSONS))
def test_lesson_sections_labels_and_lead_words_give_lessons(name: str) -> None:
    found = [(s.kind, s.text) for e in entries_of(name) for s in e.signals]
    assert found == LESSONS[name]


@pytest.mark.parametrize("name", sorted(LESSONS))
def test_the_id_marks_cardvault_gives_entries_change_no_lesson(name: str) -> None:
    """Every `##` heading marked as `log` and the ids step mark them (`<!-- id:… -->`): the
    same entries with the same lessons, a heading that names a lesson section included."""
    text = (FIXTURES / name).read_text("utf-8")
    marked = re.sub(r"(?m)^(## .*?)\s*$", r"\1 <!-- id:abc123 -->", text)
    day = _DATED.match(name.rpartition("/")[2])
    assert day is not None and marked != text
    again = parse_log(marked, Path("memory") / f"{day.group()}.md", DEFAULT_SIGNALS)
    assert [(e.title, [(s.kind, s.text) for s in e.signals]) for e in again] == [
        (e.title, [(s.kind, s.text) for s in e.signals]) for e in entries_of(name)
    ]


def test_a_logged_entry_titled_as_a_lesson_section_is_distilled(tmp_path: Path) -> None:
    """`log "- Drain the queue before deploys." --title Lessons` writes its heading with an id
    mark; `maintain --dry-run` still reads the entry's items as lessons."""
    root = tmp_path / "vault"
    assert run_cli(["init", str(root)]).exit_code == 0
    logged = run_cli(["--vault", str(root), "log", "- Drain the queue before deploys.", "--title",
                      "Lessons"])  # fmt: skip
    assert logged.exit_code == 0, logged.output
    result = run_cli(["--vault", str(root), "maintain", "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["counts"]["distill"] == 1


def test_an_inline_bold_lesson_in_chinese() -> None:
    """`**教训: ...**` inside a line of MEMORY.md: the lesson, without the closing bold."""
    text = (FIXTURES / "openclaw-catalyst-zh" / "MEMORY.md").read_text("utf-8")
    assert [(s.kind, s.text) for s in signals_in(text, DEFAULT_SIGNALS)] == [
        ("lesson", "每次实验完成后必须确认代码已持久化到 lab/ 目录并 git commit。")
    ]


def test_untimed_entries_are_cited_by_their_place_among_the_untimed() -> None:
    entries = entries_of("openclaw-dharmic-claw-en/2026-02-12.md")
    assert [e.position_ref.rpartition("#")[2] for e in entries] == [
        "14:49", "untimed", "untimed-2", "untimed-3", "untimed-4"
    ]  # fmt: skip
    assert len({e.ref for e in entries}) == len(entries)


def test_every_set_keeps_its_licence_beside_its_excerpts() -> None:
    for folder in FIXTURES.iterdir():
        if folder.name != "written":
            assert (folder / "LICENSE").read_text("utf-8").startswith("MIT"), folder


@pytest.mark.slow
def test_maintain_dry_run_would_distill_the_lessons_of_a_real_log(tmp_path: Path) -> None:
    """`cardvault init`, one real log copied in as memory/DATE.md, `maintain --dry-run`: the
    plan distills its `### Lessons` items into a card, and writes nothing."""
    root = tmp_path / "vault"
    assert run_cli(["init", str(root)]).exit_code == 0
    name = "openclaw-catalyst-zh/2026-04-16-key-development-2.md"
    log = root / "memory" / "2026-04-16.md"
    shutil.copyfile(FIXTURES / name, log)
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "log")
    before = snapshot(root)
    result = run_cli(["--vault", str(root), "maintain", "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["dry_run"] is True and plan["counts"]["distill"] == 1
    added = "\n".join(line for line in plan["diff"].splitlines() if line.startswith("+"))
    for _, lesson in LESSONS[name]:
        assert lesson.replace("**", "").split(" — ")[1] in added.replace("**", "")
    assert snapshot(root) == before


def test_text_written_into_an_entry_cannot_start_an_untimed_one() -> None:
    """Every `##` line is an entry heading now, so an entry's own text that holds one (`log`
    with a pasted `## Notes`) has it escaped: the log gains one entry, its lesson inside it."""
    entry = format_entry("10:00", "Pasted notes", "Story.\n## Notes\nLesson: pin the image.")
    text = appended_log_text(None, dt.date(2026, 2, 20), entry)
    [parsed] = parse_log(text, Path("memory/2026-02-20.md"), DEFAULT_SIGNALS)
    assert parsed.title == "Pasted notes" and "\\## Notes" in parsed.body
    assert [(s.kind, s.text) for s in parsed.signals] == [("lesson", "pin the image.")]


def test_an_untimed_entry_is_merged_after_the_entry_it_followed() -> None:
    """A clone's untimed section goes with the timed entry above it, not to the top of the
    log (the merge places the other side's entries by time)."""
    head = "# 2026-02-20\n\n## 09:00 — Start <!-- id:aaaaaa -->\nx\n"
    ours = head + "\n## 10:00 — Ours <!-- id:bbbbbb -->\ny\n"
    theirs = head + "\n## 09:30 — Theirs <!-- id:cccccc -->\nz\n\n## Summary\nw\n"
    merged = merge_log(head, ours, theirs, Path("memory/2026-02-20.md")).text
    titles = [e.title for e in parse_log(merged, Path("memory/2026-02-20.md"), ())]
    assert titles == ["Start", "Theirs", "Summary", "Ours"]


def test_lesson_sections_give_lessons_only_where_lessons_are_signals() -> None:
    """A vault whose signal words leave out Lesson takes no lesson from a lesson section."""
    text = (FIXTURES / "written" / "2026-02-20.md").read_text("utf-8")
    entries = parse_log(text, Path("memory/2026-02-20.md"), ("Fix",))
    assert [s for e in entries for s in e.signals] == []
