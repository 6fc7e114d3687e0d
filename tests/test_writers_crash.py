"""kill -9 at a random moment of log, new, maintain, import, forget and sync: the vault is as
before or as intended, whole, committed, with nothing left behind (one trial each here, and
three more of sync at set moments; the 50-trial run is `python benchmarks/writers.py crash`,
`--command sync` for sync alone)."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from tests.writers_crash import SCENARIOS, build_templates, intended, trial


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return build_templates(tmp_path_factory.mktemp("crash-templates"))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_killed_writer_leaves_the_vault_before_or_as_intended(
    templates, scenario: str, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    template, args = templates[scenario]
    states = intended(template, args, tmp_path)
    seed = time.time_ns() % 10**6
    delay = random.Random(seed).uniform(0.0, states.seconds)
    outcome = trial(template, args, states, delay, tmp_path / "trial")
    assert outcome.state in ("before", "intended", "merged"), f"seed {seed}"


@pytest.mark.parametrize("share", [0.2, 0.5, 0.8])
def test_a_killed_sync_leaves_nothing_of_its_merge_and_the_next_sync_finishes(
    templates, share: float, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    template, args = templates["sync"]
    states = intended(template, args, tmp_path)
    outcome = trial(template, args, states, share * states.seconds, tmp_path / "trial")
    assert outcome.state in ("before", "intended", "merged")
