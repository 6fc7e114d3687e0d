"""Agents: their names, their hot memory, and what each one wrote.

Each agent has a hot memory, `memory/agents/NAME.md`: short fragments loaded in every `context
--agent NAME` and in no other agent's. When the file would pass `[agents] hot_tokens`, its
oldest fragments move to today's daily log as one entry of that agent, so nothing is lost and
the next maintenance can distill them.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from cardvault import history
from cardvault.edits.changes import Change, WriteFile
from cardvault.edits.proposal import Planned, Written, propose
from cardvault.errors import CardFormatError, CardvaultError
from cardvault.vault.config import VaultConfig
from cardvault.vault.daily import format_entry
from cardvault.vault.entry_ids import entries_by_ref
from cardvault.vault.files import ABSENT, ensure_within, read_if_present
from cardvault.vault.layout import Vault
from cardvault.vault.tokens import count_tokens

if TYPE_CHECKING:
    from cardvault.vault.read import VaultSnapshot

FRAGMENT = re.compile(r"^- \d{4}-\d{2}-\d{2} \d{2}:\d{2} ")


@dataclass(frozen=True)
class HotWrite:
    """What adding a fragment did: the file, fragments moved to the log, the commit."""

    path: str
    moved: int
    commit: history.CommitResult | None


def add_fragment(
    vault: Vault, text: str, now: dt.datetime, redact: bool = False
) -> Planned[None, HotWrite]:
    """Append `text` to the writing agent's hot memory (see the module docstring)."""
    from cardvault.write.add import screen

    name = vault.agent
    if not name:
        raise CardvaultError("hot memory belongs to an agent: pass --agent NAME")
    ensure_within(text, "the fragment", vault.config.max_entry_bytes)
    line = " ".join(text.split())
    if not line:
        raise CardFormatError("nothing to remember: the fragment is empty")
    path = vault.agents_dir / f"{name}.md"
    fragment = screen(f"- {now:%Y-%m-%d %H:%M} {line}", vault.rel(path), redact)
    moved: list[str] = []

    def plan() -> list[Change]:
        current = read_if_present(path, vault.root)
        before = (current.text if current else f"# Hot memory: {name}\n\n").rstrip("\n")
        last = before.rsplit("\n", 1)[-1]
        joiner = "\n" if FRAGMENT.match(last) or not last.strip() else "\n\n"
        kept, gone = bounded(before + joiner + fragment + "\n", vault.config)
        moved[:] = gone
        changes: list[Change] = [
            WriteFile(path, kept, current.digest if current else ABSENT, f"hot memory of {name}")
        ]
        if gone:
            changes.append(overflow_entry(vault, name, gone, now))
        return changes

    message = f"hot: {name}: {line[:60]}"

    def result(written: Written[None]) -> HotWrite:
        return HotWrite(vault.rel(path), len(moved), written.commit)

    return Planned(lambda: propose(plan(), message, None), result)


def bounded(text: str, cfg: VaultConfig) -> tuple[str, list[str]]:
    """`text` with its oldest fragments taken out until it fits `[agents] hot_tokens`, and the
    fragments taken out (oldest first). Lines that are not fragments always stay."""
    limit = cfg.agent_hot_tokens
    lines = text.splitlines()
    gone: list[str] = []
    while count_tokens("\n".join(lines)) > limit:
        oldest = next((i for i, line in enumerate(lines) if FRAGMENT.match(line)), None)
        if oldest is None or sum(1 for line in lines if FRAGMENT.match(line)) <= 1:
            break  # the newest fragment always stays; `check` reports a file still over
        gone.append(lines.pop(oldest))
    return "\n".join(lines) + "\n", gone


def overflow_entry(vault: Vault, name: str, fragments: list[str], now: dt.datetime) -> WriteFile:
    """Today's log with the fragments that left `name`'s hot memory appended as one entry."""
    from cardvault.write.add import Entry, entry_change

    body = "\n".join([*fragments, f"Agent: {name}"])
    time, heading = now.strftime("%H:%M"), f"Hot memory overflow ({name})"
    entry = Entry(now.date(), time, heading, format_entry(time, heading, body))
    reason = f"moved {len(fragments)} fragment(s) of {name}'s hot memory to the log"
    return entry_change(vault, entry, reason)


@dataclass(frozen=True)
class AgentSummary:
    """One agent as `cardvault agents` shows it."""

    name: str
    hot_tokens: int
    hot_limit: int
    entries: int
    lessons: int
    corrections: tuple[str, ...]  # refs of its structured corrections
    cards: int  # live cards it learned (sources or learned_by)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {**asdict(self), "corrections": list(self.corrections)}


def agent_summaries(snapshot: VaultSnapshot) -> list[AgentSummary]:
    """Every agent the vault knows of (a hot memory file, an attributed entry or card)."""
    from cardvault.maintain.promote import learners

    names = set(snapshot.hot)
    names.update(e.agent for e in snapshot.entries if e.agent)
    by_ref = entries_by_ref(snapshot.entries)
    learned = {c.slug: learners(c.card, by_ref) for c in snapshot.live}
    names.update(n for found in learned.values() for n in found)
    limit = snapshot.vault.config.agent_hot_tokens
    out = []
    for name in sorted(names):
        mine = [e for e in snapshot.entries if e.agent == name]
        hot = snapshot.hot.get(name)
        out.append(
            AgentSummary(
                name, count_tokens(hot.text) if hot else 0, limit, len(mine),
                sum(1 for e in mine if e.has_signal),
                tuple(e.ref for e in mine if e.is_correction),
                sum(1 for found in learned.values() if name in found),
            )
        )  # fmt: skip
    return out
