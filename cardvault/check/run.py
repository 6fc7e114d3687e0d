"""`cardvault check`: every rule a vault must keep, as `path:line: message` findings.

The vault is read through the one read path (a file that cannot be read is a finding, never an
abort). Rules of one card alone, secret scans and the claims behind the contradiction check are
kept in the catalog under each file's digest, so a check of an unchanged vault recomputes only
what spans files: duplicate slugs, links, contradictions, MEMORY.md's budget.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cardvault.check.cards import FACT, Found, card_findings, distilled, secret_findings
from cardvault.check.instructions import FACT as INSTRUCTIONS_FACT
from cardvault.check.instructions import instruction_findings
from cardvault.maintain.contradict import Claim, conflicting_claims
from cardvault.scopes.tiers import tier_findings
from cardvault.vault.files import FileText
from cardvault.vault.finding import Finding
from cardvault.vault.layout import Vault
from cardvault.vault.read import CardFile, VaultSnapshot, read_vault, remembered

SECRETS_FACT = "check.secrets@1"
CLAIMS_FACT = "check.claims@1"


def run_checks(vault: Vault, secrets: bool = True) -> list[Finding]:
    """All findings for the vault, sorted by path and line."""
    snapshot = read_vault(vault)
    findings = list(snapshot.problems)  # errors, each with its code
    findings += _single_card_rules(snapshot)
    findings += _duplicate_slugs(snapshot)
    findings += _card_links(snapshot)
    findings += _entries(snapshot)
    findings += _entry_lookalikes(snapshot)
    findings += _rules(snapshot)
    findings += _memory_budget(snapshot)
    findings += _languages(snapshot)
    findings += _conflicts(snapshot)
    findings += _merge_markers(snapshot)
    findings += tier_findings(snapshot)  # HOT tier parts over their limits (docs/scopes.md)
    findings += _strict_files(vault)
    texts = {snapshot.rel(c.path): c.file.text for c in snapshot.cards}
    texts.update({snapshot.rel(log.file.path): log.file.text for log in snapshot.logs})
    hot = tuple(snapshot.hot.values())
    # instruction-like text in cards, logs and hot memories (check/instructions.py)
    findings += _remembered_findings(snapshot, INSTRUCTIONS_FACT, texts, instruction_findings, hot)
    if secrets:
        extra = (snapshot.memory, snapshot.agents, *hot)
        findings += _remembered_findings(snapshot, SECRETS_FACT, texts, secret_findings, extra)
    return sorted(findings, key=lambda f: (f.path, f.line, f.code))


def _strict_files(vault: Vault) -> list[Finding]:
    """The forget records and the review queue: sync, maintain, forget and review read them
    strictly (a damaged one stops them at its line), so check names each problem they would
    stop at, as a clone may have received it (a symlink, bytes that are not text, a bad line)."""
    import os

    from cardvault.errors import CardFormatError
    from cardvault.vault.confine import leads_outside, symlink_message
    from cardvault.vault.decisions import parse_queue, queue_path
    from cardvault.vault.forgotten import FOLDER, record_files, record_refs
    from cardvault.vault.refresh import optional_file

    found: list[Finding] = []
    folder = vault.root / FOLDER
    if os.path.islink(folder):
        code = "outside-vault" if leads_outside(vault.root, folder) else "symlink"
        found.append(Finding(FOLDER, 1, symlink_message(str(folder), vault.root), code))
    readers: list[tuple[Path, Callable[[FileText], object]]] = [
        (path, record_refs) for path in record_files(vault.root)
    ]
    readers.append((queue_path(vault.root), lambda file: parse_queue(file.text, file.path)))
    for path, parse in readers:
        file = optional_file(vault, path, found)
        if file is None:
            continue
        try:
            parse(file)
        except CardFormatError as exc:
            found.append(Finding(vault.rel(path), exc.line or 1, exc.message, "unreadable"))
    return found


def _found(rel: str, items: Iterable[Sequence[Any]]) -> list[Finding]:
    return [Finding(rel, line, message, code, severity) for line, severity, code, message in items]


def _remembered_findings(
    snapshot: VaultSnapshot,
    fact: str,
    payloads: Mapping[str, Any],
    compute: Callable[[Any], list[Found]],
    extra: Iterable[FileText | None] = (),
) -> list[Finding]:
    """`compute`'s findings for each payload (kept in the catalog) and each `extra` file."""
    results = remembered(snapshot, fact, payloads, compute)
    found = [f for rel in payloads for f in _found(rel, results[rel])]
    for file in extra:
        if file is not None:
            found += _found(snapshot.rel(file.path), compute(file.text))
    return found


