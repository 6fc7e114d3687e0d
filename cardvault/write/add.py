"""The writing commands' service: a new card, a log entry, a quick "remember this".

Each function passes the text through the secret guard first (outside the lock: the guard is
the slow part), then returns its write as a plan the app lands through the one door
(edits/door.py): under the vault lock the plan reads the vault as it is now (today's log, the
slugs taken); the door writes atomically and records one git commit. Never prints.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardvault import history
from cardvault.edits.changes import WriteFile
from cardvault.edits.proposal import Planned, Proposal, Written, door_notes, propose
from cardvault.errors import CardFormatError, ConfigError
from cardvault.vault.card import TAG_RE, render_card
from cardvault.vault.daily import appended_log_text, format_entry
from cardvault.vault.entry_ids import append_entry
from cardvault.vault.fields import CATEGORY, CREATED, LEARNED_BY, TAGS, TOPIC, UPDATED
from cardvault.vault.files import ABSENT, ensure_within, read_if_present
from cardvault.vault.layout import Vault
from cardvault.vault.slugs import slugify, tagify, unique_slug
from cardvault.vault.tokens import count_tokens
from cardvault.vault.uses import cited_cards, record_uses


@dataclass(frozen=True)
class WriteResult:
    """A file cardvault wrote, the commit that records it, and anything the user should know."""

    path: Path
    commit: history.CommitResult
    warnings: list[str] = field(default_factory=list)
    slug: str | None = None
    notes: list[str] = field(default_factory=list)  # recovery, hand edits committed first


def screen(text: str, where: Path | str, redact: bool, first_line: int = 1) -> str:
    """Refuse text holding a secret (SecretFoundError), or return it redacted when asked."""
    from cardvault.guard import ensure_no_secrets, redact_text

    if redact:
        return redact_text(text)
    ensure_no_secrets(text, where, first_line)
    return text


def screen_card(text: str, where: str, redact: bool) -> str:
    """A card's text through the guard as a file, then value by value: YAML quoting hides a
    value's shape (`topic: "password=\\"x\\""` reads as `password="x"`). A redacted value is
    written back into its key's lines only."""
    from cardvault.vault.card import parse_card, update_card_text

    text = screen(text, where, redact)
    card = parse_card(text, Path(where))
    changes = {}
    for key, value in card.meta.items():
        clean = _screened_value(value, where, redact, card.key_line(key))
        if clean != value:
            changes[key] = clean
    return update_card_text(text, changes, path=Path(where)) if changes else text


def _screened_value(value: Any, where: str, redact: bool, line: int) -> Any:
    if isinstance(value, str):
        return screen(value, where, redact, line)
    if isinstance(value, list):
        return [_screened_value(item, where, redact, line) for item in value]
    if isinstance(value, dict):
        return {k: _screened_value(v, where, redact, line) for k, v in value.items()}
    return value


def taken_slugs(vault: Vault) -> set[str]:
    """Slugs of every card file, live or archived, in any sub-folder (a new card must not reuse
    any). Names only, read with one directory walk: this runs under the lock on every `new`."""
    taken: set[str] = set()
    for folder in (vault.cards_dir, vault.archive_dir):
        for _top, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            taken.update(name[:-3] for name in files if name.endswith(".md"))
    return taken


def normalise_tags(raw: Sequence[str]) -> list[str]:
    """Tags split on commas, lowercased and hyphenated, de-duplicated in order."""
    tags: list[str] = []
    for chunk in raw:
        for part in chunk.split(","):
            tag = tagify(part)
            if tag and TAG_RE.match(tag) and tag not in tags:
                tags.append(tag)
    return tags


def check_category(vault: Vault, category: str) -> None:
    """Refuse a category the vault's settings do not list."""
    if category not in vault.config.categories:
        allowed = ", ".join(vault.config.categories)
        raise ConfigError(f"unknown category '{category}' (allowed: {allowed})")


def plan_card(
    vault: Vault,
    topic: str,
    category: str,
    tags: Sequence[str],
    body: str,
    today: dt.date,
    redact: bool = False,
) -> Planned[str, WriteResult]:
    """The write of memory/cards/<slug>.md (the slug is chosen under the vault lock, so two
    writers of the same topic get `topic` and `topic-2`, never one card)."""
    topic = topic.strip()
    if not topic:
        raise CardFormatError("a card needs a topic")
    check_category(vault, category)
    if not body.strip():
        raise CardFormatError("a card needs a body (--body TEXT, or --body - to read stdin)")
    limit = vault.config.max_entry_bytes
    ensure_within(body, "the card's body", limit)
    ensure_within(topic + "".join(tags), "the card's topic and tags", limit)
    topic, tags, body = screened_card_fields(topic, tags, body, redact)
    meta = {
        TOPIC: topic,
        CATEGORY: category,
        TAGS: normalise_tags(tags),
        CREATED: today,
        UPDATED: today,
    }
    if vault.agent:  # who learned it: promotion counts agents (docs/scopes.md)
        meta[LEARNED_BY] = [vault.agent]
    text = render_card(meta, body)
    ensure_within(text, "the card", limit)
    screen(text, "the new card", redact=False)  # the fields are clean; so must their card be

    def plan() -> Proposal[str]:
        slug = unique_slug(slugify(topic), taken_slugs(vault))
        change = WriteFile(vault.card_path(slug), text, ABSENT, f"added card {slug}", "new", 1)
        return propose([change], f"card: add {slug}", slug)

    def result(written: Written[str]) -> WriteResult:
        path = vault.card_path(written.value)
        warnings = _budget_warnings(vault, path, text)
        return WriteResult(path, _commit_of(written), warnings, written.value, door_notes(written))

    return Planned(plan, result)


