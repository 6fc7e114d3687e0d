"""`maintain --global`: a lesson found in several projects becomes one global card and rule.

The candidates are the live, non-private lessons of every registered project, each with its
rule (maintain/promote.py). Cards of *different* projects from `[global] threshold` (each
embedded in its own project's model) tell the same lesson unless they contradict. A group
spanning `[global] promote_projects` projects becomes one promoted global card and a rule line
in the global AGENTS.md: its `spokesman`'s lesson, citing every member whose rule says the same;
a group a global card already cites extends that card. The first global rule is asked instead
(`FIRST_RULE`), as is weaker evidence (crossasking.py). Planning only reads the projects.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardvault import history
from cardvault.edits.changes import Change, WriteFile, reason_lines
from cardvault.edits.proposal import Planned, Proposal, Written, propose
from cardvault.errors import CardvaultError
from cardvault.maintain import memory_index
from cardvault.maintain.asking import queue_changes
from cardvault.maintain.contradict import contradict
from cardvault.maintain.crossasking import Member, Weak, question
from cardvault.maintain.linkage import constrained_clusters
from cardvault.maintain.newcard import fallback
from cardvault.maintain.promote import lesson_rule, recorded_cards, rules_changes
from cardvault.maintain.state import CardFile, VaultState, load_state
from cardvault.scopes.registry import open_projects
from cardvault.vault import fields as f
from cardvault.vault.card import render_card, update_card_text
from cardvault.vault.decisions import KeptApart, ReviewItem, apart_pairs
from cardvault.vault.files import ABSENT
from cardvault.vault.layout import Vault
from cardvault.vault.links import unlink
from cardvault.vault.read import read_vault
from cardvault.vault.slugs import slugify, unique_slug

STEP = "global"
FIRST_RULE = "the first global rule (every project's sessions load it): asked, not written"


@dataclass(frozen=True)
class GlobalPlan:
    """What `maintain --global` would do."""

    changes: tuple[Change, ...]
    projects: tuple[str, ...]
    notices: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()

    @property
    def lines(self) -> list[str]:
        return reason_lines(list(self.changes))

    def message(self) -> str:
        subject = (
            f"maintain --global: {self.promoted} lesson(s) found in several projects "
            f"({len(self.projects)} project(s) read)"
        )
        if self.questions:
            subject += f", {len(self.questions)} question(s) for `review --global`"
        return subject + "\n\n" + "\n".join(self.lines) + "\n"

    @property
    def promoted(self) -> int:
        """Global cards made or extended."""
        return sum(c.tally for c in self.changes if isinstance(c, WriteFile) and c.step == STEP)


@dataclass(frozen=True)
class GlobalResult:
    """The plan and the commit that recorded it (None for a dry run or nothing to do)."""

    plan: GlobalPlan
    commit: history.CommitResult | None = None
    dry_run: bool = False


@dataclass
class _Found:
    members: list[Member] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    projects: list[str] = field(default_factory=list)


def run_global(
    global_vault: Vault, now: dt.datetime, dry_run: bool = False, embedder: Any = None
) -> GlobalResult | Planned[GlobalPlan, GlobalResult]:
    """The cross-project promotion: its plan with `dry_run`, else its write for the app."""
    if dry_run:
        return GlobalResult(plan_global(global_vault, now.date(), embedder), None, True)

    def proposal() -> Proposal[GlobalPlan]:
        plan = plan_global(global_vault, now.date(), embedder)
        return propose(plan.changes, plan.message(), plan)

    def result(written: Written[GlobalPlan]) -> GlobalResult:
        return GlobalResult(written.value, written.commit)

    return Planned(proposal, result)


def plan_global(global_vault: Vault, today: dt.date, embedder: Any = None) -> GlobalPlan:
    """The changes that make the global vault hold every lesson found in enough projects."""
    cfg = global_vault.config
    found = project_members(global_vault)
    state = load_state(global_vault, today)
    apart = apart_pairs(state.review_items)
    groups, weak = same_lessons(found.members, cfg.global_threshold,
                                cfg.global_review_threshold, embedder, apart)  # fmt: skip
    cited = _cited_by(state)
    first = not recorded_cards(state)  # no global rule yet: the first one is asked
    changes: list[Change] = []
    promoted: dict[Path, str] = {}
    for group in groups:
        projects = {m.project for m in group}
        extended = _extended(state, group, cited, today)
        if extended is not None:
            changes += extended
            continue
        if len(projects) < cfg.global_promote_projects:
            needed = f"found in {len(projects)} project(s), {cfg.global_promote_projects} needed"
            weak.append(Weak(tuple(group), None, needed))
            continue
        voice, agreeing = spokesman(group, cfg.global_threshold, embedder)
        if len({m.project for m in agreeing}) < cfg.global_promote_projects:
            weak.append(Weak(tuple(group), None, "the rules they would bring say different things"))
        elif first:
            weak.append(Weak(tuple(agreeing), None, FIRST_RULE))
        else:
            made = _new_global_card(state.after(changes), agreeing, today, voice)
            changes.append(made)
            promoted[made.path] = voice.rule
    after = state.after(changes)
    rules = rules_changes(after, promoted)
    changes += rules + memory_index.step(after.after(rules), cfg)
    open_ = [w for w in weak if not _settled(w, cited)]
    changes += queue_changes(state.after(changes), [question(w, today) for w in open_], STEP)
    questions = tuple(w.message for w in open_)
    return GlobalPlan(tuple(changes), tuple(found.projects), tuple(found.notices), questions)


def project_members(global_vault: Vault) -> _Found:
    """The live, non-private cards with a rule of every registered project on this machine."""
    from cardvault.vault.entry_ids import entries_by_ref

    found = _Found()
    vaults, found.notices = open_projects(global_vault)
    for key, vault in vaults:
        snapshot = read_vault(vault)
        found.projects.append(key)
        found.notices += [f"{key}: skipped {p}" for p in snapshot.problems]
        by_ref = entries_by_ref(snapshot.entries)
        recorded = {r.cites[-1]: r.said for r in snapshot.rules if r.generated and r.cites}
        for card in snapshot.live:
            if card.card.status == "archived" or card.card.meta.get(f.PRIVATE) is True:
                continue
            rel = snapshot.rel(card.path)
            rule = recorded.get(rel) or lesson_rule(card.card, by_ref)
            if rule:
                found.members.append(Member(key, card, rel, vault, rule))
    return found


def same_lessons(
    members: list[Member],
    threshold: float,
    review: float,
    embedder: Any,
    apart: KeptApart,
) -> tuple[list[list[Member]], list[Weak]]:
    """Groups of cards of different projects telling the same lesson, and the weaker pairs
    (from `review`); pairs in `apart` are neither grouped nor asked about."""
    if len({m.project for m in members}) < 2:
        return [], []
    from cardvault.maintain.similarity import pairs_above

    matrix = _vectors(members, embedder)
    certain: list[tuple[int, int, float]] = []
    weak: list[Weak] = []
    for i, j, score in pairs_above(matrix, review):
        left, right = members[i], members[j]
        if left.project == right.project or frozenset((left.cite, right.cite)) in apart:
            continue
        if contradict(left.card.card.body, right.card.card.body) is not None:
            continue
        if score >= threshold:
            certain.append((i, j, score))
        else:
            weak.append(Weak((left, right), round(score, 3), "similar, not certain"))

    def kept_apart(i: int, j: int) -> bool:
        return frozenset((members[i].cite, members[j].cite)) in apart

    groups = constrained_clusters(len(members), certain, kept_apart)
    joined = [[members[i] for i in g] for g in groups if len(g) > 1]
    together = {frozenset(m.cite for m in g) for g in joined}
    weak = [w for w in weak if not any({m.cite for m in w.members} <= g for g in together)]
    return joined, weak


def _vectors(members: list[Member], embedder: Any) -> Any:
    """One unit vector per member, each project's from its own index and model."""
    import numpy as np

    from cardvault.maintain.similarity import Embeddings, card_text

    by_project: dict[str, list[int]] = {}
    for index, member in enumerate(members):
        by_project.setdefault(member.project, []).append(index)
    rows: list[Any] = [None] * len(members)
    for indices in by_project.values():
        texts = [card_text(members[i].card.card) for i in indices]
        vectors = Embeddings(members[indices[0]].vault, embedder).vectors(texts)
        for index, vector in zip(indices, vectors, strict=True):
            rows[index] = vector
    return np.stack(rows).astype(np.float32)


