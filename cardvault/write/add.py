"""The writing commands' service: a new card, a log entry, a quick "remember this".

Each function writes atomically, passes the text through the secret guard first, records one git
commit, and returns what it did; none prints.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardvault import history
from cardvault.edits.atomic import atomic_write
from cardvault.errors import CardFormatError, ConfigError
from cardvault.vault.card import TAG_RE, render_card
from cardvault.vault.daily import appended_log_text, format_entry
from cardvault.vault.files import ABSENT, read_text
from cardvault.vault.layout import Vault, iter_card_paths
from cardvault.vault.slugs import slugify, tagify, unique_slug
from cardvault.vault.tokens import count_tokens


@dataclass(frozen=True)
class WriteResult:
    """A file cardvault wrote, the commit that records it, and anything the user should know."""

    path: Path
    commit: history.CommitResult
    warnings: list[str] = field(default_factory=list)
    slug: str | None = None


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
    """Slugs of every card, live or archived (a new card must not reuse any)."""
    return {p.stem for archived in (False, True) for p in iter_card_paths(vault, archived)}


def normalise_tags(raw: Sequence[str]) -> list[str]:
    """Tags split on commas, lowercased and hyphenated, de-duplicated in order."""
    tags: list[str] = []
    for chunk in raw:
        for part in chunk.split(","):
            tag = tagify(part)
            if tag and TAG_RE.match(tag) and tag not in tags:
                tags.append(tag)
    return tags


def add_card(
    vault: Vault,
    topic: str,
    category: str,
    tags: Sequence[str],
    body: str,
    today: dt.date,
    redact: bool = False,
) -> WriteResult:
    """Create memory/cards/<slug>.md and commit it."""
    if not topic.strip():
        raise CardFormatError("a card needs a topic")
    if category not in vault.config.categories:
        allowed = ", ".join(vault.config.categories)
        raise ConfigError(f"unknown category '{category}' (allowed: {allowed})")
    if not body.strip():
        raise CardFormatError("a card needs a body (--body TEXT, or --body - to read stdin)")
    topic, tags, body = screened_card_fields(topic, tags, body, redact)
    slug = unique_slug(slugify(topic), taken_slugs(vault))
    path = vault.card_path(slug)
    meta = {
        "topic": topic,
        "category": category,
        "tags": normalise_tags(tags),
        "created": today,
        "updated": today,
    }
    if vault.agent:  # who learned it: promotion counts agents (docs/scopes.md)
        meta["learned_by"] = [vault.agent]
    text = render_card(meta, body)
    screen(text, vault.rel(path), redact=False)  # the fields are clean; so must their card be
    atomic_write(path, text, ABSENT)
    warnings = []
    tokens = count_tokens(text)
    if tokens > vault.config.card_token_budget:
        warnings.append(
            f"{vault.rel(path)}: card is {tokens} tokens, over the budget of "
            f"{vault.config.card_token_budget}; consider splitting it"
        )
    result = history.commit(vault, f"card: add {slug}", [path])
    return WriteResult(path, result, warnings, slug)


def screened_card_fields(
    topic: str, tags: Sequence[str], body: str, redact: bool
) -> tuple[str, list[str], str]:
    """A new card's topic, tags and body through the guard, before anything is made of them:
    the slug and file name come from the topic, and a tag is lower-cased (which hides a key's
    shape from the guard). A refusal names the field, never the file the topic would make."""
    topic = " ".join(screen(topic, "TOPIC", redact).split())  # screened before it is flattened
    tags = [screen(tag, "--tags", redact) for tag in tags]
    return topic, tags, screen(body, "--body", redact)


def append_log(
    vault: Vault, text: str, title: str | None, now: dt.datetime, redact: bool = False
) -> WriteResult:
    """Append a `## HH:MM — Title` entry to today's log and commit it."""
    body = text.strip("\n")
    if not body.strip():
        raise CardFormatError("nothing to log: the entry text is empty")
    if vault.agent:
        body += f"\nAgent: {vault.agent}"
    path = vault.log_path(now.date().isoformat())
    current = read_text(path) if path.exists() else None
    before = current.text if current else None
    entry, heading = screened_entry(vault.rel(path), before, now, body, title, redact)
    new_text = appended_log_text(before, now.date(), entry)
    atomic_write(path, new_text, current.digest if current else ABSENT)
    result = history.commit(vault, f"log: {now.date().isoformat()} {now:%H:%M} {heading}", [path])
    return WriteResult(path, result)


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


def _title_from(body: str) -> str:
    first = body.strip().splitlines()[0].strip()
    for word in ("Lesson:", "Fix:", "Gotcha:", "Rule:", "Decision:", "Preference:", "Correction:"):
        if first.lower().startswith(word.lower()):
            first = first[len(word) :].strip()
    return first if len(first) <= 60 else first[:57].rstrip() + "..."
