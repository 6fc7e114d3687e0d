"""`cardvault import`: bring an export's cards, rules and logs into a vault the way maintenance
merges cards, in one commit.

Each valid card ends skipped (a duplicate), new (no live card near it: written byte for byte at
its exported path), merged (folded into its nearest card at `merge_threshold`: fold.py) or
conflicting (the nearest card contradicts it: reported); docs/insight.md has the table. Imported
cards are compared with the vault's, never with each other, so an export imported into an empty
vault reproduces it exactly. Every text passes the secret guard.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from cardvault import history
from cardvault.edits.changes import Change, Report, WriteFile, reports
from cardvault.errors import CardFormatError, CardvaultError, ConcurrentEditError
from cardvault.maintain.state import CardFile, VaultState, state_of
from cardvault.portable.fold import STEP, Outcome, place
from cardvault.portable.format import ExportFile, ImportedCard, ImportedLog, problem
from cardvault.vault.card import Card
from cardvault.vault.daily import (
    LogEntry,
    appended_log_text,
    day_of,
    format_entry,
    parse_log,
)
from cardvault.vault.entry_ids import append_entries, clone_refs
from cardvault.vault.fields import IMPORTED, RULE
from cardvault.vault.files import ABSENT, ensure_within
from cardvault.vault.finding import Finding
from cardvault.vault.forgotten import forgotten_refs
from cardvault.vault.layout import Vault
from cardvault.vault.read import VaultSnapshot, read_vault
from cardvault.vault.rules import SECTION, Rule, parse_rules, rebuilt_section
from cardvault.vault.sections import get_section, set_section

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from cardvault.edits.proposal import Planned, Proposal, Written
    from cardvault.maintain.similarity import Embeddings
    from cardvault.vault.snapshot import LogFile

BODY_LINES = 1000  # commit-body lines listed; the rest are counted
KINDS = ("new", "merged", "skipped", "conflicting")


@dataclass(frozen=True)
class ImportPlan:
    """The outcomes, the changes that carry them out, and what could not be imported; `read`
    holds the digests of the vault the plan was made from."""

    outcomes: tuple[Outcome, ...]
    changes: tuple[Change, ...]
    problems: tuple[Finding, ...]
    log_entries: int  # daily-log entries added
    read: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    logs: int = 0  # daily logs written or added to

    def counts(self) -> dict[str, int]:
        """Cards per outcome, plus invalid items and log entries added."""
        data = {kind: sum(1 for o in self.outcomes if o.kind == kind) for kind in KINDS}
        data["invalid"] = len(self.problems)
        data["log_entries"] = self.log_entries
        data["logs"] = self.logs
        return data

    @property
    def reports(self) -> list[Report]:
        """What the import found for a person (conflicts), in order."""
        return reports(list(self.changes))

    def summary(self) -> str:
        c = self.counts()
        logs = f", {self.logs} daily log(s)" if self.logs else ""
        return (
            f"{c['new']} new, {c['merged']} merged, {c['skipped']} skipped, "
            f"{c['conflicting']} conflicting{logs}"
        )


def plan_import(
    vault: Vault,
    export: ExportFile,
    today: dt.date,
    redact: bool = False,
    embeddings: Embeddings | None = None,
) -> ImportPlan:
    """What importing `export` would do; the model loads only when some card is neither a
    duplicate nor going into a vault without live cards."""
    problems = list(export.problems)
    snapshot = read_vault(vault, verify=True)
    state = state_of(snapshot, today)
    forgotten = forgotten_refs(vault.root)
    outcomes, pending = _duplicates(state, export.cards, forgotten)
    pending = [c for c in (_screened(vault, item, redact, problems) for item in pending) if c]
    nearest = _nearest(state, pending, embeddings)
    if nearest and embeddings is None:
        embeddings = nearest[1]
    current = state if embeddings is None else replace(state, embeddings=embeddings)
    changes: list[Change] = []
    taken = set(state.taken)
    for item in pending:
        match = nearest[0].get(item.index) if nearest else None
        made, outcome = place(current, item, match, taken)
        outcomes.append(outcome)
        changes.extend(made)
        if outcome.kind == "merged":
            current = current.after(made)
    promoted = [c for c in changes if isinstance(c, WriteFile) and c.creates and _promoted(c)]
    log_changes, added = _log_changes(snapshot, export.logs, redact, problems, forgotten)
    rules = _screened_rules(export.rules, redact, problems)
    changes += log_changes + _rule_changes(current.after(promoted), rules, changes)
    outcomes.sort(key=lambda o: o.index)
    return ImportPlan(
        tuple(outcomes),
        tuple(changes),
        tuple(problems),
        added,
        dict(snapshot.digests),
        logs=len(log_changes),
    )


def _promoted(change: WriteFile) -> bool:
    """Whether a new card's text says `status: promoted` (its rule then goes to AGENTS.md)."""
    return re.search(r"(?m)^status:\s*promoted\s*$", change.new_text) is not None