def _single_card_rules(snapshot: VaultSnapshot) -> list[Finding]:
    config = snapshot.vault.config
    cards = {snapshot.rel(c.path): c for c in snapshot.cards}
    found = _remembered_findings(snapshot, FACT, cards, lambda card: card_findings(card, config))
    return _budget_note(found, {rel for rel, card in cards.items() if not distilled(card.card)})


def _budget_note(found: list[Finding], curated: set[str]) -> list[Finding]:
    """The findings with the `card-budget` warnings of curated cards (written by hand or
    imported: their length is their author's) made one note, at the first of them."""
    over = [f for f in found if f.code == "card-budget" and f.path in curated]
    if not over:
        return found
    first = over[0]
    others = (
        f" ({len(over) - 1} more imported or hand-written cards are too)" if len(over) > 1 else ""
    )
    message = (
        f"{first.message}{others}; a note: maintenance holds to the budget only the cards it writes"
    )
    note = Finding(first.path, first.line, message, first.code, "note")
    noted = {id(f) for f in over}
    return [f for f in found if id(f) not in noted] + [note]


def _duplicate_slugs(snapshot: VaultSnapshot) -> list[Finding]:
    owners: dict[str, list[CardFile]] = defaultdict(list)
    for card in snapshot.cards:
        owners[card.slug].append(card)
    found = []
    for slug, cards in owners.items():
        if len(cards) > 1:
            places = ", ".join(snapshot.rel(c.path) for c in cards)
            message = f"slug '{slug}' is used by several files: {places}"
            found += [
                Finding(snapshot.rel(c.path), 1, message, "duplicate-slug", "error") for c in cards
            ]
    return found


def _card_links(snapshot: VaultSnapshot) -> list[Finding]:
    return [
        Finding(
            snapshot.rel(card.path),
            link.line,
            f"[[{link.target}]] links to no card",
            "broken-link",
            "error",
        )
        for card in snapshot.cards
        for link in card.links
        if link.key not in snapshot.names
    ]


def _entries(snapshot: VaultSnapshot) -> list[Finding]:
    """Per log entry: `→ card:` links to no card, a `## HH:MM` that is no time of day, and an
    id another entry of the log has (a heading copied in an editor: a citation of it names the
    first, until `maintain` gives the copy an id of its own)."""
    from cardvault.vault.daily import valid_time
    from cardvault.vault.links import link_key

    found = []
    for log in snapshot.logs:
        rel = snapshot.rel(log.file.path)
        first: dict[str, int] = {}
        for entry in log.entries:
            for slug in entry.card_links:
                if link_key(slug) not in snapshot.names:
                    line = _line_of(log.file.text, f"card: {slug}", entry.line)
                    shown = slug if len(slug) <= 80 else slug[:77] + "..."  # one line
                    message = f"→ card: {shown} names no card"
                    found.append(Finding(rel, line, message, "broken-link", "warning"))
            if entry.time and not valid_time(entry.time):
                message = f"entry time {entry.time} is not a time of day (00:00 to 23:59)"
                found.append(Finding(rel, entry.line, message, "entry-time", "error"))
            if entry.entry_id in first:
                message = (
                    f"entry id {entry.entry_id} is also the id of the entry at line "
                    f"{first[entry.entry_id]}; `cardvault maintain` gives this one an id of its own"
                )
                found.append(Finding(rel, entry.line, message, "entry-id", "warning"))
            elif entry.entry_id is not None:
                first[entry.entry_id] = entry.line
    return found


def _merge_markers(snapshot: VaultSnapshot) -> list[Finding]:
    """Lines git leaves in a file whose merge conflicted (`<<<<<<< ours`, `>>>>>>> theirs`),
    committed unresolved: outside code (a card about git may show them in a fence)."""
    import re

    from cardvault.vault.prose import masked_lines

    marker = re.compile(r"(?:<{7}|>{7})(?: |$)")
    message = (
        "an unresolved merge conflict (git's <<<<<<< / >>>>>>> lines): keep what should stay "
        "and delete the marker lines"
    )
    files = [c.file for c in snapshot.cards] + [log.file for log in snapshot.logs]
    files += [f for f in (snapshot.memory, snapshot.agents) if f is not None]
    found = []
    for file in files:
        if "<<<<<<<" not in file.text and ">>>>>>>" not in file.text:
            continue  # the markdown parse below only for the files that may hold one
        for number, line in enumerate(masked_lines(file.text), start=1):
            if marker.match(line):
                found.append(Finding(snapshot.rel(file.path), number, message, "merge-marker"))
    return found


