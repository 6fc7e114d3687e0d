"""Build (once) a cardvault vault from the LoCoMo dev conversations, and load its retrieval
queries (../shared/data/locomo-dev/README.md says how to score retrieval without an LLM).

Each dialogue turn becomes a card `memory/cards/<conversation>/<dia-id>.md`: topic = the
session's date and the speaker (`"8 May, 2023, Caroline"`: temporal questions ask "when", and the
date is stored only on the session), category = the conversation (`conv-26`; a query is searched
only within its own conversation, through the category filter), body = the turn's text and, for a
shared photo, its caption (`[shares a photo: ...]`). Queries are the question–answer pairs of
categories 1–4 whose evidence names at least one turn, after the README's normalisation (760).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from data_path import shared_data

DATA = shared_data() / "locomo-dev" / "locomo-dev.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_EVIDENCE = re.compile(r"^D:?(\d+):(\d+)$")


@dataclass(frozen=True)
class LocomoQuery:
    """One retrieval query: its id, conversation, category name, question and evidence cards."""

    qid: str
    conversation: str
    kind: str
    text: str
    evidence: tuple[str, ...]  # card paths in the vault


def turn_path(conversation: str, dia_id: str) -> str:
    """The card path of a turn (`D1:3` of conv-26 -> memory/cards/conv-26/d1-3.md)."""
    return f"memory/cards/{conversation}/{dia_id.lower().replace(':', '-')}.md"


def normalised_evidence(evidence: list[str]) -> list[str]:
    """The README's normalisation: split on ';' and spaces, keep `D<n>:<i>` (also `D:n:i`)."""
    found = []
    for item in evidence:
        for part in re.split(r"[;\s]+", item.strip()):
            found += [f"D{int(a)}:{int(b)}" for a, b in _EVIDENCE.findall(part)]
    return found


def sessions(conversation: dict[str, object]) -> list[str]:
    """The conversation's `session_N` keys in order (dates exist for more; lists count)."""
    keys = [k for k in conversation if re.fullmatch(r"session_\d+", k)]
    return sorted(keys, key=lambda k: int(k.split("_")[1]))


def _date(stamp: str) -> str:
    """`1:56 pm on 8 May, 2023` -> `8 May, 2023`."""
    return stamp.split(" on ", 1)[-1].strip()


def build_vault(root: Path, data: Path = DATA, neighbours: int = 0) -> int:
    """Write one card per turn under `root` (skipped when already there); return the count.

    With `neighbours` n > 0 the card's body also carries the n turns before and after it in the
    same session, as context (the unit scored is still the turn: its own text comes first)."""
    cards = root / "memory" / "cards"
    marker = root / ".built"
    if marker.exists():
        return sum(1 for _ in cards.rglob("*.md"))
    samples = json.loads(data.read_text(encoding="utf-8"))
    names = [sample["sample_id"] for sample in samples]
    root.mkdir(parents=True, exist_ok=True)
    (root / "cardvault.toml").write_text(
        f"[cards]\ncategories = {json.dumps(names)}\n", encoding="utf-8"
    )
    count = 0
    for sample in samples:
        conv, name = sample["conversation"], sample["sample_id"]
        for session in sessions(conv):
            date = _date(str(conv[f"{session}_date_time"]))
            turns = conv[session]
            for number, turn in enumerate(turns):
                body = _turn_text(turn)
                around = (
                    turns[max(0, number - neighbours) : number]
                    + turns[number + 1 : number + 1 + neighbours]
                )
                if neighbours and around:
                    said = "\n".join(f"{t['speaker']}: {_turn_text(t)}" for t in around)
                    body += f"\n\nIn the same conversation:\n{said}"
                path = root / turn_path(name, turn["dia_id"])
                path.parent.mkdir(parents=True, exist_ok=True)
                topic = f"{date}, {turn['speaker']}"
                path.write_text(
                    f"---\ntopic: {json.dumps(topic)}\ncategory: {name}\ntags: []\n"
                    f"created: 2026-01-01\nupdated: 2026-01-01\n---\n{body}\n",
                    encoding="utf-8",
                )
                count += 1
    marker.write_text("ok\n", encoding="utf-8")
    return count


def _turn_text(turn: dict[str, object]) -> str:
    """A turn's text, with the caption of the photo it shares."""
    text = str(turn["text"]).strip()
    if turn.get("blip_caption"):
        text += f" [shares a photo: {turn['blip_caption']}]"
    return text


def load_queries(data: Path = DATA) -> list[LocomoQuery]:
    """Category 1–4 questions with at least one evidence turn that exists (760 in this half)."""
    queries = []
    for sample in json.loads(data.read_text(encoding="utf-8")):
        conv, name = sample["conversation"], sample["sample_id"]
        turns = {t["dia_id"] for s in sessions(conv) for t in conv[s]}
        for number, qa in enumerate(sample["qa"]):
            if qa["category"] not in CATEGORIES:
                continue
            evidence = [e for e in normalised_evidence(qa["evidence"]) if e in turns]
            if not evidence:
                continue
            paths = tuple(dict.fromkeys(turn_path(name, e) for e in evidence))
            queries.append(
                LocomoQuery(
                    f"{name}-{number}", name, CATEGORIES[qa["category"]], qa["question"], paths
                )
            )
    return queries