def same_content(left: Card, right: Card) -> bool:
    """Same frontmatter and body, ignoring blank lines around it and the `imported` date (so
    importing the same notes again is no change)."""

    def meta(card: Card) -> dict[str, Any]:
        return {k: v for k, v in card.meta.items() if k != IMPORTED}

    return meta(left) == meta(right) and left.body.strip() == right.body.strip()


def _duplicates(
    state: VaultState, cards: tuple[ImportedCard, ...], forgotten: frozenset[str]
) -> tuple[list[Outcome], list[ImportedCard]]:
    """Skipped outcomes for duplicates and for cards made only of forgotten entries (forgotten
    stays forgotten); the remaining cards in file order."""
    texts = {c.file.text: c for c in state.cards}
    slugs = {c.slug: c for c in state.cards}
    seen: set[str] = set()
    skipped: list[Outcome] = []
    rest: list[ImportedCard] = []
    for item in cards:
        twin = texts.get(item.text) or slugs.get(item.card.slug)
        sources = item.card.sources
        why = ""
        if sources and all(source in forgotten for source in sources):
            why = "made only of forgotten entries"
        elif twin is not None and (
            twin.file.text == item.text or same_content(twin.card, item.card)
        ):
            why = f"same as {state.vault.rel(twin.path)}"
        elif item.text in seen:
            why = "repeated in the file"
        if why:
            skipped.append(Outcome(item.index, item.rel, "skipped", why))
        else:
            rest.append(item)
        seen.add(item.text)
    return skipped, rest


def _screened(
    vault: Vault, item: ImportedCard, redact: bool, problems: list[Finding]
) -> ImportedCard | None:
    """The card after the secret guard, or None with a problem; its file name too, since a slug
    that is a key would put the key in git for good."""
    from cardvault.vault.card import parse_card
    from cardvault.write.add import screen_card

    where = f"card {item.index}"
    try:
        rel = _screened_path(item.rel, redact)
        where = f"card {item.index} ({rel})"
        text = screen_card(item.text, rel, redact)
        if text == item.text and rel == item.rel:
            return item
        card = parse_card(text, vault.root / rel)
    except CardvaultError as exc:
        problems.append(problem(where, str(exc)))
        return None
    return ImportedCard(item.index, rel, card)


def _screened_path(rel: str, redact: bool) -> str:
    """`rel`, or with --redact the same folder and a slug made of the redacted name."""
    from cardvault import guard
    from cardvault.errors import SecretFoundError
    from cardvault.vault.slugs import slugify

    folder, _, name = rel.rpartition("/")
    found = guard.scan_text(rel)
    random = [word for word in name.removesuffix(".md").split("-") if guard.looks_random(word)]
    if not found and not random:
        return rel
    if not redact:
        kind = found[0].kind if found else "a random token, like a key"
        raise SecretFoundError(f"its file name holds a secret ({kind}); the value is not shown")
    return f"{folder}/{slugify(name.removesuffix('.md'))}.md"


def _nearest(
    state: VaultState, pending: list[ImportedCard], embeddings: Embeddings | None
) -> tuple[dict[int, tuple[CardFile, float]], Embeddings] | None:
    """For each live-bound card, the vault's nearest live card at or above the threshold."""
    live = state.live
    candidates = [c for c in pending if c.rel.startswith("memory/cards/")]
    if not live or not candidates:
        return None
    from cardvault.maintain.similarity import Embeddings, card_text

    embeddings = embeddings or Embeddings(state.vault)
    incoming = embeddings.vectors([card_text(c.card) for c in candidates])
    scores = incoming @ embeddings.vectors([card_text(c.card) for c in live]).T
    threshold = state.constants.merge_threshold
    found: dict[int, tuple[CardFile, float]] = {}
    for row, item in enumerate(candidates):
        best = int(scores[row].argmax())
        if float(scores[row, best]) >= threshold:
            found[item.index] = (live[best], float(scores[row, best]))
    return found, embeddings


