"""Memory history in words (`cardvault history`, `cardvault diff`): what each commit did to the
memory, read from git (history/changes).

Each commit's file changes become events (a card created, merged, archived or forgotten, facts
added or removed, a rule promoted or demoted, log entries, MEMORY.md rewritten). Texts from git
are parsed as data; a file that is not a valid card is described by its path only. Commits are
described one at a time, as the caller takes them: nothing holds the whole history.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from cardvault.history import (
    CommitChanges,
    FileChange,
    memory_commits,
    one_commit,
)
from cardvault.limits import COMMIT_FILES, COMMIT_READ
from cardvault.vault.card import Card, parse_card
from cardvault.vault.fields import MERGED_FROM, STATUS, TOPIC
from cardvault.vault.layout import Vault

_CARD = re.compile(r"^memory/(cards|archive)/([^/]+)\.md$")
_LOG = re.compile(r"^memory/(\d{4}-\d{2}-\d{2})\.md$")
_ENTRY = re.compile(r"^## ")


@dataclass(frozen=True)
class MemoryEvent:
    """One thing a commit did to the memory: `kind` (created, merged, facts-added,
    facts-removed, promoted, demoted, archived, restored, forgotten, removed, edited, logged,
    log-forgotten, index, unread), the card's slug (or the log's day; "" for the files left
    unread), what the words say, and the other cards it names (a merge's sources)."""

    kind: str
    subject: str
    text: str
    others: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": self.kind, "card": self.subject, "text": self.text, "from": self.others}


@dataclass(frozen=True)
class MemoryCommit:
    """A commit and what it did to the memory."""

    sha: str
    date: dt.datetime
    author: str
    message: str
    events: tuple[MemoryEvent, ...]
    body: str = ""

    def names(self, slug: str) -> bool:
        """Whether any event is about `slug` (or merged it away)."""
        return any(e.subject == slug or slug in e.others for e in self.events)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "commit": self.sha, "date": self.date.isoformat(), "author": self.author,
            "message": self.message, "body": self.body,
            "changes": [e.to_dict() for e in self.events],
        }  # fmt: skip


def memory_history(
    vault: Vault, slug: str | None = None, since: dt.date | None = None, limit: int | None = None
) -> Iterator[MemoryCommit]:
    """The commits that changed the memory, newest first, in words, each read when the caller
    takes it (only those naming `slug` when given; only those on or after `since`; at most
    `limit` of them). GitError for a history git cannot read."""
    found = (described(c) for c in memory_commits(vault.root, since=since))
    shown = (c for c in found if c.events and (slug is None or c.names(slug)))
    return islice(shown, limit)


def memory_diff(vault: Vault, rev: str = "HEAD") -> MemoryCommit | None:
    """What commit `rev` did to the memory (None when the vault has no commit)."""
    commit = one_commit(vault.root, rev)
    return None if commit is None else described(commit)


def described(commit: CommitChanges) -> MemoryCommit:
    """A commit's file changes as memory events."""
    events: list[MemoryEvent] = []
    merged_away: set[str] = set()
    for change in commit.files:
        for event in _card_events(change, commit.subject):
            merged_away.update(event.others)
            events.append(event)
    events = [
        e for e in events if not (e.kind in ("removed", "forgotten") and e.subject in merged_away)
    ]
    for change in commit.files:
        events.extend(_other_events(change, commit.subject))
    if commit.unread:
        events.append(_unread(commit.unread))
    return MemoryCommit(
        commit.sha, commit.date, commit.author, commit.subject, tuple(events), commit.body
    )


def _unread(count: int) -> MemoryEvent:
    files = "file" if count == 1 else "files"
    bounds = f"{COMMIT_READ >> 20} MB, {COMMIT_FILES} files"
    return MemoryEvent(
        "unread", "", f"{count} more {files} changed, not read (a commit is read up to {bounds})"
    )


def _parse(text: str, rel: str) -> Card | None:
    """The card `text` holds, or None when it is not a card."""
    if not text:
        return None
    try:
        return parse_card(text, Path(rel))
    except Exception:  # whatever git holds is data: a broken card is described by path only
        return None


