"""The signal grammar as data: every form in which a log (or any Markdown text) says "this is a
lesson", and the words of an entry heading's time. vault/daily.py holds the one matcher that
reads these tables; vault/log_headings.py reads the heading words.

The forms, each matched only in prose: a signal word (`distill.signal_words` or a WORD_ALIASES
entry) and a colon where a sentence or clause starts, after at most two LEAD_WORDS; a `#lesson`
tag; a card link; a lesson label (`is_lesson_label`) as a heading, whose section's paragraphs
and items are lessons, or as a paragraph of its own ending in a colon or set in bold, whose
list right below is. A new form of an existing kind is one more entry here, with a fixture test."""

from __future__ import annotations

import re

# Where a signal may start: a line's first word, after a sentence, or where a clause starts.
#: The end of a sentence: `.`, `!` or `?`, closing quotes or brackets, then white space; or a
#: full-width `。`, `！`, `？` or `；` (Chinese and Japanese put no space after one).
AFTER_SENTENCE = re.compile(r"(?<=[.!?])[\"')\]*_]*[ \t\n]+|(?<=[。！？；])[ \t]*")
#: Where a clause starts inside a sentence: after a dash (`—`, `–`, or `-`/`--` between spaces),
#: a semicolon, a comma or an opening parenthesis. The spaces before a dash are not part of the
#: match: a run of tabs would be matched from each of its positions again, squared.
AFTER_CLAUSE = re.compile(r"[—–][ \t]*|[ \t]--?[ \t]+|[;,][ \t]+|\([ \t]*")
#: A line that ends a sentence: what a hard-wrapped signal's text runs on to ends there.
SENTENCE_END = re.compile(r"[.!?][\"')\]*_`]*[ \t\r]*$")

# The line-lead form: a signal word and its colon, after at most two lead words.
#: A signal word (or field name) and its colon, in bold or italics too (`**Lesson**:`), also in
#: the forms people give it: `Lesson learned:`, `Lesson 2:` (`form`; a field line has none).
SIGNAL_WORD = re.compile(
    r"(?:\*{1,2}|_{1,2})?(?P<word>[^\W\d_](?:[^\W\d_]|-)*)"
    r"(?P<form>[ \t]+[Ll]earned|[ \t]+#?\d{1,3})?(?:\*{1,2}|_{1,2})?[ \t]*[:：](?:\*{1,2}|_{1,2})?"
)
#: A word before a signal word (one of LEAD_WORDS to count).
LEAD_WORD = re.compile(r"(?:\*{1,2}|_{1,2})?(?P<lead>[A-Za-z][A-Za-z']{0,11})[ \t]+")
#: Words people put before a signal word at a clause's start, "The fix:", "Key lesson:", "One
#: more rule:", "Design decision:", "Today's big gotcha:" (at most two; a closed list, so "Rules
#: are rules:" or "We took a decision:" stays prose).
LEAD_WORDS = frozenset((
    "a", "an", "the", "one", "my", "our", "your", "their", "this", "that", "today's", "todays",
    "another", "more", "key", "main", "big", "biggest", "real", "important", "hard", "quick",
    "simple", "general", "golden", "new", "final", "last", "first", "second", "third", "actual",
    "core", "crucial", "obvious", "same", "other", "small", "minor", "major", "critical",
    "temporary", "permanent", "proper", "correct", "right", "true", "useful", "team", "design",
    "style", "personal", "hot", "bug", "best", "top", "only",
))  # fmt: skip

#: Words of other languages that mean a signal word: active wherever that word is configured
#: (`- 教训: 字符串参数不会设 dbPath` is a lesson of a vault whose signal words hold Lesson).
WORD_ALIASES = {
    "教训": "lesson", "经验教训": "lesson", "教訓": "lesson", "교훈": "lesson",
    "规则": "rule", "决定": "decision", "决策": "decision", "修复": "fix", "偏好": "preference",
}  # fmt: skip
#: What a signal's text may hold and still say nothing: references to an issue, a ticket, a
#: commit or a page (`Fixes: #123`, a git trailer; `Fix: abc1234`; `Fixes: JIRA-12, GH-4`).
REFERENCE = re.compile(
    r"(?i:<?[a-z][a-z0-9+.-]*://\S+)|(?:[\w.-]+/[\w.-]+)?#\d+|\b[A-Z][A-Z0-9]*-\d+\b"
    r"|(?i:\b(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b)"
)


# The tag and the card link.
#: `#lesson` as a word of its own: not the end of a word or a URL (`https://app.example/#lesson`);
#: a colon written after it (`#lesson: pin it`) is the tag's, not the lesson's.
LESSON_TAG = re.compile(r"(?<![\w#/])#lesson\b(?::(?=\s|$))?", re.IGNORECASE)
CARD_LINK = re.compile(r"(?:→|->)\s*card:\s*(?P<slug>[A-Za-z0-9][\w\-/]*)")


# Lesson labels: a heading, or a paragraph of its own, that says the lessons follow.
#: The last word of an English lesson label ("Lessons", "Key Strategic Insights", "Meta-Insight").
LABEL_HEADS = frozenset((
    "lesson", "lessons", "learning", "learnings", "insight", "insights", "finding", "findings",
    "takeaway", "takeaways", "gotchas",
))  # fmt: skip
#: How an English label may end instead: "Lessons Learned", "What I Learned", "Preferences
#: Learned", "Patterns That Worked".
LABEL_ENDINGS = (("learned",), ("learnt",), ("that", "worked"))
#: At most this many words in an English label: "Key Strategic Insights" is one, "Key Insight:
#: R_V Measures Subsystem Activation" is a heading that states something.
LABEL_WORDS = 4
#: A label in Chinese, Japanese or Korean: a short run of words ending in a word for lesson,
#: experience, reflection, insight or finding, maybe with "summary" after it (`经验总结`, `교훈`).
CJK_LABEL = re.compile(
    r"[^\W\d_]{0,6}(?:经验|教训|反思|心得|洞察|发现|感悟|教訓|学び|反省|교훈|배운\s?점|회고)"
    r"(?:总结|總結|まとめ|정리)?"
)

# Words of an entry heading's time (vault/log_headings.py).
#: Words for a part of the day written before a time (`凌晨 1:00`, `（凌晨2:00）`, `오후 3:00`):
#: those of the afternoon and evening move a 12-hour time past noon.
MORNING_WORDS = ("凌晨", "早上", "上午", "清晨", "午前", "오전")
EVENING_WORDS = ("下午", "晚上", "傍晚", "午後", "夜", "오후", "저녁")

_LABEL_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


def is_lesson_label(text: str) -> bool:
    """Whether `text` (a heading, or a paragraph's words without its bold and colon) is only a
    lesson label: `Lessons`, `⚠️ Lesson Learned`, `Key Strategic Insights`, `📝 经验总结`."""
    words = _LABEL_WORD.findall(text.lower())
    if not words or len(words) > LABEL_WORDS:
        return False
    if words[-1] in LABEL_HEADS or any(tuple(words[-len(e) :]) == e for e in LABEL_ENDINGS):
        return len(words) > 1 or words[0] not in ("learned", "learnt")
    return CJK_LABEL.fullmatch("".join(words)) is not None
