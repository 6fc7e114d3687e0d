"""`cardvault forget`: remove a topic from the vault everywhere, in one revertible commit.

`plan_forget` finds what would go and writes nothing: the cards the query names, the log lines
and entries that mention it (forget/logs.py), what refers to them, and every card made only of
entries that go; it records the removed entries' ids (vault/forgotten.py, no text) so they stay
removed on every clone. Kept text that still names a forgotten card is listed, not edited.
`apply_forget` writes the plan only when, made again under the lock, it removes exactly what
was shown.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace
from pathlib import Path

from cardvault import history
from cardvault.edits.changes import Change, DeleteFile, WriteFile, reason_lines
from cardvault.edits.proposal import Planned, Proposal, Written, propose
from cardvault.edits.recover import Recovery
from cardvault.errors import CardFormatError, CardvaultError
from cardvault.forget.logs import LogCut, Needles, content_sources, cut_logs, words
from cardvault.vault.card import Card
from cardvault.vault.decisions import QUEUE_FILE, Member, parse_queue, queue_path
from cardvault.vault.files import ABSENT, FileText, read_if_present
from cardvault.vault.forgotten import FOLDER, record_path, record_text, recordable
from cardvault.vault.layout import Vault
from cardvault.vault.links import unlink
from cardvault.vault.read import VaultSnapshot, read_vault

# Words, numbers, slugs: a piece mixing letters and digits is short (`k8s`, `x86-64`, `s3`).
_PLAIN_WORD = re.compile(
    r"(?:[A-Za-z]+|\d+|[a-z0-9]{1,6})(?:[-'._/][A-Za-z]+|-\d+|-[a-z0-9]{1,6})*"
)


def shown_query(query: str) -> str:
    """A forget query as messages and the commit name it: quoted when it is plain words or a
    slug, else a stand-in (a bare leaked password looks like nothing the guard knows)."""
    from cardvault import guard

    query = query.strip()
    plain = all(_PLAIN_WORD.fullmatch(word) for word in query.split())
    if not plain or guard.scan_text(query):
        return "(query not shown: it may be a secret)"
    return f'"{query}"'


@dataclass(frozen=True)
class ForgottenCard:
    """A card that would go, with the text (and digest) it was read from."""

    file: FileText
    card: Card
    rel: str


@dataclass(frozen=True)
class ForgetPlan:
    """Everything `forget` would remove, and where the topic would still be mentioned."""

    query: str
    matched_by: str  # "slug" | "topic" | "body" | "none"
    cards: tuple[ForgottenCard, ...]
    logs: tuple[LogCut, ...]
    rules: tuple[str, ...]  # AGENTS.md rule lines that would go
    agents: WriteFile | None
    memory: WriteFile | None  # MEMORY.md's categories table without the forgotten cards
    mentions: tuple[str, ...]  # "path:line" of kept text that still names a forgotten card
    unlinked: tuple[WriteFile, ...] = ()  # kept cards whose [[links]] to them become plain text
    unreadable: tuple[str, ...] = ()  # cards that could not be read, so were not searched
    questions: tuple[str, ...] = ()  # ids of the review questions that would go
    review: WriteFile | None = None  # memory/review.jsonl without their lines
    record: WriteFile | None = None  # memory/forgotten/<day>-<id>.txt: the entries' ids
    made_of: tuple[str, ...] = ()  # cards taken because each of their sources goes
    day: dt.date | None = None  # the day it was planned for (the record's name; the re-plan's)

    @property
    def empty(self) -> bool:
        return not (self.cards or self.logs or self.rules)

    @property
    def log_lines(self) -> int:
        return sum(len(cut.removed) for cut in self.logs)

    def changes(self) -> list[Change]:
        """The file changes that carry the plan out."""
        out: list[Change] = [
            DeleteFile(c.file.path, c.file.digest, f"removed card {c.rel}", "forget", 1)
            for c in self.cards
        ]
        for cut in self.logs:
            if cut.new_text is None:
                out.append(DeleteFile(cut.file.path, cut.file.digest, cut.reason, "forget"))
            else:
                out.append(
                    WriteFile(cut.file.path, cut.new_text, cut.file.digest, cut.reason, "forget")
                )
        out.extend(self.unlinked)
        others = (self.agents, self.memory, self.review, self.record)
        out.extend(c for c in others if c is not None)
        return out


@dataclass(frozen=True)
class ForgetResult:
    """The commit that recorded the removal and what happened to the search index."""

    plan: ForgetPlan
    commit: history.CommitResult
    index_note: str | None


def match_cards(cards: list[ForgottenCard], query: str) -> tuple[list[ForgottenCard], str]:
    """The cards `query` names, and how they matched (see the module docstring)."""
    name = query.strip()
    exact = [c for c in cards if c.card.slug == name or name in c.card.aliases]
    if exact:
        return exact, "slug"
    wanted = words(query)
    if not wanted:
        return [], "none"
    about = [
        c for c in cards if wanted <= words(" ".join((c.card.topic, c.card.slug, *c.card.tags)))
    ]
    if about:
        return about, "topic"
    body = [c for c in cards if wanted <= words(c.card.body)]
    return body, ("body" if body else "none")


def plan_forget(
    vault: Vault, query: str, today: dt.date | None = None, record_at: Path | None = None
) -> ForgetPlan:
    """What forgetting `query` would remove. `record_at`: the record's path the plan shown
    named, kept when still free."""
    if not query.strip():
        raise CardvaultError("forget needs a slug or some words naming the topic")
    snapshot = read_vault(vault, verify=True)
    cards = cards_of(snapshot)
    chosen, how = match_cards(cards, query)
    cited = content_sources(snapshot, [c.card for c in chosen])
    needles = Needles.of(query, [c.card for c in chosen], how == "slug", cited)
    day = today or dt.date.today()
    plan = plan_removal(vault, snapshot, chosen, needles, day)
    refs = {ref for cut in plan.logs for ref in cut.refs}
    refs.update(source for c in plan.cards for source in c.card.sources)
    record = _record(vault, refs, day, record_at)
    return replace(plan, query=query.strip(), matched_by=how, record=record, day=day)


def cards_of(snapshot: VaultSnapshot) -> list[ForgottenCard]:
    """Every card of the snapshot, live and archived, as forget weighs them."""
    return [ForgottenCard(c.file, c.card, snapshot.rel(c.path)) for c in snapshot.cards]


def plan_removal(
    vault: Vault,
    snapshot: VaultSnapshot,
    chosen: list[ForgottenCard],
    needles: Needles,
    today: dt.date,
) -> ForgetPlan:
    """The removal of the `chosen` cards, the log lines `needles` finds and every card made
    only of entries that go, with what they leave behind. No query, no record."""
    cards = cards_of(snapshot)
    logs = cut_logs(snapshot, needles)
    going = {ref for cut in logs for ref in cut.refs} | needles.sources
    picked = {c.file.path for c in chosen}
    made_of = [c for c in cards if c.file.path not in picked and _made_of(c, going)]
    chosen = [*chosen, *made_of]
    rules, agents = _rule_cut(snapshot, chosen)
    gone = {c.file.path for c in chosen}
    unlinked = _unlinked(snapshot, chosen, gone)
    memory = _memory_table(snapshot, chosen, unlinked, today)
    kept = [c for c in cards if c.file.path not in gone]
    questions, review = _review_cut(vault, chosen, needles)
    return ForgetPlan(
        query="",
        matched_by="none",
        cards=tuple(chosen),
        logs=tuple(logs),
        rules=tuple(rules),
        agents=agents,
        memory=memory,
        mentions=(
            *_mentions(kept, unlinked, needles, snapshot, memory),
            *(c.rel for c in kept if set(c.card.sources) & going),  # holds a lesson that goes
        ),
        unlinked=tuple(unlinked),
        unreadable=tuple(
            str(p)
            for p in snapshot.problems
            if p.path.startswith(("memory/cards/", "memory/archive/"))
        ),
        questions=questions,
        review=review,
        made_of=tuple(c.rel for c in made_of),
    )


def _made_of(candidate: ForgottenCard, going: set[str] | frozenset[str]) -> bool:
    """Whether each of the card's sources goes and each sighting (`seen`) came from one: a card
    `new` wrote that maintain folded an entry into holds a lesson no entry does."""
    sources = candidate.card.sources
    cited = bool(sources) and all(source in going for source in sources)
    return cited and candidate.card.seen <= len(sources)


def _record(
    vault: Vault, refs: set[str], today: dt.date, at: Path | None = None
) -> WriteFile | None:
    """The forget's record of the ids of the entries it removes (None when none has one)."""
    kept = recordable(refs)
    if not kept:
        return None
    path = at if at is not None and not at.exists() else record_path(vault.root, today)
    reason = f"recorded {len(kept)} forgotten entry id(s) in {FOLDER}/{path.name}"
    return WriteFile(path, record_text(kept), ABSENT, reason, "forget")