def _cited_by(state: VaultState) -> dict[str, CardFile]:
    """Project-card citation -> the global card citing it."""
    return {s: card for card in state.live for s in card.card.sources if ":" in s}


def _settled(weak: Weak, cited: dict[str, CardFile]) -> bool:
    """Whether one global card already cites both cards of a weak pair."""
    owners = {cited[m.cite].slug for m in weak.members if m.cite in cited}
    return len(owners) == 1 and all(m.cite in cited for m in weak.members)


def spokesman(
    group: list[Member], threshold: float, embedder: Any = None
) -> tuple[Member, list[Member]]:
    """The member whose lesson and rule the global card takes, and the members whose rule says
    the same (from `threshold`, in each project's model): of the rules the most projects say,
    the one nearest all the others', then the most seen. `seen` is a card's own claim, so it
    may not make a pushed card speak for every project."""
    from cardvault.maintain.similarity import Embeddings

    rules = [m.rule for m in group]
    vectors: dict[str, Any] = {}  # project -> every rule's vector in that project's model
    for member in group:
        if member.project not in vectors:
            vectors[member.project] = Embeddings(member.vault, embedder).vectors(rules)
    chosen: tuple[Member, list[Member]] = (group[0], [group[0]])
    best: tuple[int, float, int, int, str] | None = None
    for a, voice in enumerate(group):
        near = {
            b: float(vectors[m.project][a] @ vectors[m.project][b])
            for b, m in enumerate(group)
            if b != a
        }
        agreeing = [m for b, m in enumerate(group) if b == a or near[b] >= threshold]
        card = voice.card.card
        # nearest the others before the most seen: a rule that copies another's and adds a
        # command still agrees with it, but is farther from the rest than they are
        central = round(sum(near.values()), 6)
        rank = (len({m.project for m in agreeing}), central, card.seen, len(card.body), voice.cite)
        if best is None or rank > best:
            best, chosen = rank, (voice, agreeing)
    return chosen