def _entry_lookalikes(snapshot: VaultSnapshot) -> list[Finding]:
    """Lines of a log meant as entry headings that are none (`##10:00 Standup`: no space):
    what follows them, lessons too, is read as part of the entry above (or of none); and text
    before the first entry, which is in none."""
    from bisect import bisect_right

    from cardvault.vault.daily import entry_lookalikes, text_before_entries

    found = []
    outside = (
        "text before the first entry (`## HH:MM — Title`) is in no entry: maintenance never "
        "distills a lesson written there"
    )
    for log in snapshot.logs:
        rel = snapshot.rel(log.file.path)
        before = text_before_entries(log.file.text, log.entries)
        if before is not None:
            found.append(Finding(rel, before, outside, "outside-entry", "warning"))
        lines = log.file.text.split("\n")
        starts = [entry.line for entry in log.entries]
        for number in entry_lookalikes(log.file.text, log.entries):
            above = bisect_right(starts, number) - 1
            owner = (
                f"the entry at line {starts[above]} ({log.entries[above].time})"
                if above >= 0
                else "no entry"
            )
            shown = lines[number - 1].strip()
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            message = (
                f"'{shown}' is not an entry heading (write `## HH:MM — Title`): the lines under "
                f"it are read as part of {owner}"
            )
            found.append(Finding(rel, number, message, "entry-heading", "warning"))
    return found


def _rules(snapshot: VaultSnapshot) -> list[Finding]:
    """AGENTS.md: a broken rules section, and rules citing a card that does not exist."""
    rel = snapshot.rel(snapshot.vault.agents_md)
    problem = snapshot.rule_problem
    if problem is not None:
        return [Finding(rel, problem.line or 1, problem.message, "rules", "error")]
    paths = {snapshot.rel(card.path) for card in snapshot.cards}
    return [
        Finding(
            rel, rule.line, f"rule cites {cited}, which does not exist", "broken-link", "warning"
        )
        for rule in snapshot.rules
        for cited in rule.cites
        if cited not in paths
    ]


def _memory_budget(snapshot: VaultSnapshot) -> list[Finding]:
    vault = snapshot.vault
    rel = snapshot.rel(vault.memory_md)
    if snapshot.memory is None:
        if any(p.path == rel for p in snapshot.problems):
            return []
        message = "MEMORY.md is missing (the index loaded every session)"
        return [Finding(rel, 1, message, "missing", "warning")]
    size = len(snapshot.memory.text.encode("utf-8"))
    budget = vault.config.memory_byte_budget
    if size <= budget:
        return []
    message = f"MEMORY.md is {size} bytes, over its budget of {budget}"
    return [Finding(rel, 1, message, "memory-budget", "error")]


def _languages(snapshot: VaultSnapshot) -> list[Finding]:
    """One line for all the cards in a language the search model does not read."""
    from cardvault.search.vectors import unread_languages, unread_notice

    vault = snapshot.vault
    notice = unread_notice(vault, unread_languages(vault, (c.card for c in snapshot.live)))
    rel = snapshot.rel(vault.cards_dir)
    return [] if notice is None else [Finding(rel, 0, notice, "language", "warning")]


def _conflicts(snapshot: VaultSnapshot) -> list[Finding]:
    """Live cards that contradict each other ("always use X" / "never use X"), lexically."""
    live = {snapshot.rel(c.path): c for c in snapshot.live}
    stored = remembered(
        snapshot, CLAIMS_FACT, {rel: c.card.body for rel, c in live.items()}, _claims_json
    )
    named = [(rel, [Claim(v, tuple(o), p, s) for v, o, p, s in stored[rel]]) for rel in live]
    found = []
    for left, right, pair in conflicting_claims(named):
        for (rel, mine), (other, theirs) in (
            ((left, pair.first), (right, pair.second)),
            ((right, pair.second), (left, pair.first)),
        ):
            card = live[rel]
            line = _line_of(card.file.text, mine.sentence[:40], card.card.body_line)
            message = f'contradicts {other}: "{mine.sentence}" vs "{theirs.sentence}"'
            found.append(Finding(rel, line, message, "conflict", "warning"))
    return found


def _claims_json(body: str) -> list[list[object]]:
    from cardvault.maintain.contradict import claims

    return [[c.verb, list(c.obj), c.polarity, c.sentence] for c in claims(body)]


def _line_of(text: str, needle: str, after_line: int) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if number >= after_line and needle in line:
            return number
    return after_line
