"""Failed commands in memory: the log entry a capture appends, its counter, and the known fixes.

Logs are append-only, so the counter is derived: `seen` is the number of capture entries
(`Signature:` and `Exit code:` lines) with the signature in all daily logs. Known fixes
(docs/agents.md) come from a keyword search that never embeds: a capture must not wait for
the model.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

from cardvault import history
from cardvault.capture.run import Failure
from cardvault.edits.proposal import Planned, Proposal, Written, door_notes, propose
from cardvault.maintain.evidence import terms
from cardvault.vault.daily import LogEntry, parse_log
from cardvault.vault.layout import Vault
from cardvault.vault.read import VaultSnapshot, read_vault

FIX_KINDS = ("fix", "lesson", "gotcha", "rule", "correction", "prevention")
SEARCH_DEPTH = 8
MIN_COVERAGE = 0.5


@dataclass(frozen=True)
class Recorded:
    """Where a capture was logged, the derived counter, and the commit."""

    path: Path
    ref: str
    seen: int
    first: str | None  # ref of the first capture with this signature (None: this is it)
    commit: history.CommitResult
    notes: list[str] = field(default_factory=list)  # what the write door had to do first


@dataclass(frozen=True)
class KnownFix:
    """A fix the vault already holds: the text and where it lives."""

    text: str
    source: str


def captures_of(vault: Vault, signature: str) -> list[LogEntry]:
    """Capture entries (`Signature:` plus `Exit code:` lines) with `signature`, oldest first."""
    return [
        e for e in entries_mentioning(read_vault(vault), signature) if _is_capture(e, signature)
    ]


def _is_capture(entry: LogEntry, signature: str) -> bool:
    body = entry.body
    return bool(re.search(rf"^Signature: {signature}\b", body, re.M)) and "\nExit code:" in (
        "\n" + body
    )


def entries_mentioning(snapshot: VaultSnapshot, text: str) -> list[LogEntry]:
    """Log entries whose title or body holds `text`, oldest first."""
    return [
        entry
        for log in snapshot.logs
        if text in log.file.text
        for entry in log.entries
        if text in entry.body or text in entry.title
    ]


def entry_text(failure: Failure, seen: int, first: str | None) -> tuple[str, str]:
    """(title, body) of the log entry for a capture seen `seen` times so far (this one included)."""
    command = failure.command if len(failure.command) <= 48 else failure.command[:45] + "..."
    killed = f" (killed by {failure.killed_by})" if failure.killed_by else ""
    exit_code = f"{failure.exit_code}{killed}"
    ignored = f"Ignored signals: {ignored_note(failure.ignored)}\n" if failure.ignored else ""
    if first is not None:
        body = (
            f"Command: `{failure.command}`\n"
            f"Exit code: {exit_code} · Directory: {failure.cwd}\n"
            f"{ignored}"
            f"Signature: {failure.signature}\n"
            f"Seen: {seen} (first: {first})"
        )
        return f"Failed again: {command}", body
    longest = max((len(run) for run in re.findall(r"~+", failure.tail)), default=0)
    fence = "~" * max(3, longest + 1)  # longer than any run in the tail: nothing closes it
    body = (
        f"Command: `{failure.command}`\n"
        f"Exit code: {exit_code}\n"
        f"{ignored}"
        f"Directory: {failure.cwd}\n"
        f"Category: {failure.category}\n"
        f"Signature: {failure.signature}\n"
        f"Error: {failure.error}\n"
        f"Normalised: {failure.message}\n"
        f"Seen: {seen}\n"
    )
    if failure.tail:
        body += f"\nStderr (last lines):\n{fence}text\n{failure.tail}\n{fence}"
    return f"Command failed: {command}", body


def ignored_note(ignored: tuple[str, ...]) -> str:
    """Why a command ran with `ignored` signals ignored: it inherited them from cardvault's
    caller ("SIGINT, SIGQUIT (inherited: started in the background by a script?)")."""
    if not ignored:
        return ""
    hints = []
    if "SIGINT" in ignored or "SIGQUIT" in ignored:
        hints.append("started in the background by a script?")
    if "SIGHUP" in ignored:
        hints.append("started under nohup?")
    return f"{', '.join(ignored)} (inherited: {' '.join(hints) or 'from the caller'})"


def record_failure(
    vault: Vault, failure: Failure, now: dt.datetime
) -> Planned[tuple[int, str | None, str], Recorded]:
    """The append of the capture's entry to today's log (secrets redacted). The earlier
    captures are counted under the vault lock, so parallel captures count 1, 2, 3..."""
    from cardvault.write.add import entry_change, prepare_entry

    def plan() -> Proposal[tuple[int, str | None, str]]:
        past = captures_of(vault, failure.signature)
        first = past[0].ref if past else None
        title, body = entry_text(failure, len(past) + 1, first)
        entry = prepare_entry(vault, body, title, now, redact=True)
        change = entry_change(vault, entry, f"captured {failure.signature}")
        entries = parse_log(change.new_text, change.path, vault.config.signal_words)
        ref = entries[-1].ref if entries else vault.rel(change.path)
        return propose([change], entry.message, (len(past) + 1, first, ref))

    def result(written: Written[tuple[int, str | None, str]]) -> Recorded:
        seen, first, ref = written.value
        path = vault.log_path(now.date().isoformat())
        commit = written.commit or history.CommitResult(None, "", "nothing to commit")
        return Recorded(path, ref, seen, first, commit, door_notes(written))

    return Planned(plan, result)


def known_fixes(vault: Vault, failure: Failure, limit: int = 5) -> list[KnownFix]:
    """What the vault already knows about fixing this failure: the fix lines of entries naming
    its signature, the cards citing those entries, then what a keyword search for the error finds.
    """
    snapshot = read_vault(vault)
    mentioning = entries_mentioning(snapshot, failure.signature)
    found = [KnownFix(text, entry.ref) for entry in mentioning for text in _fix_lines(entry)]
    refs = {ref for e in mentioning for ref in e.refs}
    for file in snapshot.live:
        card = file.card
        if refs & set(card.sources):
            found += _card_fixes(card.body, card.slug, vault.rel(card.path), card.topic)
    found += _searched_fixes(snapshot, failure)
    return list(dict.fromkeys(found))[:limit]  # each once, first place first


def _fix_lines(entry: LogEntry) -> list[str]:
    lines = [f"{s.kind.capitalize()}: {s.text}" for s in entry.signals if s.kind in FIX_KINDS]
    for key in ("fix", "prevention"):
        if key in entry.fields and not any(line.endswith(entry.fields[key]) for line in lines):
            lines.append(f"{key.capitalize()}: {entry.fields[key]}")
    return lines


def _card_fixes(body: str, slug: str, source: str, fallback: str) -> list[KnownFix]:
    """The `Fix:`-like lines of a card's body (`fallback` when it has none), naming the card."""
    lines = []
    for line in body.splitlines():
        head, colon, rest = line.strip().lstrip("-* ").partition(":")
        if colon and head.strip().lower() in FIX_KINDS and rest.strip():
            lines.append(f"{head.strip()}: {rest.strip()}")
    return [KnownFix(f"{text} (card {slug})", source) for text in lines or [fallback]]