def _review_cut(
    vault: Vault, cards: list[ForgottenCard], needles: Needles
) -> tuple[tuple[str, ...], WriteFile | None]:
    """The review questions about what goes, and the queue without their lines (a line that
    does not parse is kept: `check` names it).
    """
    path = queue_path(vault.root)
    found = read_if_present(path, vault.root)
    if found is None:
        return (), None
    rels = {c.rel for c in cards}
    kept, gone = [], []
    for line in found.text.split("\n"):
        try:
            items = parse_queue(line, path) if line.strip() else []
        except CardFormatError:
            items = []
        members = [m for item in items for m in item.members]
        if any(_about(m, rels, needles) for m in members):
            gone.append(items[0].id)
        else:
            kept.append(line)
    if not gone:
        return (), None
    reason = f"removed {len(gone)} review question(s) from {QUEUE_FILE}"
    text = "\n".join(kept)
    return tuple(dict.fromkeys(gone)), WriteFile(path, text, found.digest, reason, "forget")


def _about(member: Member, rels: set[str], needles: Needles) -> bool:
    """Whether a review member is a forgotten card, an entry one cites, or names the topic."""
    if {member.key, member.path, member.card or ""} & rels:
        return True
    if member.source is not None and member.source in needles.sources:
        return True
    return needles.mentions(member.text)


