"""Parsed files as catalog records: a card or a daily log to JSON and back, exactly.

A card's record holds its frontmatter (dates tagged so they come back as dates), where its body
starts, its line endings, its token count and its wiki-links; a log's record holds its entries
with their signals, links and fields. A file that does not parse is recorded with its error
(message, line, code), so it is not parsed again until it changes. Frontmatter that JSON cannot
carry faithfully (keys that are not text, tagged YAML types) is recorded as `null` and parsed
from the text whenever it is needed.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cardvault.errors import CardvaultError
from cardvault.vault.card import Card, parse_card
from cardvault.vault.daily import LogEntry, Signal, day_of, parse_log
from cardvault.vault.links import WikiLink, wiki_links
from cardvault.vault.tokens import count_tokens

#: Bumped whenever a record's shape changes (it is part of the catalog's fingerprint).
RECORD_VERSION = 4
#: What a log record holds of each entry, in order: every field but those its file gives.
_ENTRY_FIELDS = tuple(f.name for f in dataclasses.fields(LogEntry) if f.name not in ("path", "day"))
_TAGS = {"$date": dt.date.fromisoformat, "$datetime": dt.datetime.fromisoformat}


def card_record(text: str, path: Path) -> tuple[dict[str, Any], Any]:
    """The record of a card's text (or of its parse error) and what `decode_card` makes of it."""
    try:
        card = parse_card(text, path)
    except CardvaultError as exc:
        return error_record(exc), None
    tokens, links = count_tokens(text), wiki_links(text)
    return {
        "meta": encode_meta(card.meta),
        "body_line": card.body_line,
        "body_at": len(text) - len(card.body),
        "newline": card.newline,
        "tokens": tokens,
        "links": [[link.target, link.line] for link in links],
    }, (card, tokens, links)


def decode_card(
    record: dict[str, Any], text: str, path: Path
) -> tuple[Card, int, tuple[WikiLink, ...]]:
    """(card, tokens, links) from a card record and the text it was made from."""
    meta = record["meta"]
    if meta is None:
        card = parse_card(text, path)
    else:
        body = text[record["body_at"] :]
        card = Card(path, meta, body, text, record["body_line"], record["newline"])
    links = tuple(WikiLink(target, line) for target, line in record["links"])
    return card, record["tokens"], links


def log_record(text: str, path: Path, signal_words: Iterable[str]) -> tuple[dict[str, Any], Any]:
    """The record of a daily log's text (or its parse error) and what `decode_log` makes of it."""
    try:
        entries = tuple(parse_log(text, path, signal_words))
    except CardvaultError as exc:
        return error_record(exc), None
    except ValueError:  # a name shaped like a date that is not one (2026-02-30.md)
        return error_record(CardvaultError("log file name is not a valid date"), "log-name"), None
    return {"entries": [_entry(e) for e in entries]}, entries


def decode_log(record: dict[str, Any], path: Path) -> tuple[LogEntry, ...]:
    """The entries of a log record; ValueError when an entry's keys are not `_ENTRY_FIELDS`
    (a record of another version, or damaged: the read path parses its file again)."""
    day = day_of(path)
    if any(tuple(e) != _ENTRY_FIELDS for e in record["entries"]):  # as `_entry` writes them
        raise ValueError("a log entry's record does not hold a log entry's fields")
    return tuple(
        LogEntry(
            path,
            day,
            **{
                **e,  # `_entry`'s fields, those JSON does not carry as they are rebuilt
                "signals": tuple(Signal(*s) for s in e["signals"]),
                "card_links": tuple(e["card_links"]),
                "fields": dict(e["fields"]),
            },
        )
        for e in record["entries"]
    )


def _entry(entry: LogEntry) -> dict[str, Any]:
    return {
        **{name: getattr(entry, name) for name in _ENTRY_FIELDS},
        "signals": [[s.kind, s.text, s.line] for s in entry.signals],
        "card_links": list(entry.card_links),
    }


def error_record(exc: CardvaultError, code: str = "unreadable") -> dict[str, Any]:
    """The record of a file that could not be read or parsed."""
    return {"error": {"message": exc.message, "line": exc.line or 1, "code": code}}


def encode_meta(meta: dict[str, Any]) -> Any:
    """JSON-able frontmatter that reads back (through `tagged`, as every record is read) into
    exactly `meta`, else None."""
    try:
        encoded = _encode(meta)
        faithful = json.loads(json.dumps(encoded), object_hook=tagged) == meta
    except (TypeError, ValueError):
        return None
    return encoded if faithful else None


def tagged(value: dict[str, Any]) -> Any:
    """A JSON object back to the value it stands for (`{"$date": ...}` -> a date)."""
    if len(value) == 1:
        key = next(iter(value))
        if key in _TAGS:
            return _TAGS[key](value[key])
        if key == "$map":
            return dict(value[key])
    return value


def _encode(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, dt.date):
        return {"$date": value.isoformat()}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError("frontmatter keys that are not text")
        if any(k.startswith("$") for k in value):
            return {"$map": [[k, _encode(v)] for k, v in value.items()]}
        return {k: _encode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"frontmatter value of type {type(value).__name__}")


def dumps(record: dict[str, Any]) -> str:
    """A record as stored."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))
