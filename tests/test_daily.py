"""Daily logs: entries, signals, links and corrections parsed with their lines; appends only add."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from cardvault.vault.config import DEFAULT_SIGNALS
from cardvault.vault.daily import appended_log_text, format_entry, in_line_ends, parse_log

LOG = """# 2026-03-19

## 14:30 — Cortex CSRF
Spent an hour on the login flow.
Lesson: Cortex wants the CSRF token as cookie AND header on every POST.
- gotcha: the bypass header does nothing
Remember the bearer shortcut #lesson
→ card: cortex-csrf-automation

```
## 15:00 — inside a code fence, not an entry
```

## 14:30 — Same minute
Domain: tooling
Mistake: ran migrations against prod
Fix: use the staging DSN
Prevention: check $ENV first
Severity: high

## 16:05 — Plain notes
Nothing to distill here.
"""


def test_entries_signals_links_and_lines() -> None:
    entries = parse_log(LOG, Path("memory/2026-03-19.md"), DEFAULT_SIGNALS)
    assert [(e.time, e.title, e.line) for e in entries] == [
        ("14:30", "Cortex CSRF", 3),
        ("14:30", "Same minute", 14),
        ("16:05", "Plain notes", 21),
    ]
    first, second, third = entries
    assert [(s.kind, s.line) for s in first.signals] == [("lesson", 5), ("gotcha", 6), ("tag", 7)]
    assert first.signals[2].text == "Remember the bearer shortcut"
    assert first.card_links == ("cortex-csrf-automation",)
    assert "inside a code fence" in first.body
    assert second.is_correction and second.fields["severity"] == "high"
    assert (first.ref, second.ref) == ("memory/2026-03-19.md#14:30", "memory/2026-03-19.md#14:30-2")
    assert not third.has_signal
    assert first.day == dt.date(2026, 3, 19)


@given(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200),
    st.text(alphabet="abc xyz", min_size=1, max_size=40),
)
@example("0\r\n", "a")  # a log with CRLF line ends (CI drew it once)
@settings(max_examples=150, deadline=None)
def test_appending_keeps_existing_bytes_as_a_prefix(current: str, title: str) -> None:
    entry = format_entry("09:15", title.strip() or "t", "body")
    new = appended_log_text(current, dt.date(2026, 3, 19), entry)
    assert new.startswith(current)
    # the entry ends its lines as the log does: a CRLF log stays CRLF, not a mix
    assert new.endswith(in_line_ends(entry, current))


def test_first_entry_of_the_day_gets_the_date_heading() -> None:
    entry = format_entry("09:15", "Start", "Lesson: use x")
    text = appended_log_text(None, dt.date(2026, 3, 19), entry)
    assert text == "# 2026-03-19\n\n## 09:15 — Start\nLesson: use x\n"
    entries = parse_log(text, Path("memory/2026-03-19.md"), DEFAULT_SIGNALS)
    assert entries[0].signals[0].text == "use x"


def test_lines_inside_code_blocks_are_not_signals() -> None:
    text = (
        "# 2026-03-19\n\n## 10:00 — Captured failure\nCommand failed.\n```\n"
        "Fix: this is tool output, not a lesson\n→ card: not-a-link\n```\n"
        "Lesson: this one counts\n"
    )
    [entry] = parse_log(text, Path("memory/2026-03-19.md"), DEFAULT_SIGNALS)
    assert [(s.kind, s.text, s.line) for s in entry.signals] == [("lesson", "this one counts", 9)]
    assert entry.card_links == ()
    assert "Fix: this is tool output" in entry.body