def _screened_rules(
    rules: tuple[str, ...], redact: bool, problems: list[Finding]
) -> tuple[str, ...]:
    from cardvault.write.add import screen

    kept = []
    for number, rule in enumerate(rules, start=1):
        try:
            kept.append(screen(rule, "AGENTS.md", redact))
        except CardvaultError as exc:
            problems.append(problem(f"rule {number}", exc.message))
    return tuple(kept)


def _log_changes(
    snapshot: VaultSnapshot,
    logs: tuple[ImportedLog, ...],
    redact: bool,
    problems: list[Finding],
    forgotten: frozenset[str],
) -> tuple[list[Change], int]:
    """New daily logs written whole; to existing ones, the entries they lack and the text before
    the first entry when they lack it; with the number of entries added."""
    existing = {snapshot.rel(log.file.path): log for log in snapshot.logs}
    changes: list[Change] = []
    added = 0
    for log in logs:
        made = _log_change(snapshot, existing.get(log.rel), log, redact, forgotten)
        if isinstance(made, str):
            problems.append(problem(f"log {log.index} ({log.rel})", made))
        elif made is not None:
            changes.append(made[0])
            added += made[1]
    return changes, added


def _log_change(
    snapshot: VaultSnapshot,
    current: LogFile | None,
    log: ImportedLog,
    redact: bool,
    forgotten: frozenset[str],
) -> tuple[WriteFile, int] | str | None:
    """One log's write (`current`: the vault's log of that day) and its entries added, what
    keeps it out, or None: nothing to add. A forgotten entry (by its id, or the id maintain
    would give it: vault/entry_ids.clone_refs) is never brought back."""
    from cardvault.write.add import screen

    vault = snapshot.vault
    path = vault.root / log.rel
    try:
        text = screen(log.text, log.rel, redact)
        incoming = parse_log(text, path, vault.config.signal_words)
    except CardvaultError as exc:
        return str(exc)
    except ValueError:  # a name shaped like a date that is not one (2026-02-30.md)
        return "log file name is not a valid date"
    try:
        for entry in incoming:
            what = f"line {entry.line}: entry"
            ensure_within(entry.title + entry.body, what, vault.config.max_entry_bytes)
    except CardFormatError as exc:
        return exc.message
    ids = clone_refs(incoming, text, path)  # the id each has on every clone
    kept = [  # a forgotten entry is left out as a duplicate is
        entry
        for entry in incoming
        if entry.ref not in forgotten and ids.get(entry.position_ref) not in forgotten
    ]
    if incoming and not kept:
        return None
    if log.rel in snapshot.partial:
        return "the vault's log is too big to add to"
    if current is None and not os.path.lexists(path) and len(kept) == len(incoming):
        return WriteFile(path, text, ABSENT, f"imported {log.rel}", STEP), len(incoming)
    if current is None and os.path.lexists(path):  # unusable: `check` reports it
        return "the vault's log is unreadable"
    new_text: str | None = current.file.text if current is not None else None
    have = {_entry_key(e) for e in current.entries} if current is not None else set()
    texts = [
        format_entry(entry.time, entry.title, entry.body, entry.entry_id)
        for entry in kept
        if _entry_key(entry) not in have
    ]
    before = _text_before_entries(text, incoming)
    lead = bool(before) and (new_text is None or before not in new_text)
    if lead:
        new_text = appended_log_text(new_text, day_of(path), before + "\n")
    if texts:
        new_text = append_entries(new_text, day_of(path), texts)
    if new_text is None or (current is not None and new_text == current.file.text):
        return None
    what = f"{len(texts)} entr{'y' if len(texts) == 1 else 'ies'}"
    reason = f"appended {'the text before its entries and ' if lead else ''}{what} to {log.rel}"
    digest = current.file.digest if current is not None else ABSENT
    return WriteFile(path, new_text, digest, reason, STEP), len(texts)


