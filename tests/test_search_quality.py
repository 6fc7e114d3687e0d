"""What search finds on the fixture vault, with the real model: meaning, exact words, filters."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardvault import open_vault
from cardvault.api import VaultHandle
from tests.support.search import copy_vault

pytestmark = pytest.mark.slow


@pytest.fixture
def vault(search_vault_template: Path, tmp_path: Path) -> VaultHandle:
    return open_vault(copy_vault(search_vault_template, tmp_path / "vault"))


def slugs(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [hit.slug for hit in hits]


@pytest.mark.parametrize("mode", ["hybrid", "semantic"])
def test_paraphrase_finds_its_card(vault: VaultHandle, mode: str) -> None:
    hits = vault.search("too many simultaneous db clients make the backend freeze", k=3, mode=mode)
    assert hits[0].slug == "postgres-connection-pool"


def test_login_rejected_paraphrase(vault: VaultHandle) -> None:
    assert vault.search("login request rejected, anti-forgery token missing", k=1)[0].slug == (
        "cortex-csrf-automation"
    )


@pytest.mark.parametrize(
    ("query", "slug"),
    [
        ("ImportError: cannot import name 'jwt'", "pyjwt-import-error"),
        ("--no-verify", "git-hooks-bypass"),
        ("X-CORTEX-XSRF-TOKEN", "cortex-csrf-automation"),
        ("--platform linux/amd64", "docker-apple-silicon"),
    ],
)
def test_exact_strings_found_by_keyword(vault: VaultHandle, query: str, slug: str) -> None:
    assert vault.search(query, k=1, mode="keyword")[0].slug == slug
    assert vault.search(query, k=1)[0].slug == slug


def test_cjk_card_found_by_cjk_query(vault: VaultHandle) -> None:
    hits = vault.search("缓存", k=1, mode="keyword")
    assert hits[0].slug == "cache-invalidation-cn"
    assert "缓存" in hits[0].matches
    assert vault.search("清除缓存", k=1)[0].slug == "cache-invalidation-cn"


def test_result_fields(vault: VaultHandle) -> None:
    hit = vault.search("disk full on build agents", k=1)[0]
    assert hit.slug == "disk-full-alerts"
    assert hit.path == "memory/cards/ops/disk-full-alerts.md"
    assert hit.category == "infrastructure" and hit.tags == ("ci", "disk") and hit.kind == "card"
    assert 0 < hit.score <= 1


def test_filters(vault: VaultHandle) -> None:
    # words each infrastructure card holds one of (a query with no evidence gets no hit)
    assert set(slugs(vault.search("api or disk problem", category="infrastructure"))) == {
        "cortex-csrf-automation", "postgres-connection-pool", "disk-full-alerts",
    }  # fmt: skip
    assert slugs(vault.search("docker", tag="arm64")) == ["docker-apple-silicon"]
    assert slugs(vault.search("commit", status="promoted")) == ["git-hooks-bypass"]


def test_archived_cards_only_on_request(vault: VaultHandle) -> None:
    assert "legacy-vpn-setup" not in slugs(vault.search("OpenVPN gateway"))
    hit = vault.search("OpenVPN gateway", archived=True, k=1)[0]
    assert (hit.slug, hit.kind, hit.path) == (
        "legacy-vpn-setup", "archived", "memory/archive/legacy-vpn-setup.md",
    )  # fmt: skip


def test_undistilled_lessons_are_found_and_other_entries_only_with_logs(vault: VaultHandle) -> None:
    """An entry with a lesson signal ("Fix: ...") that no card cites yet is fresh memory, found by
    default; an entry with nothing to learn ("Lunch") is searched only with `logs`."""
    query = "tests failing randomly because fixtures share a temp folder"
    hit = vault.search(query, k=1)[0]
    assert (hit.kind, hit.path, hit.entry) == ("log", "memory/2026-11-03.md", "09:15 Flaky CI")
    assert all(hit.kind != "log" for hit in vault.search("lunch", mode="keyword"))
    hit = vault.search("lunch", mode="keyword", logs=True, k=1)[0]
    assert (hit.kind, hit.entry) == ("log", "14:30 Lunch")


def test_bad_mode_is_refused(vault: VaultHandle) -> None:
    with pytest.raises(ValueError, match="mode"):
        vault.search("x", mode="fuzzy")


@pytest.mark.parametrize("widen", [(1, 1), (4, 200)])
@pytest.mark.parametrize(
    "filters",
    [
        {},
        {"logs": True},
        {"archived": True},
        {"category": "infrastructure"},
        {"tag": "arm64"},
        {"status": "promoted"},
    ],
)
def test_keyword_ranking_read_from_the_fts_table_alone_equals_the_join(
    vault: VaultHandle,
    monkeypatch: pytest.MonkeyPatch,
    widen: tuple[int, int],
    filters: dict[str, object],
) -> None:
    """A warm searcher ranks keyword hits without joining `docs` and filters them itself; read
    no wider than asked, the filter leaves the page short and the join has to take over: the
    same documents and scores in the same order either way."""
    from cardvault.search import retrieve
    from cardvault.search.index import open_index

    monkeypatch.setattr(retrieve, "WIDEN", widen[0])
    monkeypatch.setattr(retrieve, "MIN_WIDE", widen[1])
    chosen = retrieve.Filters(**filters)  # type: ignore[arg-type]
    index = open_index(vault.vault.cache_dir)
    try:
        eligible = retrieve.eligible_ids(index, chosen)
        for query in ("docker build", "problem", "commit hooks", "tests failing randomly", "vpn"):
            for limit in (1, 2, 3, 50):
                joined = retrieve.keyword_ranking(index, query, chosen, limit)
                alone = retrieve.keyword_ranking(index, query, chosen, limit, eligible)
                assert alone == joined, (query, limit)
    finally:
        index.conn.close()
