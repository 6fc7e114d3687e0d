"""One command, one resolution of each noun: `log` and a cold `search` (a new process, the
index built, a log entry new since) find the vault, read its config, validate the agent and
resolve the scope once each (config once per vault read: the global vault, holding nothing
to search, is not opened by `search`). Counted with `benchmarks/flows.py`'s profiler in a
subprocess: counts of calls, never timings."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from flows import FLOWS, run_flows

pytestmark = pytest.mark.slow  # the cold search loads the embedding model


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    flows = {name: FLOWS[name] for name in ("log", "search (cold)")}
    return run_flows(tmp_path_factory.mktemp("flows"), flows)


def test_log_resolves_each_noun_once(measured: dict[str, dict[str, object]]) -> None:
    found = measured["log"]
    assert found["code"] == 0
    assert found["nouns"] == {
        "vault root": 1, "config": 1, "scope": 0, "agent": 1, "vault read": 0, "lock": 1,
        "commit": 1,
    }  # fmt: skip


def test_a_cold_search_resolves_each_noun_once(measured: dict[str, dict[str, object]]) -> None:
    found = measured["search (cold)"]
    assert found["code"] == 0
    nouns, per_vault = found["nouns"], found["per_vault"]
    assert isinstance(nouns, dict) and isinstance(per_vault, dict)
    assert (nouns["vault root"], nouns["scope"], nouns["agent"]) == (1, 1, 1)
    assert nouns["config"] == per_vault["config"] == 1  # the global vault holds no card
    assert nouns["lock"] == nouns["commit"] == 0