def _rule_cut(
    snapshot: VaultSnapshot, cards: list[ForgottenCard]
) -> tuple[list[str], WriteFile | None]:
    """Rules of AGENTS.md that cite a forgotten card, and AGENTS.md without their lines."""
    agents = snapshot.agents
    cited = {c.rel for c in cards}
    gone = [rule for rule in snapshot.rules if cited & set(rule.cites)]
    if agents is None or not gone:
        return [], None
    lines = agents.text.split("\n")
    drop = {rule.line - 1 + offset for rule in gone for offset in range(len(rule.text.split("\n")))}
    text = "\n".join(line for number, line in enumerate(lines) if number not in drop)
    reason = f"removed {len(gone)} rule line(s) from AGENTS.md"
    write = WriteFile(agents.path, text, agents.digest, reason, "forget")
    return [rule.text for rule in gone], write


def _unlinked(
    snapshot: VaultSnapshot, cards: list[ForgottenCard], gone: set[Path]
) -> list[WriteFile]:
    """Kept cards with wiki-links to a forgotten card, those links turned into plain text."""
    slugs = {c.card.slug for c in cards}
    changes = []
    for card in snapshot.cards:
        if card.path in gone:
            continue
        keys = {link.key for link in card.links if snapshot.names.get(link.key) in slugs}
        if keys:
            text = unlink(card.file.text, keys)
            reason = f"unlinked {', '.join(sorted(keys))} in {snapshot.rel(card.path)}"
            changes.append(WriteFile(card.path, text, card.file.digest, reason, "forget"))
    return changes


