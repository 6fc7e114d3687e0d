"""The dates an imported note keeps: `created` and `updated`, each with where it came from.

Each is the first of the note's frontmatter, the folder's git history (before the file's times,
since a clone's files all carry the time of the clone) and the file's own times (docs/import.md,
"Dates"); `updated` is never before `created`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cardvault.portable.notes import SourceNote
from cardvault.vault.card import as_date

CREATED_KEYS = ("created", "date", "created_at", "creation_date", "date created", "date_created")
UPDATED_KEYS = (
    "updated", "modified", "updated_at", "last_modified", "date modified", "date_modified",
    "lastmod",
)  # fmt: skip


@dataclass(frozen=True)
class NoteDates:
    """A note's two dates and where each came from ("frontmatter", "git" or "file")."""

    created: dt.date
    updated: dt.date
    created_from: str
    updated_from: str

    @property
    def source(self) -> str:
        """Where the dates came from, in one word or two ("git", "frontmatter+file")."""
        if self.created_from == self.updated_from:
            return self.created_from
        return f"{self.created_from}+{self.updated_from}"


GitDates = Mapping[str, tuple[dt.date, dt.date]]


def note_dates(note: SourceNote, meta: Mapping[str, Any], history: GitDates) -> NoteDates:
    """The dates `note` keeps (see the module docstring)."""
    tracked = history.get(note.rel)
    file_updated = dt.date.fromtimestamp(note.mtime)
    file_created = dt.date.fromtimestamp(min(note.birth or note.mtime, note.mtime))
    created, created_from = _first(
        (_from_meta(meta, CREATED_KEYS), "frontmatter"),
        (tracked[0] if tracked else None, "git"),
        (file_created, "file"),
    )
    updated, updated_from = _first(
        (_from_meta(meta, UPDATED_KEYS), "frontmatter"),
        (tracked[1] if tracked else None, "git"),
        (file_updated, "file"),
    )
    return NoteDates(created, max(created, updated), created_from, updated_from)


def _first(*options: tuple[dt.date | None, str]) -> tuple[dt.date, str]:
    for value, origin in options:
        if value is not None:
            return value, origin
    raise AssertionError("the file's own time is always there")


def _from_meta(meta: Mapping[str, Any], keys: tuple[str, ...]) -> dt.date | None:
    """The first of `keys` holding a date (a YAML date or datetime, or ISO text)."""
    lowered = {str(k).casefold(): v for k, v in meta.items()}
    for key in keys:
        value = lowered.get(key)
        found = as_date(value)
        if found is None and isinstance(value, str):
            found = _iso_prefix(value)
        if found is not None:
            return found
    return None


def _iso_prefix(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text.strip()[:10])
    except ValueError:
        return None
