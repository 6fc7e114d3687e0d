"""What an agent session learned, captured from its transcript by a host's hook (before a
compaction, and when the agent stops): the signal lines of the assistant's messages since the
last capture, each its own entry of today's log, in one commit (docs/agents.md).

Lines in code blocks are quoted output, never signals. A line is read once (the transcript's
offset is kept in `.cardvault/transcripts/`, never committed) and logged only when memory does
not already hold its text (an agent quoting its pack adds nothing). At most MAX_LINES lines of
MAX_CHARS each, redacted by the secret guard, since no person chose to store them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cardvault import history
from cardvault.edits.atomic import atomic_write
from cardvault.edits.changes import WriteFile
from cardvault.edits.proposal import Planned, Proposal, Written, door_notes, propose
from cardvault.hosts.transcript import assistant_texts, read_since
from cardvault.vault.daily import signals_in
from cardvault.vault.entry_ids import append_entry
from cardvault.vault.files import ABSENT, current_digest, read_if_present
from cardvault.vault.layout import Vault
from cardvault.vault.read import VaultSnapshot, read_vault

MAX_LINES = 20
MAX_CHARS = 500
STATE_FOLDER = "transcripts"
_CITATION = re.compile(r"\s*\((?:see\s+)?memory/[^)]*\)\s*$")


@dataclass(frozen=True)
class Found:
    """A signal line: its kind (the signal word, lower-case) and its text."""

    kind: str
    text: str

    @property
    def line(self) -> str:
        return f"{self.kind.capitalize()}: {self.text}"


@dataclass(frozen=True)
class SessionCapture:
    """What a capture did: the lines logged, those memory already held, those past the bound,
    and the commit (None: nothing was written)."""

    logged: tuple[str, ...]
    known: int
    dropped: int
    commit: history.CommitResult | None
    notes: list[str] = field(default_factory=list)


def signal_lines(texts: list[str], words: tuple[str, ...]) -> tuple[list[Found], int]:
    """The signal lines of `texts` in order, each once, at most MAX_LINES of them; and how many
    more there were."""
    from cardvault.guard import redact_text

    found: dict[str, Found] = {}
    for text in texts:
        for signal in signals_in(text, words):
            clean = _bounded(redact_text(" ".join(signal.text.split())))
            found.setdefault(normal(clean), Found(signal.kind, clean))
    listed = list(found.values())
    return listed[:MAX_LINES], max(0, len(listed) - MAX_LINES)


def normal(text: str) -> str:
    """`text` as compared with memory: case, spacing, a trailing full stop and a trailing
    citation of a card aside."""
    text = _CITATION.sub("", text)
    return " ".join(text.casefold().split()).rstrip(" .")


def known_texts(snapshot: VaultSnapshot) -> set[str]:
    """Everything memory already says, as `normal` text: log signals, card lines, rules."""
    words = snapshot.vault.config.signal_words
    known = {normal(entry_signal.text) for e in snapshot.entries for entry_signal in e.signals}
    for card in snapshot.live:
        known.add(normal(card.card.topic))
        known.update(normal(signal.text) for signal in signals_in(card.card.body, words))
        known.update(normal(line.strip().lstrip("-*+ ")) for line in card.card.body.splitlines())
    known.update(normal(rule.flat.lstrip("-*+ ")) for rule in snapshot.rules)
    known.discard("")
    return known


def capture_transcript(
    vault: Vault, transcript: Path, via: str, now: dt.datetime
) -> SessionCapture | Planned[Signals, SessionCapture]:
    """Log the signal lines the assistant wrote in `transcript` since the last capture: what
    was captured when there are none, else their write for the app to land (where the
    capture stopped is kept once it landed)."""
    offset_file = _offset_file(vault, transcript)
    chunk = read_since(transcript, _read_offset(offset_file))
    found, dropped = signal_lines(assistant_texts(chunk.data), vault.config.signal_words)
    if not found:
        _write_offset(offset_file, transcript, chunk.end)
        return SessionCapture((), 0, dropped, None)

    def result(written: Written[Signals]) -> SessionCapture:
        _write_offset(offset_file, transcript, chunk.end)
        logged, known = written.value
        return SessionCapture(logged, known, dropped, written.commit, door_notes(written))

    return Planned(_signals_plan(vault, found, via, now), result)


#: What logging signals hands back: the lines logged, how many memory held already.
Signals = tuple[tuple[str, ...], int]


def _signals_plan(
    vault: Vault, found: list[Found], via: str, now: dt.datetime
) -> Callable[[], Proposal[Signals]]:
    """The append of one entry per signal memory does not hold yet to today's log, in one
    commit."""
    from cardvault.write.add import prepare_entry

    path = vault.log_path(now.date().isoformat())

    def plan() -> Proposal[Signals]:
        known = known_texts(read_vault(vault))
        new = [f for f in found if normal(f.text) not in known]
        current = read_if_present(path, vault.root)
        text = current.text if current else None
        for signal in new:
            entry = prepare_entry(vault, f"{signal.line}\nVia: {via}", None, now, redact=True)
            text = append_entry(text, now.date(), entry.text).text
        changes = []
        if new and text is not None:
            expected = current.digest if current else ABSENT
            reason = f"logged {len(new)} line(s) from a session"
            changes.append(WriteFile(path, text, expected, reason, "log", 1))
        logged = tuple(signal.line for signal in new)
        message = f"log: {_count(len(new))} from a session ({via})"
        return propose(changes, message, (logged, len(found) - len(new)))

    return plan


def _count(number: int) -> str:
    return "1 signal line" if number == 1 else f"{number} signal lines"


def _bounded(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    cut = text[: MAX_CHARS - 1].rsplit(" ", 1)[0]
    return cut + "…"


def _offset_file(vault: Vault, transcript: Path) -> Path:
    digest = hashlib.sha256(str(transcript).encode("utf-8", "surrogateescape")).hexdigest()
    return vault.cache_dir / STATE_FOLDER / f"{digest[:24]}.json"


def _read_offset(path: Path) -> int:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    offset = data.get("offset") if isinstance(data, dict) else None
    return offset if isinstance(offset, int) and offset >= 0 else 0


def _write_offset(path: Path, transcript: Path, offset: int) -> None:
    text = json.dumps({"transcript": str(transcript), "offset": offset})
    atomic_write(path, text, current_digest(path), mode=0o600)  # local state, private
