"""Build (once) a cardvault vault from BEIR SciFact and load its train queries and judgements.

Each abstract becomes a card `memory/cards/doc-<id>.md` whose topic is the paper's title and
whose body is the abstract. The vault is built under a work folder (default
/tmp/cardvault-bench) and reused while it exists, so reruns skip the 4-5 minute embedding.
"""

from __future__ import annotations

import json
from pathlib import Path

from data_path import shared_data

DATA = shared_data() / "scifact-train"


def build_vault(root: Path, data: Path = DATA) -> int:
    """Write one card per abstract under `root` (skipped when already there); return the count."""
    cards = root / "memory" / "cards"
    marker = root / ".built"
    if marker.exists():
        return sum(1 for _ in cards.glob("*.md"))
    cards.mkdir(parents=True, exist_ok=True)
    (root / "cardvault.toml").write_text("", encoding="utf-8")
    count = 0
    with (data / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            topic = doc["title"].strip() or f"Abstract {doc['_id']}"
            text = (
                "---\n"
                f"topic: {json.dumps(topic, ensure_ascii=False)}\n"
                "category: projects\ntags: [scifact]\n"
                "created: 2026-01-01\nupdated: 2026-01-01\n---\n"
                f"{doc['text'].strip()}\n"
            )
            (cards / f"doc-{doc['_id']}.md").write_text(text, encoding="utf-8")
            count += 1
    marker.write_text("ok\n", encoding="utf-8")
    return count


def load_queries(data: Path = DATA) -> dict[str, str]:
    """Train query id -> claim text (only queries with judgements)."""
    judged = load_qrels(data)
    queries = {}
    with (data / "queries.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            query = json.loads(line)
            if query["_id"] in judged:
                queries[query["_id"]] = query["text"]
    return queries


def load_qrels(data: Path = DATA) -> dict[str, dict[str, int]]:
    """query id -> {card slug: relevance}."""
    qrels: dict[str, dict[str, int]] = {}
    lines = (data / "qrels" / "train.tsv").read_text(encoding="utf-8").splitlines()
    for line in lines[1:]:
        query_id, doc_id, score = line.split("\t")
        if int(score) > 0:
            qrels.setdefault(query_id, {})[f"doc-{doc_id}"] = int(score)
    return qrels