def _memory_table(
    snapshot: VaultSnapshot, cards: list[ForgottenCard], unlinked: list[WriteFile], today: dt.date
) -> WriteFile | None:
    """MEMORY.md's categories table as `maintain` makes it once the cards are gone (the door
    adds this write to any removal of cards: edits/derived.py), shown in the plan."""
    if not cards or snapshot.memory is None:
        return None
    from cardvault.maintain import memory_index
    from cardvault.maintain.state import state_of

    gone: list[Change] = [DeleteFile(c.file.path, c.file.digest, "", "forget") for c in cards]
    after = state_of(snapshot, today).after([*gone, *unlinked])
    writes = [
        c for c in memory_index.step(after, snapshot.vault.config) if isinstance(c, WriteFile)
    ]
    return writes[0] if writes else None


def _mentions(
    kept: list[ForgottenCard],
    unlinked: list[WriteFile],
    needles: Needles,
    snapshot: VaultSnapshot,
    memory: WriteFile | None,
) -> list[str]:
    texts = {change.path: change.new_text for change in unlinked}
    files = [(c.file.path, texts.get(c.file.path, c.file.text)) for c in kept]
    if memory is not None:
        files.append((memory.path, memory.new_text))
    elif snapshot.memory is not None:
        files.append((snapshot.memory.path, snapshot.memory.text))
    found = []
    for path, text in files:
        if not needles.names_card(text):  # one search per file; lines only where it names one
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if needles.names_card(line):
                found.append(f"{snapshot.rel(path)}:{number}")
    return found


def commit_message(plan: ForgetPlan) -> str:
    """Subject and body of the forget commit; it names places, never the removed text."""
    counts = f"{len(plan.cards)} card(s), {plan.log_lines} log line(s) removed"
    subject = f"forget: {shown_query(plan.query)}: {counts}; daily logs rewritten"
    why = [
        "Daily logs are append-only; forget rewrote them to remove what was asked.",
        "`git revert` of this commit brings everything back.",
    ]
    return message_of(subject, why, plan)


def message_of(subject: str, why: list[str], plan: ForgetPlan) -> str:
    """A commit message of `subject`, the `why` lines and the place of each change."""
    return "\n".join([subject, "", *why, "", *reason_lines(plan.changes())]) + "\n"


def removals(plan: ForgetPlan) -> tuple[object, ...]:
    """What a plan takes out, by content: two plans with the same removals forget the same
    thing, whatever else changed in the files."""
    logs = tuple((cut.rel, tuple(text for _, text in cut.removed_lines())) for cut in plan.logs)
    unlinked = tuple(str(change.path) for change in plan.unlinked)
    return (tuple(c.rel for c in plan.cards), logs, plan.rules, unlinked, plan.questions)


def resumed_forget(recovery: Recovery, query: str) -> bool:
    """Whether `recovery` finished a forget of `query` that a killed process left."""
    subject = f"forget: {shown_query(query)}: "
    return recovery.finished and (recovery.message or "").startswith(subject)


def apply_forget(vault: Vault, plan: ForgetPlan) -> Planned[ForgetPlan, ForgetResult]:
    """The plan's write, for the app to land, made again under the lock (module docstring);
    then the index catches up."""
    if plan.empty:
        raise CardvaultError(f"nothing in the vault matches {shown_query(plan.query)}")

    def proposal() -> Proposal[ForgetPlan]:
        shown = plan.record.path if plan.record is not None else None
        current = plan_forget(vault, plan.query, plan.day, shown)
        if removals(current) != removals(plan):
            raise CardvaultError(
                "the vault changed since this plan was made and forgetting now would remove "
                "something else; nothing was written (run forget again to see the new plan)"
            )
        return propose(current.changes(), commit_message(current), current)

    def result(written: Written[ForgetPlan]) -> ForgetResult:
        commit = written.commit or history.CommitResult(None, "", "nothing to commit")
        return ForgetResult(written.value, commit, drop_from_index(vault))

    return Planned(proposal, result)


def drop_from_index(vault: Vault) -> str | None:
    """Sync an existing search index (no model needed) so removed text is no longer found."""
    from cardvault.search.keyword import refresh_keywords

    try:
        done = refresh_keywords(vault)
    except Exception as exc:  # the index is a cache: a failure here must not undo the forget
        return f"search index not updated ({exc}); the next search catches up"
    if done is None:
        return None
    return f"search index updated ({done.removed_files} file(s) dropped, {done.parsed} re-read)"