def _text_before_entries(text: str, entries: list[LogEntry]) -> str:
    lines = text.split("\n")
    stop = entries[0].line - 1 if entries else len(lines)
    return "\n".join(lines[:stop]).strip("\n")


def _entry_key(entry: Any) -> tuple[str, str, str]:
    return entry.time, entry.title, entry.body.strip()


def _rule_changes(state: VaultState, rules: tuple[str, ...], changes: list[Change]) -> list[Change]:
    """Rules to add to AGENTS.md: the file's hand-written ones, and those of promoted cards this
    import wrote (the file's rule for the card, else its `rule` key); present ones left alone."""
    from cardvault.maintain.promote import rule_line

    agents = state.agents
    section = get_section(agents.text, SECTION, agents.path) if agents else None
    present = parse_rules(section or "")
    given = {r.cites[-1]: r.said for r in (Rule(t, 0) for t in rules) if r.generated}
    hand = [r for r in rules if not Rule(r, 0).generated]
    promoted = []
    for change in changes:
        card = state.card_at(change.path) if isinstance(change, WriteFile) else None
        if card is None or card.card.status != "promoted":
            continue
        key = card.card.meta.get(RULE)
        rule = given.get(state.vault.rel(card.path)) or (key if isinstance(key, str) else "")
        if rule.strip():
            promoted.append(rule_line(state, card, rule))
    have = {rule.flat for rule in present}
    new = [r for r in dict.fromkeys([*hand, *promoted]) if Rule(r, 0).flat not in have]
    if not new:
        return []
    kept = [rule.text for rule in present if rule.generated]
    content = rebuilt_section(section, [*kept, *promoted], hand)
    base = agents.text if agents else "# AGENTS.md\n\n## Learned rules\n"
    text = set_section(base, SECTION, content, state.vault.agents_md)
    reason = f"AGENTS.md: added {len(new)} learned rule(s)"
    digest = agents.digest if agents else ABSENT
    return [WriteFile(state.vault.agents_md, text, digest, reason, STEP)]


def commit_message(plan: ImportPlan, source: str) -> str:
    """Subject with the counts; body with every action and every conflict."""
    from cardvault.edits.changes import reason_lines

    body = reason_lines(list(plan.changes))
    body += [f"conflict: {report.message}" for report in plan.reports]
    if plan.log_entries:
        body.append(
            f"{plan.log_entries} daily-log entr{'y' if plan.log_entries == 1 else 'ies'} added"
        )
    if len(body) > BODY_LINES:
        body = [*body[:BODY_LINES], f"… and {len(body) - BODY_LINES} more"]
    return f"import: {plan.summary()} from {source}\n\n" + "\n".join(body) + "\n"


@dataclass(frozen=True)
class ImportResult:
    """The plan carried out, its commit (None: nothing to write), and the door's notes."""

    plan: ImportPlan
    commit: history.CommitResult | None
    notes: tuple[str, ...] = ()


def apply_import(
    vault: Vault,
    plan: ImportPlan,
    source: str,
    replan: Callable[[], ImportPlan] | None = None,
) -> Planned[ImportPlan, ImportResult]:
    """The plan's write, for the app to land in one commit. The plan was made before the lock
    (to list its problems first), so under the lock it is checked against the vault: when
    anything it read changed, `replan` makes it again; without one, ConcurrentEditError."""
    from cardvault.edits.apply import check_unchanged
    from cardvault.edits.proposal import Planned, door_notes, propose

    def proposal() -> Proposal[ImportPlan]:
        current = plan
        try:
            check_unchanged(current.changes)
            _check_same_vault(vault, current)
        except ConcurrentEditError:
            if replan is None:
                raise
            current = replan()
        return propose(current.changes, commit_message(current, source), current)

    def result(written: Written[ImportPlan]) -> ImportResult:
        return ImportResult(written.value, written.commit, tuple(door_notes(written)))

    return Planned(proposal, result)


def _check_same_vault(vault: Vault, plan: ImportPlan) -> None:
    """Raise ConcurrentEditError when a card or log differs from those `plan` was made from: its
    outcomes hang on every card, not only on the files it writes."""
    if read_vault(vault).digests != plan.read:
        raise ConcurrentEditError(
            "the vault's cards or logs changed since the import was planned; nothing written",
            vault.root,
        )