def _budget_warnings(vault: Vault, path: Path, text: str) -> list[str]:
    tokens = count_tokens(text)
    if tokens <= vault.config.card_token_budget:
        return []
    budget = vault.config.card_token_budget
    return [f"{vault.rel(path)}: card is {tokens} tokens, over the budget of {budget}; "
            "consider splitting it"]  # fmt: skip


def screened_card_fields(
    topic: str, tags: Sequence[str], body: str, redact: bool
) -> tuple[str, list[str], str]:
    """A new card's topic, tags and body through the guard, before anything is made of them:
    the slug and file name come from the topic, and a tag is lower-cased (which hides a key's
    shape from the guard). A refusal names the field, never the file the topic would make."""
    topic = " ".join(screen(topic, "TOPIC", redact).split())  # screened before it is flattened
    tags = [screen(tag, "--tags", redact) for tag in tags]
    return topic, tags, screen(body, "--body", redact)


@dataclass(frozen=True)
class Entry:
    """A log entry ready to append: its day, heading and Markdown (already screened)."""

    day: dt.date
    time: str
    heading: str
    text: str

    @property
    def message(self) -> str:
        """The subject of the commit that records it."""
        return f"log: {self.day.isoformat()} {self.time} {self.heading}"


def prepare_entry(
    vault: Vault, text: str, title: str | None, now: dt.datetime, redact: bool = False
) -> Entry:
    """The entry `text` makes at `now`, through the secret guard (refused, or redacted); text
    over `[write] max_entry_bytes` is refused before anything is made of it."""
    limit = vault.config.max_entry_bytes
    ensure_within(text, "the entry text", limit)
    ensure_within(title or "", "the entry title", limit)
    body = text.strip("\n")
    if not body.strip():
        raise CardFormatError("nothing to log: the entry text is empty")
    if vault.agent:
        body += f"\nAgent: {vault.agent}"
    path = vault.log_path(now.date().isoformat())
    found = read_if_present(path, vault.root)
    current = found.text if found else None
    entry, heading = screened_entry(vault.rel(path), current, now, body, title, redact)
    return Entry(now.date(), now.strftime("%H:%M"), heading, entry)


def screened_entry(
    where: str, current: str | None, now: dt.datetime, body: str, title: str | None, redact: bool
) -> tuple[str, str]:
    """The entry to append and its title, each screened before anything is derived from it: the
    default title (the body's first line, cut to 60 characters) comes from the screened body, so
    a cut never leaves half a secret the guard can no longer recognise. A refusal names the
    log line the text would have had."""
    heading_line = appended_log_text(current, now.date(), "-").count("\n") + 1
    body = screen(body, where, redact, first_line=heading_line + 1)
    given = screen(title or "", where, redact, heading_line)  # screened, then flattened:
    given = " ".join(given.split())  # one line, so a title cannot start another entry
    heading = given or _title_from(body)
    return format_entry(now.strftime("%H:%M"), heading, body), heading


def entry_change(vault: Vault, entry: Entry, reason: str = "") -> WriteFile:
    """The change appending `entry` to its day's log as the file is now (call under the lock)."""
    path = vault.log_path(entry.day.isoformat())
    current = read_if_present(path, vault.root)
    new_text = append_entry(current.text if current else None, entry.day, entry.text).text
    expected = current.digest if current else ABSENT
    return WriteFile(path, new_text, expected, reason or f"logged {entry.heading}", "log", 1)


def plan_log(
    vault: Vault,
    text: str,
    title: str | None,
    now: dt.datetime,
    redact: bool = False,
) -> Planned[None, WriteResult]:
    """The append of a `## HH:MM — Title` entry to today's log."""
    entry = prepare_entry(vault, text, title, now, redact)

    def result(written: Written[None]) -> WriteResult:
        path = vault.log_path(entry.day.isoformat())
        record_uses(vault, cited_cards(text), "cited", entry.day)  # a card cited is a card used
        return WriteResult(path, _commit_of(written), notes=door_notes(written))

    return Planned(lambda: propose([entry_change(vault, entry)], entry.message, None), result)


def _commit_of(written: Written[Any]) -> history.CommitResult:
    return written.commit or history.CommitResult(None, "", "nothing to commit")


def _title_from(body: str) -> str:
    first = body.strip().splitlines()[0].strip()
    for word in ("Lesson:", "Fix:", "Gotcha:", "Rule:", "Decision:", "Preference:", "Correction:"):
        if first.lower().startswith(word.lower()):
            first = first[len(word) :].strip()
    return first if len(first) <= 60 else first[:57].rstrip() + "..."
