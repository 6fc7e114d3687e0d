"""Tiers: how much of a vault is loaded when, measured against the limits in cardvault.toml.

HOT is always loaded by `context` (MEMORY.md, AGENTS.md's learned rules, the agent's hot
memory), WARM when a task matches (the live cards, each within its budget), COLD only on
request (the archived cards, no limit).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from cardvault.vault.finding import Finding
from cardvault.vault.read import VaultSnapshot
from cardvault.vault.tokens import count_tokens

HOT, WARM, COLD = "HOT", "WARM", "COLD"


@dataclass(frozen=True)
class TierPart:
    """One part of a tier: its size against its limit (None: no limit) in `unit`."""

    tier: str
    part: str  # "MEMORY.md", "rules", "agent NAME", "cards", "archive"
    path: str  # the file or folder it measures
    size: int
    limit: int | None
    unit: str  # "bytes" or "tokens"
    items: int = 1  # files (cards) it holds
    over_items: int = 0  # WARM: cards over the card budget

    @property
    def over(self) -> bool:
        """Whether the part as a whole is over its limit (WARM's limit is per card)."""
        return self.limit is not None and self.tier == HOT and self.size > self.limit

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form, with `over`."""
        return {**asdict(self), "over": self.over}


def rules_tokens(snapshot: VaultSnapshot) -> int:
    """What AGENTS.md's learned rules cost in tokens."""
    return sum(count_tokens(rule.text) for rule in snapshot.rules)


def tier_parts(snapshot: VaultSnapshot) -> list[TierPart]:
    """Every tier part of the vault, HOT first."""
    cfg = snapshot.vault.config
    memory = snapshot.memory
    parts = [
        TierPart(HOT, "MEMORY.md", "MEMORY.md",
                 len(memory.text.encode("utf-8")) if memory else 0, cfg.memory_byte_budget,
                 "bytes", 1 if memory else 0),
        TierPart(HOT, "rules", "AGENTS.md", rules_tokens(snapshot), cfg.hot_rules_tokens,
                 "tokens", len(snapshot.rules)),
    ]  # fmt: skip
    for name, file in sorted(snapshot.hot.items()):
        rel = snapshot.rel(file.path)
        tokens = count_tokens(file.text)
        parts.append(TierPart(HOT, f"agent {name}", rel, tokens, cfg.agent_hot_tokens, "tokens"))
    live, archived = snapshot.live, snapshot.archived
    budget = cfg.card_token_budget
    parts.append(
        TierPart(WARM, "cards", "memory/cards", sum(c.tokens for c in live), budget, "tokens",
                 len(live), sum(1 for c in live if c.tokens > budget))
    )  # fmt: skip
    parts.append(
        TierPart(COLD, "archive", "memory/archive", sum(c.tokens for c in archived), None,
                 "tokens", len(archived))
    )  # fmt: skip
    return parts


def hot_tokens(snapshot: VaultSnapshot, agent: str | None = None) -> int:
    """Tokens HOT costs a session (MEMORY.md, the rules, and `agent`'s hot memory)."""
    memory = count_tokens(snapshot.memory.text) if snapshot.memory else 0
    hot = snapshot.hot.get(agent) if agent else None
    return memory + rules_tokens(snapshot) + (count_tokens(hot.text) if hot else 0)


def tier_findings(snapshot: VaultSnapshot) -> list[Finding]:
    """`check`'s warning for each HOT part over its limit (MEMORY.md's own budget is checked
    by `check` already), and for HOT too big for the context budget."""
    cfg = snapshot.vault.config
    found = []
    for part in tier_parts(snapshot):
        if part.over and part.part != "MEMORY.md":
            line = snapshot.rules[0].line if part.part == "rules" and snapshot.rules else 1
            found.append(
                Finding(part.path, line, f"HOT tier: {part.part} is {part.size} {part.unit}, over "
                        f"its limit of {part.limit} ({_key(part.part)} in cardvault.toml)",
                        "tier-budget", "warning")
            )  # fmt: skip
    total = hot_tokens(snapshot)
    if total > cfg.context_token_budget:
        found.append(
            Finding("MEMORY.md", 1, f"HOT tier: MEMORY.md and the rules are {total} tokens, over "
                    f"the context budget of {cfg.context_token_budget}: not all of it can be "
                    "loaded", "tier-budget", "warning")
        )  # fmt: skip
    return found


def _key(part: str) -> str:
    return "[tiers] rules_tokens" if part == "rules" else "[agents] hot_tokens"
