"""`cardvault forget`: remove a topic from the vault everywhere, in one revertible commit.

`plan_forget(vault, query)` finds what would go and writes nothing:
- cards: the card whose slug or alias is exactly the query; otherwise the cards whose topic, slug
  or tags hold every word of the query; otherwise those whose body holds every word (keyword
  matching, whole words, any case), live and archived;
- daily-log lines that mention it (log_cuts.py): whole entries that a forgotten card cites in
  `sources`, that link to it (`→ card:`) or whose title mentions it, and single lines elsewhere;
- the rule lines in AGENTS.md's managed section that cite a forgotten card.
Other cards that still link to or name a forgotten card are listed, not edited.

`apply_forget` writes the plan through the one applier (all or nothing), records one commit whose
message says the daily logs were rewritten (they are otherwise append-only), and drops the
removed files from the search index. `git revert` of that commit restores every byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cardvault import history
from cardvault.card import Card, parse_card
from cardvault.errors import CardvaultError
from cardvault.forget_logs import LogCut, Needles, cut_logs
from cardvault.fsio import FileText, read_text
from cardvault.maintain.changes import Change, DeleteFile, WriteFile, reason_lines
from cardvault.sections import get_section, set_section
from cardvault.vault import Vault, iter_card_paths

_WORD = re.compile(r"\w+")


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
    mentions: tuple[str, ...]  # "path:line" of kept text that still names a forgotten card

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
        if self.agents is not None:
            out.append(self.agents)
        return out


@dataclass(frozen=True)
class ForgetResult:
    """The commit that recorded the removal and what happened to the search index."""

    plan: ForgetPlan
    commit: history.CommitResult
    index_note: str | None


def words(text: str) -> set[str]:
    """Lower-case whole words of `text` (hyphenated names split into their words)."""
    return {w.lower() for w in _WORD.findall(text)}


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


def plan_forget(vault: Vault, query: str) -> ForgetPlan:
    """What forgetting `query` would remove (nothing is written)."""
    if not query.strip():
        raise CardvaultError("forget needs a slug or some words naming the topic")
    cards = _read_cards(vault)
    chosen, how = match_cards(cards, query)
    needles = Needles.of(query, [c.card for c in chosen], exact=how == "slug")
    logs = cut_logs(vault, needles)
    rules, agents = _rule_cut(vault, chosen)
    gone = {c.file.path for c in chosen}
    kept = [c for c in cards if c.file.path not in gone]
    return ForgetPlan(
        query=query.strip(),
        matched_by=how,
        cards=tuple(chosen),
        logs=tuple(logs),
        rules=tuple(rules),
        agents=agents,
        mentions=tuple(_mentions(kept, needles, vault)),
    )


def _read_cards(vault: Vault) -> list[ForgottenCard]:
    found = []
    for archived in (False, True):
        for path in iter_card_paths(vault, archived=archived):
            try:
                file = read_text(path)
                found.append(ForgottenCard(file, parse_card(file.text, path), vault.rel(path)))
            except CardvaultError:
                continue  # `check` reports unreadable cards; forget never touches them
    return found


def _rule_cut(vault: Vault, cards: list[ForgottenCard]) -> tuple[list[str], WriteFile | None]:
    """Rule lines of AGENTS.md's managed section that cite a forgotten card, and the rewrite."""
    if not cards or not vault.agents_md.is_file():
        return [], None
    file = read_text(vault.agents_md)
    section = get_section(file.text, "rules", vault.agents_md)
    if not section:
        return [], None
    cited = tuple(c.rel for c in cards)
    lines = section.split("\n")
    gone = [line for line in lines if any(rel in line for rel in cited)]
    if not gone:
        return [], None
    kept = "\n".join(line for line in lines if line not in gone)
    text = set_section(file.text, "rules", kept, vault.agents_md)
    reason = f"removed {len(gone)} rule line(s) from AGENTS.md"
    return gone, WriteFile(vault.agents_md, text, file.digest, reason, "forget")


def _mentions(kept: list[ForgottenCard], needles: Needles, vault: Vault) -> list[str]:
    found = []
    files = [(c.file.path, c.file.text) for c in kept]
    if vault.memory_md.is_file():
        files.append((vault.memory_md, read_text(vault.memory_md).text))
    for path, text in files:
        for number, line in enumerate(text.splitlines(), start=1):
            if needles.names_card(line):
                found.append(f"{vault.rel(path)}:{number}")
    return found


def commit_message(plan: ForgetPlan, secret_query: bool) -> str:
    """Subject and body of the forget commit; it names places, never the removed text."""
    what = "(a query that looks like a secret)" if secret_query else f'"{plan.query}"'
    subject = (
        f"forget: {what}: {len(plan.cards)} card(s), {plan.log_lines} log line(s) removed; "
        "daily logs rewritten"
    )
    body = [
        "Daily logs are append-only; forget rewrote them to remove what was asked.",
        "`git revert` of this commit brings everything back.",
        "",
        *reason_lines(plan.changes()),
    ]
    return "\n".join([subject, "", *body]) + "\n"


def apply_forget(vault: Vault, plan: ForgetPlan) -> ForgetResult:
    """Carry the plan out: one all-or-nothing write, one commit, then the index catches up."""
    from cardvault import guard
    from cardvault.maintain.apply import apply_changes

    if plan.empty:
        raise CardvaultError(f"nothing in the vault matches '{plan.query}'")
    from cardvault.maintain.lock import vault_lock

    secret = bool(guard.scan_text(plan.query))
    with vault_lock(vault):
        paths = apply_changes(vault, plan.changes())
        result = history.commit(vault, commit_message(plan, secret), paths)
    return ForgetResult(plan, result, drop_from_index(vault))


def drop_from_index(vault: Vault) -> str | None:
    """Sync an existing search index (no model needed) so removed text is no longer found."""
    if not (vault.cache_dir / "search.sqlite").is_file():
        return None
    from cardvault.search.index import open_index
    from cardvault.search.sync import sync_index

    try:
        index = open_index(vault.cache_dir)
        try:
            report = sync_index(vault, index, None)
        finally:
            index.close()
    except Exception as exc:  # the index is a cache: a failure here must not undo the forget
        return f"search index not updated ({exc}); the next search catches up"
    return f"search index updated ({report.removed_files} file(s) dropped, {report.parsed} re-read)"
