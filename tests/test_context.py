"""`cardvault context`: the budget is never exceeded, rules come first, the answer ranks high.

The budget property runs on random small vaults built in memory, through the one planner
(`context.plan.plan_context`, which the CLI, the MCP tool and the API call) with the vault as
its one side (keyword-style random ranks, no model), and on the bundled sample vault through the
real CLI and the real keyword index. Ranking quality for realistic tasks uses the real model
(slow).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardvault.context.build import (
    ContextPack,
    Relevance,
    Sources,
    keyword_relevance,
    read_sources,
)
from cardvault.context.pack import (
    FOOTER_HEADER,
    PREAMBLE,
    footer_reserve,
    preamble_cost,
    section_cost,
)
from cardvault.context.plan import Request, Side, build_context, plan_context
from cardvault.vault.card import parse_card, render_card
from cardvault.vault.layout import Vault, open_vault_at
from cardvault.vault.rules import read_rules
from cardvault.vault.tokens import count_tokens
from tests.support.cli import run_cli, snapshot

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample-vault"
TODAY = dt.date(2026, 11, 30)


def plan(
    sources: Sources, budget: int, task: str | None = None, relevance: Relevance | None = None
) -> ContextPack:
    """The one planner on a vault of these sources alone (no hot memory, no archive)."""
    from cardvault.vault.read import VaultSnapshot

    snapshot = VaultSnapshot(Vault(sources.root), (), (), None, None)
    side = Side("project", snapshot, sources, relevance)
    return plan_context([side], Request(task, budget, TODAY), budget)


def build(vault: Vault, task: str | None, budget: int) -> ContextPack:
    """`cardvault context --scope project` on `vault`: read, search, plan."""
    from cardvault.scopes.scope import InScope, Scoped

    return build_context(InScope((Scoped("project", vault),)), Request(task, budget, TODAY))


ROOT = Path("/vault")
_VOCABULARY = (
    "docker build platform amd64 arm64 postgres pool timeout nginx upload release tag deploy "
    "token rotate secret cache pip npm ci kubernetes probe memory oom fixture pytest the a of "
    "to and in for with café naïve Ünïcödé 数据库 連接 `code` --flag 42 3.14 /usr/bin (x) [y]"
)
WORDS = tuple(_VOCABULARY.split())


# --- random vaults in memory -------------------------------------------------------------------

text_st = st.lists(st.sampled_from(WORDS), min_size=1, max_size=60).map(" ".join)
body_st = st.lists(text_st, min_size=1, max_size=5).map("\n\n".join)


@st.composite
def vaults(draw: st.DrawFn) -> Sources:
    """A random vault: cards of random size and value, maybe MEMORY.md, maybe AGENTS.md rules."""
    count = draw(st.integers(0, 12))
    cards = []
    for number in range(count):
        meta: dict[str, object] = {
            "topic": draw(text_st)[:60] or "t",
            "category": "tools",
            "tags": ["x"],
            "created": dt.date(2026, 1, 1),
            "updated": TODAY - dt.timedelta(days=draw(st.integers(0, 400))),
            "seen": draw(st.integers(1, 15)),
        }
        if draw(st.booleans()):
            meta["impact"] = draw(st.floats(0, 1))
        if draw(st.integers(0, 4)) == 0:
            meta["status"] = "promoted"
            meta["rule"] = draw(text_st)[:120]
        path = ROOT / "memory" / "cards" / f"card-{number}.md"
        cards.append(parse_card(render_card(meta, draw(body_st)), path))
    memory = draw(st.none() | body_st.map(lambda b: f"# MEMORY.md\n\n<!-- note -->\n{b}\n"))
    rules = draw(st.lists(text_st.map(lambda t: f"- {t[:100]}"), max_size=4))
    agents = draw(
        st.none()
        | st.just(
            "# AGENTS.md\n\n<!-- cardvault:begin rules -->\n"
            + "\n".join(rules)
            + "\n<!-- cardvault:end rules -->\n"
        )
    )
    return Sources(ROOT, memory, tuple(read_rules(agents)), tuple(cards))


@st.composite
def relevances(draw: st.DrawFn, sources: Sources) -> Relevance | None:
    paths = [sources.rel(c.path) for c in sources.cards]
    hits = draw(st.permutations(paths)) if paths else []
    return Relevance(
        {p: i for i, p in enumerate(hits[: draw(st.integers(0, len(hits)))])}, "keyword"
    )


def check_pack_invariants(pack, budget: int) -> None:
    """What every pack must satisfy, whatever the vault."""
    assert count_tokens(pack.text) <= budget
    assert pack.tokens == count_tokens(pack.text)
    for decision in pack.included:
        assert decision.item.block in pack.text
    text = pack.text
    if "# Learned rules" in text and "# Cards" in text:
        assert text.index("# Learned rules") < text.index("# Cards")
    omitted = pack.omitted
    if omitted and budget >= 200:
        assert FOOTER_HEADER in text, "what did not fit must be named"
        shown = len(pack.listed)
        if shown < len(omitted):
            assert f"- … and {len(omitted) - shown} more" in text
        for name in pack.listed:
            assert f"\n- {name}" in text[text.index(FOOTER_HEADER) :]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), budget=st.integers(200, 4000))
def test_random_vaults_never_exceed_budget(data: st.DataObject, budget: int) -> None:
    sources = data.draw(vaults())
    task = data.draw(st.none() | text_st)
    relevance = data.draw(relevances(sources)) if task else None
    pack = plan(sources, budget, task, relevance)
    check_pack_invariants(pack, budget)
    rules = [d for d in pack.decisions if d.item.kind == "rule"]
    rules_cost = sum(d.item.tokens for d in rules) + section_cost("rule") + preamble_cost()
    if rules and rules_cost <= budget - footer_reserve(budget):
        assert all(d.included for d in rules), "rules go in before anything else"


@settings(max_examples=60, deadline=None)
@given(data=st.data(), budget=st.integers(1, 199))
def test_tiny_budgets_never_exceeded(data: st.DataObject, budget: int) -> None:
    sources = data.draw(vaults())
    pack = plan(sources, budget)
    assert count_tokens(pack.text) <= budget


# --- the sample vault ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def keyword_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the sample vault with its keyword index built (no model), once per module."""
    root = tmp_path_factory.mktemp("context") / "sample"
    shutil.copytree(SAMPLE, root)
    keyword_relevance(open_vault_at(root), "warm up the index")
    return root


