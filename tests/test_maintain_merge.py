"""Merge with the real model: distilled cards one of which says the other's content become one
card; hand-written look-alikes stay as they are; contradictions are reported."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cardvault.maintain.similarity import pairs_above
from cardvault.search.embedder import Embedder
from cardvault.vault.decisions import read_queue
from cardvault.vault.layout import Vault
from cardvault.vault.read import read_card
from tests.support.maintain import (
    PLATFORM_A,
    PLATFORM_B,
    card,
    commit_all,
    git,
    new_vault,
    run,
    snapshot,
)

pytestmark = pytest.mark.slow

#: What maintain distilled later: the same lesson with the fix it learned (PLATFORM_A is in it).
PLATFORM_LATER = (
    f"{PLATFORM_A}\n\nFix: pass `--platform linux/amd64` to docker buildx, or export "
    "DOCKER_DEFAULT_PLATFORM=linux/amd64 in the shell. Emulated builds are slow."
)
NPM_CI = (
    "Always use `npm ci` to install the dashboard's dependencies in the Docker build and in CI."
)
NPM_INSTALL = (
    "Never use `npm ci` to install the dashboard's dependencies in the Docker build or in CI; "
    "use `npm install` instead."
)


@pytest.fixture
def vault(tmp_path: Path):  # type: ignore[no-untyped-def]
    vault = new_vault(tmp_path / "v")
    card(vault, "docker-platform-flag", "Docker Platform Flag", PLATFORM_A,
         category="infrastructure", tags="[docker, arm64]", created="2026-03-01",
         updated="2026-03-05", extra="seen: 1\nsources:\n  - memory/2026-03-01.md#10:00\n",
         distilled=True)  # fmt: skip
    card(vault, "apple-silicon-images", "Docker Images on Apple Silicon", PLATFORM_LATER,
         category="infrastructure", tags="[docker, arm64, apple-silicon]", created="2026-03-20",
         updated="2026-04-02", extra="seen: 2\nsources:\n  - memory/2026-03-01.md#10:00\n"
         "  - memory/2026-04-02.md#9f00aa\n", distilled=True)  # fmt: skip
    links = (
        "See [[apple-silicon-images]] and [[apple-silicon-images|the Mac notes]] before tagging."
    )
    card(
        vault, "release-notes", "Release Notes", f"Release checklist. {links}", category="workflow"
    )
    card(vault, "npm-ci", "npm ci", NPM_CI, tags="[npm]")
    card(vault, "npm-install", "npm install", NPM_INSTALL, tags="[npm]")
    commit_all(vault)
    return vault


def test_distilled_cards_of_one_content_merge_into_the_earliest(
    vault: Vault, embedder: Embedder
) -> None:
    result = run(vault, embedder)
    assert not vault.card_path("apple-silicon-images").exists()
    merged = read_card(vault.card_path("docker-platform-flag"))
    assert merged.tags == ("docker", "arm64", "apple-silicon")
    assert (
        str(merged.meta["created"]) == "2026-03-01" and str(merged.meta["updated"]) == "2026-04-02"
    )
    assert merged.aliases == ("apple-silicon-images", "Docker Images on Apple Silicon")
    assert merged.meta["merged_from"] == ["apple-silicon-images"]
    # two distinct log entries: one both cite, one more (never 1 + 2)
    assert merged.seen == 2
    assert merged.sources == ("memory/2026-03-01.md#10:00", "memory/2026-04-02.md#9f00aa")
    assert merged.body.startswith(PLATFORM_A)  # the survivor's bytes are kept
    assert "DOCKER_DEFAULT_PLATFORM" in merged.body  # the other's new facts are carried
    assert merged.body.count("Always build with") == 1  # its repeated sentence is not
    assert merged.distilled  # still the pass's own card: its mark follows the new body
    links = read_card(vault.card_path("release-notes")).body
    assert "[[docker-platform-flag]]" in links and "[[docker-platform-flag|the Mac notes]]" in links
    assert result.plan.counts()["merge"] == 1
    # git still has the merged-away card
    assert "Apple Silicon" in git(vault.root, "show", "HEAD~1:memory/cards/apple-silicon-images.md")


def test_hand_written_look_alikes_stay_untouched(tmp_path: Path, embedder: Embedder) -> None:
    """Two hand-written cards of one lesson in other words (cosine above the merge threshold):
    neither says what the other says, so nothing is merged, rewritten or asked; the links to
    them stay as written."""
    vault = new_vault(tmp_path / "v")
    card(vault, "docker-platform-flag", "Docker Platform Flag", PLATFORM_A, created="2026-03-01")
    card(vault, "apple-silicon-images", "Docker Images on Apple Silicon", PLATFORM_B,
         created="2026-03-20", extra="seen: 2\n")  # fmt: skip
    card(
        vault, "release-notes", "Release Notes", "Release checklist. See [[apple-silicon-images]]."
    )
    commit_all(vault)
    before = snapshot(vault.root / "memory" / "cards")
    result = run(vault, embedder)
    assert snapshot(vault.root / "memory" / "cards") == before
    assert result.plan.counts().get("merge", 0) == 0
    assert not [i for i in read_queue(vault.root) if i.kind == "duplicate"]


def test_contradicting_cards_are_reported_not_merged(vault: Vault, embedder: Embedder) -> None:
    result = run(vault, embedder)
    assert vault.card_path("npm-ci").exists() and vault.card_path("npm-install").exists()
    conflicts = [r for r in result.plan.reports if r.kind == "conflict"]
    assert len(conflicts) == 1
    assert {p.stem for p in conflicts[0].paths} == {"npm-ci", "npm-install"}
    assert any("Always use `npm ci`" in t for t in conflicts[0].texts)
    assert any("Never use `npm ci`" in t for t in conflicts[0].texts)
    # reported again on the next run (nothing to commit, the conflict still stands)
    again = run(vault, embedder)
    assert again.plan.empty and [r.kind for r in again.plan.reports] == ["conflict"]


def test_pairs_above_matches_brute_force_across_blocks() -> None:
    rng = np.random.default_rng(7)
    base = rng.normal(size=(40, 16)).astype(np.float32)
    rows = np.vstack([base, base[:10] + 0.05 * rng.normal(size=(10, 16)).astype(np.float32)])
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    found = {(i, j) for i, j, _ in pairs_above(rows, 0.9, block=7)}
    full = rows @ rows.T
    expected = {
        (i, j) for i in range(len(rows)) for j in range(i + 1, len(rows)) if full[i, j] >= 0.9
    }
    assert found == expected and len(found) >= 10


def test_pairs_above_keeps_each_cards_closest_partners_only() -> None:
    """3,000 copies of one card (500 KB a shared vault can carry) were 4.5 million pairs, each
    looked at in Python by maintain's merge step (past ten minutes); each row now keeps its
    MAX_PARTNERS closest, in order, the closest first kept."""
    from cardvault.maintain.similarity import MAX_PARTNERS

    rng = np.random.default_rng(3)
    one = rng.normal(size=16).astype(np.float32)
    rows = np.vstack([one + 0.01 * n * rng.normal(size=16).astype(np.float32) for n in range(300)])
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    found = pairs_above(rows, 0.5, block=64)
    assert len(found) <= len(rows) * MAX_PARTNERS < len(rows) * (len(rows) - 1) // 2
    assert found == sorted(found)  # by row, then partner, as before
    full = rows @ rows.T
    for i in (0, 100, 299):
        later = [j for j in range(i + 1, len(rows)) if full[i, j] >= 0.5]
        closest = sorted(later, key=lambda j: -full[i, j])[:MAX_PARTNERS]
        assert [j for a, j, _ in found if a == i] == sorted(closest)


def test_cards_that_would_not_read_back_merged_stay_as_they_are(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Eight copies of one card, each with 9,000 aliases (each within the 20,000 values a
    frontmatter may expand to; a shared vault can carry them): merged, the survivor would hold
    72,000 and no command could read it, so every `maintain` failed on it. They stay as they
    are, and the run goes on (the other near-duplicates still merge)."""
    vault = new_vault(tmp_path / "v")
    body = "Restart the ingest worker after changing the carrier token, or it keeps the old one."
    for n in range(8):
        aliases = "".join(f"  - alias-{n}-{i}\n" for i in range(9000))
        card(vault, f"ingest-token-{n}", f"Ingest token restart {n}", body,
             created=f"2026-05-0{n + 1}", extra=f"aliases:\n{aliases}", distilled=True)  # fmt: skip
    card(vault, "docker-platform-flag", "Docker Platform Flag", PLATFORM_A, created="2026-05-01",
         distilled=True)  # fmt: skip
    card(vault, "apple-silicon-images", "Docker Images on Apple Silicon", PLATFORM_LATER,
         created="2026-05-02", distilled=True)  # fmt: skip
    commit_all(vault)
    result = run(vault, embedder)
    assert all(vault.card_path(f"ingest-token-{n}").exists() for n in range(8))
    assert not vault.card_path("apple-silicon-images").exists()  # merged as ever
    assert result.plan.counts()["merge"] == 1