def _searched_fixes(snapshot: VaultSnapshot, failure: Failure) -> list[KnownFix]:
    """Cards and fix-bearing log entries a keyword search for the error line finds."""
    wanted = terms(failure.error)
    if not wanted:
        return []
    from cardvault.search.keyword import keyword_hits

    fixes = []
    for hit in keyword_hits(snapshot.vault, failure.error, SEARCH_DEPTH, logs=True):
        if coverage(wanted, f"{hit.topic}\n{hit.body}") < MIN_COVERAGE:
            continue
        if hit.kind == "log":
            entry = _log_entry(snapshot, hit.path, hit.entry)
            fixes += [KnownFix(text, entry.ref) for text in _fix_lines(entry)] if entry else []
        else:
            fixes += _card_fixes(hit.body, hit.slug, hit.path, f'see the card "{hit.topic}"')
    return fixes


def coverage(wanted: frozenset[str], text: str) -> float:
    """Share of the salient terms `wanted` that `text` holds too."""
    return len(wanted & terms(text)) / len(wanted) if wanted else 0.0


def _log_entry(snapshot: VaultSnapshot, file: str, entry: str | None) -> LogEntry | None:
    if entry is None:
        return None
    for log in snapshot.logs:
        if snapshot.rel(log.file.path) == file:
            return next((e for e in log.entries if f"{e.time} {e.title}" == entry), None)
    return None