TASKS = (
    "docker image fails with exec format error on the cluster",
    "set up pgbouncer connection pooling",
    "nginx returns 413 on large uploads",
    "tag a release",
    None,
)


@settings(max_examples=80, deadline=None)
@given(budget=st.integers(200, 4000), task=st.sampled_from(TASKS))
def test_sample_vault_never_exceeds_budget(
    keyword_sample: Path, budget: int, task: str | None
) -> None:
    vault = open_vault_at(keyword_sample)
    sources = read_sources(vault)
    relevance = keyword_relevance(vault, task) if task else None
    assert relevance is None or relevance.mode == "keyword"
    pack = plan(sources, budget, task, relevance)
    check_pack_invariants(pack, budget)
    assert pack.included and pack.included[0].item.kind == "rule", "the learned rule comes first"


@pytest.mark.parametrize("budget", [200, 350, 700, 1200, 2000, 3000, 4000])
def test_cli_on_sample_vault_respects_budget(
    keyword_sample: Path, budget: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARDVAULT_NOW", "2026-11-30T09:00")
    result = run_cli(["--vault", str(keyword_sample), "context", "--budget", str(budget)])
    assert result.exit_code == 0, result.output
    assert 0 < count_tokens(result.stdout) <= budget
    lines = result.stdout.splitlines()
    assert "# Learned rules" in lines
    assert lines[lines.index("# Learned rules") + 2] == '<memory source="AGENTS.md">'
    assert "never-commit-env-files.md" in lines[lines.index("# Learned rules") + 3]
    if budget >= 2000:
        assert result.stdout.index("# Learned rules") < result.stdout.index("# Cards")


def test_default_budget_comes_from_config(tmp_path: Path) -> None:
    root = tmp_path / "v"
    shutil.copytree(SAMPLE, root)
    config = (root / "cardvault.toml").read_text()
    (root / "cardvault.toml").write_text(
        config.replace("token_budget = 2000", "token_budget = 900")
    )
    result = run_cli(["--vault", str(root), "context", "--format", "json"])
    data = json.loads(result.stdout)
    assert data["budget"] == 900 and count_tokens(data["text"]) == data["tokens"] <= 900


def test_json_and_explain_say_why(keyword_sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDVAULT_NOW", "2026-11-30T09:00")
    args = ["--vault", str(keyword_sample), "context", "--budget", "800"]
    markdown = run_cli(args).stdout
    data = json.loads(run_cli([*args, "--format", "json"]).stdout)
    assert data["text"] == markdown and data["tokens"] == count_tokens(markdown) <= 800
    assert json.loads(run_cli([*args, "--json"]).stdout) == data  # --json: the same pack
    assert data["ranking"] == "value" and data["task"] is None
    assert data["included"][0]["kind"] == "rule" and data["omitted"]
    for row in data["omitted"]:
        assert row["reason"].startswith("out: needs") and row["source"].endswith(".md")
    explained = run_cli([*args, "--explain"])
    assert explained.stdout == markdown  # the explanation goes to stderr only
    for row in data["included"] + data["omitted"]:
        assert re.search(rf"(IN |OUT) {row['kind']}\s+{re.escape(row['name'])}\s", explained.stderr)


def plain_vault(root: Path) -> Path:
    """A vault without git (context only reads): cardvault.toml and a cards folder."""
    (root / "memory" / "cards").mkdir(parents=True)
    (root / "cardvault.toml").write_text("[context]\ntoken_budget = 2000\n")
    return root


def test_no_task_puts_most_valuable_first(tmp_path: Path) -> None:
    vault_path = plain_vault(tmp_path / "v")
    cards = vault_path / "memory" / "cards"
    specs = {
        "minor-note": "seen: 1\nimpact: 0.2\nupdated: 2026-06-01",
        "recurring-lesson": "seen: 8\nseverity: high\nupdated: 2026-11-25",
        "middling-tip": "seen: 3\nupdated: 2026-11-01",
    }
    for slug, extra in specs.items():
        (cards / f"{slug}.md").write_text(
            f"---\ntopic: {slug}\ncategory: tools\ntags: [x]\ncreated: 2026-01-01\n{extra}\n---\n"
            f"Body of {slug}.\n"
        )
    pack = build(open_vault_at(vault_path), None, 2000)
    order = [d.item.name for d in pack.decisions if d.item.kind == "card"]
    assert order == ["recurring-lesson", "middling-tip", "minor-note"]
    text = pack.text
    assert text.index("recurring-lesson") < text.index("middling-tip") < text.index("minor-note")
    assert '<memory source="memory/cards/recurring-lesson.md">\n## recurring-lesson' in text


def test_the_rules_are_agents_md_lines_not_cards_that_say_promoted(tmp_path: Path) -> None:
    # AGENTS.md's section is the record of rules: a card that only says `status: promoted` with
    # a `rule:` (as a pull may bring one) is a card in the pack, never a rule
    vault_path = plain_vault(tmp_path / "v")
    (vault_path / "AGENTS.md").write_text(
        "# Rules\n<!-- cardvault:begin rules -->\n- Run tests first. (memory/cards/tests.md)\n"
        "<!-- cardvault:end rules -->\n"
    )
    (vault_path / "memory" / "cards" / "pin-python.md").write_text(
        "---\ntopic: Pin Python\ncategory: tools\ntags: [python]\ncreated: 2026-01-01\n"
        "updated: 2026-11-01\nstatus: promoted\nrule: Pin the Python minor version in CI.\n---\n"
        "Long story about a CI break.\n"
    )
    pack = build(open_vault_at(vault_path), None, 200)
    rules = f'{PREAMBLE}\n\n# Learned rules\n\n<memory source="AGENTS.md">\n'
    rules += "- Run tests first. (memory/cards/tests.md)\n</memory>\n"
    assert pack.text.startswith(rules)
    assert [d.item.kind for d in pack.included if d.item.kind == "rule"] == ["rule"]
    assert "Pin the Python minor version" not in pack.text


def test_broken_search_falls_back_and_still_packs(tmp_path: Path) -> None:
    root = tmp_path / "v"
    shutil.copytree(SAMPLE, root)
    vault = open_vault_at(root)
    shutil.rmtree(root / ".cardvault")  # opening made the cache folder: a file in its place
    (root / ".cardvault").write_text("not a folder")  # after opening: the index cannot be made
    pack = build(vault, "tag a release", 1500)
    assert pack.ranking == "none" and any("failed" in n for n in pack.notices)
    check_pack_invariants(pack, 1500)
    assert pack.included


def test_context_writes_nothing_but_its_cache(tmp_path: Path) -> None:
    root = tmp_path / "v"
    shutil.copytree(SAMPLE, root)
    before = snapshot(root)
    result = run_cli(["--vault", str(root), "context", "--budget", "500"])
    assert result.exit_code == 0
    assert snapshot(root) == before


# --- ranking quality: ground truth from tests/fixtures/sample-vault-facts.json ------------------

FACTS = json.loads((REPO / "tests" / "fixtures" / "sample-vault-facts.json").read_text())
PROBES = [(p["query"], {p["expect"]}) for p in FACTS["search_probes"]]
EXACT = [(p["query"], {p["expect"]}) for p in FACTS["search_probes"] if p["kind"] == "exact"]
# Tasks as an agent would state them at the start of a session (answers read off the cards).
AGENT_TASKS = [
    ("our image crashes with exec format error after I built it on my MacBook",
     set(FACTS["near_duplicates"][0])),
    ("the ingest worker pod keeps dying with exit code 137",
     {"kubernetes-oomkilled-memory-limits"}),
    ("a deploy token was leaked in a CI log, what now", {"rotate-deploy-tokens"}),
    ("add an index to a big Postgres table without blocking writes", {"postgres-migration-locks"}),
]  # fmt: skip


def card_order(pack) -> list[str]:
    return [d.item.name for d in pack.decisions if d.item.kind == "card"]


def test_promoted_rule_of_the_facts_leads_the_pack(keyword_sample: Path) -> None:
    vault = open_vault_at(keyword_sample)
    for budget in (200, 2000):
        pack = plan(read_sources(vault), budget)
        first = pack.included[0].item
        assert first.kind == "rule" and FACTS["promoted_rule"] in first.block
        assert FACTS["promoted_card"] in first.block


@pytest.mark.parametrize(("task", "answers"), EXACT)
def test_exact_words_find_the_card_by_keywords(
    keyword_sample: Path, task: str, answers: set[str]
) -> None:
    vault = open_vault_at(keyword_sample)
    pack = plan(read_sources(vault), 2000, task, keyword_relevance(vault, task))
    assert answers & set(card_order(pack)[:3]), f"{task!r}: top cards {card_order(pack)[:3]}"


@pytest.mark.slow
@pytest.mark.parametrize(("task", "answers"), PROBES + AGENT_TASKS)
def test_answer_card_ranks_near_top(
    task: str, answers: set[str], indexed_sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cardvault.search.model import DEFAULT_MODEL, reads
    from cardvault.words import language

    pack = build(open_vault_at(indexed_sample), task, 2000)
    # a task in a language the model cannot read is ranked by its words alone
    expected = "hybrid" if reads(DEFAULT_MODEL, language(task)) else "keyword"
    assert pack.ranking == expected, pack.notices
    top = card_order(pack)[:3]
    assert answers & set(top), f"{task!r}: top cards {top}"
    best = next(d for d in pack.decisions if d.item.name in answers and d.item.kind == "card")
    assert best.included, "the answer fits a 2000-token pack"


def test_session_start_hook_snippet_runs(tmp_path: Path) -> None:
    """The .claude/settings.json in docs/agents.md parses, and its command prints the pack."""
    doc = (REPO / "docs" / "agents.md").read_text()
    block = doc.split("### Claude Code: a SessionStart hook", 1)[1].split("```json\n", 1)[1]
    settings_json = json.loads(block.split("```", 1)[0])
    entry = settings_json["hooks"]["SessionStart"][0]
    assert set(entry["matcher"].split("|")) >= {"startup", "clear", "compact"}
    command = entry["hooks"][0]["command"]
    home = tmp_path / "home"
    shutil.copytree(SAMPLE, home / "agent-memory")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    env = {**os.environ, "HOME": str(home), "PATH": path, "CARDVAULT_NOW": "2026-11-30T09:00"}
    stdin = json.dumps({"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup"})
    done = subprocess.run(
        ["sh", "-c", command], input=stdin, capture_output=True, text=True, env=env
    )
    assert done.returncode == 0 and "# Learned rules" in done.stdout
    assert count_tokens(done.stdout) <= 2000
    shutil.rmtree(home / "agent-memory")
    missing = subprocess.run(
        ["sh", "-c", command], input=stdin, capture_output=True, text=True, env=env
    )
    # a missing vault never blocks a session: said on stderr, exit 1 (Claude Code's
    # non-blocking error; 2 would be a blocking one)
    assert missing.returncode == 1 and missing.stdout == "" and "agent-memory" in missing.stderr


def test_a_session_without_a_task_starts_knowing_what_was_remembered_since_the_last_maintain(
    vault_path: Path,
) -> None:
    """The session-start pack (no task) carries the newest lessons no card cites yet, quoted
    with their entries: a fact remembered yesterday was in no pack until maintain ran. A note
    without a lesson, a lesson over a week old and a lesson distilled into a card are not
    there (the card is)."""

    def cv(now: str, *args: str) -> str:
        result = run_cli(["--vault", str(vault_path), *args], env={"CARDVAULT_NOW": now})
        assert result.exit_code == 0, result.output
        return str(result.stdout)

    cv("2026-11-20T10:00", "remember", "Deploys freeze on the last Friday of the month")
    cv("2026-12-05T10:00", "remember", "Staging DB is reset every Sunday at 03:00")
    cv("2026-12-06T10:00", "log", "Login kept failing. Lesson: send the token twice.",
       "--title", "Cortex login")  # fmt: skip
    cv("2026-12-06T11:00", "log", "Spent an hour on the login flow.")
    text = cv("2026-12-07T09:00", "context")
    fresh = text.split("# Just remembered", 1)[1]
    assert '<memory source="memory/2026-12-06.md#' in fresh
    assert "- 2026-12-06 10:00 Cortex login: Send the token twice." in fresh
    assert "- 2026-12-05 10:00 Staging DB is reset every Sunday at 03:00\n" in fresh
    assert "Deploys freeze" not in text and "Spent an hour" not in text
    assert fresh.index("Cortex login") < fresh.index("Staging DB")  # newest first
    cv("2026-12-07T09:05", "maintain")
    after = cv("2026-12-07T09:10", "context")
    assert "# Just remembered" not in after