def _new_global_card(
    state: VaultState, group: list[Member], today: dt.date, voice: Member
) -> WriteFile:
    """The global card for a group: `voice`'s lesson (`spokesman`), citing every member."""
    card = voice.card.card
    projects = sorted({m.project for m in group})
    cfg = state.vault.config
    category = card.category if card.category in cfg.categories else fallback(cfg.categories)
    tags = sorted({t for m in group for t in m.card.card.tags})[:8]
    slug = unique_slug(slugify(card.topic), state.taken)
    meta: dict[str, Any] = {
        f.TOPIC: card.topic, f.CATEGORY: category, f.TAGS: tags,
        f.CREATED: today, f.UPDATED: today, f.STATUS: "promoted", f.PROMOTED: today,
        f.SEEN: len(projects), f.RULE: voice.rule,
        f.SOURCES: sorted(m.cite for m in group),
    }  # fmt: skip
    names = {link for m in group for link in (x.key for x in m.card.links)}
    cites = ", ".join(f"{m.project} ({m.rel})" for m in sorted(group, key=lambda m: m.cite))
    learned = f"Learned in {len(projects)} projects: {cites}."
    body = unlink(card.body.strip(), names) + "\n\n" + learned + "\n"
    path = state.vault.card_path(slug)
    reason = (
        f"global card {slug}: the same lesson in {len(projects)} projects ({', '.join(projects)})"
    )
    return WriteFile(path, render_card(meta, body), ABSENT, reason, STEP, 1)


def _extended(
    state: VaultState, group: list[Member], cited: dict[str, CardFile], today: dt.date
) -> list[Change] | None:
    """The global card citing some of the group, extended by the others (None: none cites)."""
    owner = next((cited[m.cite] for m in group if m.cite in cited), None)
    if owner is None:
        return None
    owner = state.card_at(owner.path) or owner
    known = list(owner.card.sources)
    new = sorted(m.cite for m in group if m.cite not in known)
    if not new:
        return []
    sources = [*known, *new]
    projects = {s.split(":", 1)[0] for s in sources if ":" in s}
    text = update_card_text(
        owner.file.text, {f.SOURCES: sources, f.SEEN: len(projects), f.UPDATED: today},
        path=owner.path,
    )  # fmt: skip
    reason = f"global card {owner.slug}: also found in {', '.join(new)}"
    return [WriteFile(owner.path, text, owner.file.digest, reason, STEP, 1)]


def promotion_by_answer(state: VaultState, item: ReviewItem) -> list[Change]:
    """The global card an accepted cross-project question makes or extends, its chosen members
    read again from their projects."""
    wanted = set(item.chosen or item.keys)
    group = [m for m in project_members(state.vault).members if m.cite in wanted]
    missing = sorted(wanted - {m.cite for m in group})
    if missing:
        raise CardvaultError(
            f"review item {item.id}: {', '.join(missing)} is no longer a live card of a "
            "registered project; reject the item or register the project again"
        )
    extended = _extended(state, group, _cited_by(state), state.today)
    if extended is not None:
        return extended
    # a person said they are one lesson; the rule is still the one most of them say
    voice, _ = spokesman(group, state.vault.config.global_threshold)
    made = _new_global_card(state, group, state.today, voice)
    return [made, *rules_changes(state.after([made]), {made.path: voice.rule})]