def _card_events(change: FileChange, subject: str) -> list[MemoryEvent]:
    old_rel, new_rel = change.old_path or "", change.new_path or ""
    old_match, new_match = _CARD.match(old_rel), _CARD.match(new_rel)
    if not old_match and not new_match:
        return []
    slug = (new_match or old_match).group(2)  # type: ignore[union-attr]
    before, after = _parse(change.old_text, old_rel), _parse(change.new_text, new_rel)
    if new_match is None or change.status == "D":
        kind = "forgotten" if subject.startswith("forget") else "removed"
        return [MemoryEvent(kind, slug, f"{kind} card {slug}")]
    events: list[MemoryEvent] = []
    merged = _merged(before, after)
    if old_match is None or change.status == "A":
        title = str((after.meta if after is not None else {}).get(TOPIC, slug))
        events.append(MemoryEvent("created", slug, f"created card {slug} ({title})"))
    if merged:
        events.append(
            MemoryEvent("merged", slug, f"merged {', '.join(merged)} into {slug}", tuple(merged))
        )
    if old_match and new_match and old_match.group(1) != new_match.group(1):
        kind = "archived" if new_match.group(1) == "archive" else "restored"
        events.append(MemoryEvent(kind, slug, f"{kind} card {slug}"))
    if before is not None and after is not None:
        events.extend(_status_events(slug, before, after, new_match.group(1)))
        events.extend(_fact_events(slug, before, after))
        if not events and change.old_text != change.new_text:
            events.append(MemoryEvent("edited", slug, f"edited card {slug}"))
    return events


def _merged(before: Card | None, after: Card | None) -> list[str]:
    if after is None:
        return []
    old = set(before.items(MERGED_FROM)) if before is not None else set()
    return [s for s in after.items(MERGED_FROM) if s not in old]


def _status_events(slug: str, before: Card, after: Card, folder: str) -> list[MemoryEvent]:
    old, new = str(before.meta.get(STATUS, "active")), str(after.meta.get(STATUS, "active"))
    if old == new or (new == "archived" and folder == "archive"):
        return []
    if new == "promoted":
        return [MemoryEvent("promoted", slug, f"promoted {slug} to a rule")]
    if old == "promoted":
        return [MemoryEvent("demoted", slug, f"demoted {slug} from a rule (now {new})")]
    return [MemoryEvent("status", slug, f"{slug}: status {old} -> {new}")]


def _fact_events(slug: str, before: Card, after: Card) -> list[MemoryEvent]:
    old = {line.strip() for line in before.body.splitlines() if line.strip()}
    new = [line.strip() for line in after.body.splitlines() if line.strip()]
    added = [line for line in new if line not in old]
    removed = sorted(old - set(new))
    events = []
    if added:
        shown = "; ".join(_short(line) for line in added[:3]) + ("; ..." if len(added) > 3 else "")
        events.append(
            MemoryEvent("facts-added", slug, f"{slug}: {len(added)} line(s) added: {shown}")
        )
    if removed:
        events.append(MemoryEvent("facts-removed", slug, f"{slug}: {len(removed)} line(s) removed"))
    return events


def _other_events(change: FileChange, subject: str) -> list[MemoryEvent]:
    path = change.new_path or change.old_path or ""
    log = _LOG.match(path)
    if log:
        day = log.group(1)
        old, new = _entries(change.old_text), _entries(change.new_text)
        events = []
        if new > old:
            events.append(MemoryEvent("logged", day, f"logged {new - old} entr(y/ies) on {day}"))
        if new < old:
            kind = "log-forgotten" if subject.startswith("forget") else "log-removed"
            events.append(MemoryEvent(kind, day, f"{old - new} log entr(y/ies) of {day} removed"))
        return events
    if path == "MEMORY.md" and change.old_text != change.new_text:
        return [MemoryEvent("index", "MEMORY.md", "MEMORY.md (the index) updated")]
    return []


def _entries(text: str) -> int:
    return sum(1 for line in text.splitlines() if _ENTRY.match(line))


def _short(line: str, limit: int = 70) -> str:
    line = line.lstrip("-* ").strip()
    return line if len(line) <= limit else line[: limit - 1] + "…"
