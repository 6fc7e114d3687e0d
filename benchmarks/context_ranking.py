"""Where `cardvault context --task` puts the card that answers the task, on the sample vault.

    python benchmarks/context_ranking.py

Tasks: the search probes of tests/fixtures/sample-vault-facts.json (query -> expected card).
For each, the expected card's position among the pack's cards (1 = first card) with hybrid
relevance and with keyword-only relevance, and whether it made it into packs of 1000 and 2000
tokens. Indexes a copy of the vault with the real model first (about a minute here).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import tempfile
from pathlib import Path

from cardvault import open_vault
from cardvault.context.build import (
    ContextPack,
    Relevance,
    Sources,
    keyword_relevance,
    read_sources,
    search_relevance,
)
from cardvault.context.plan import Request, Side, plan_context
from cardvault.vault.layout import open_vault_at

REPO = Path(__file__).resolve().parents[1]
TODAY = dt.date(2026, 11, 30)


def plan(sources: Sources, budget: int, task: str, relevance: Relevance) -> ContextPack:
    """The one context planner, on this vault alone (its one side)."""
    from cardvault.vault.layout import Vault
    from cardvault.vault.read import VaultSnapshot

    snapshot = VaultSnapshot(Vault(sources.root), (), (), None, None)
    side = Side("project", snapshot, sources, relevance)
    return plan_context([side], Request(task, budget, TODAY), budget)


def position(pack: object, slug: str) -> tuple[int, bool]:
    """1-based position of `slug` among the pack's card candidates, and whether it is in."""
    cards = [d for d in pack.decisions if d.item.kind == "card"]  # type: ignore[attr-defined]
    for number, decision in enumerate(cards, start=1):
        if decision.item.name == slug:
            return number, decision.included
    return 0, False


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="cardvault-ranking-")) / "sample"
    shutil.copytree(REPO / "sample-vault", root)
    open_vault(root).index()
    vault = open_vault_at(root)
    sources = read_sources(vault)
    probes = json.loads((REPO / "tests/fixtures/sample-vault-facts.json").read_text())
    rows, firsts, top3, fits = [], {"hybrid": 0, "keyword": 0}, {"hybrid": 0, "keyword": 0}, 0
    for probe in probes["search_probes"]:
        task, slug = probe["query"], probe["expect"]
        cells = []
        for mode, relevance in (
            ("hybrid", search_relevance(vault, task)),
            ("keyword", keyword_relevance(vault, task)),
        ):
            rank, _ = position(plan(sources, 2000, task, relevance), slug)
            firsts[mode] += rank == 1
            top3[mode] += 0 < rank <= 3
            cells.append(str(rank or "—"))
        hybrid = search_relevance(vault, task)
        ins = [position(plan(sources, b, task, hybrid), slug)[1] for b in (1000, 2000)]
        fits += ins[1]
        rows.append(f"| {task} | {probe['kind']} | {' | '.join(cells)} | "
                    f"{'yes' if ins[0] else 'no'} | {'yes' if ins[1] else 'no'} |")  # fmt: skip
    print("| task | kind | hybrid position | keyword position | in 1000 | in 2000 |")
    print("| --- | --- | ---: | ---: | --- | --- |")
    print("\n".join(rows))
    total = len(rows)
    print(f"\nfirst card: hybrid {firsts['hybrid']}/{total}, keyword {firsts['keyword']}/{total}; "
          f"top 3: hybrid {top3['hybrid']}/{total}, keyword {top3['keyword']}/{total}; "
          f"in a 2000-token pack (hybrid): {fits}/{total}")  # fmt: skip
    shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
