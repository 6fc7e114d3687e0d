"""Scopes and agents without the model: the global vault's place, context keys, registration,
scope resolution, attribution of writes, hot memory, tiers, forget's scope, and the budget of
a pack across scopes and tiers (a hypothesis property)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardvault import history
from cardvault.app import Session
from cardvault.app.writes import init_vault
from cardvault.context.build import Relevance, Sources
from cardvault.context.plan import Request, Side, plan_context
from cardvault.errors import CardvaultError, ConfigError, VaultNotFoundError
from cardvault.scopes.agents import bounded
from cardvault.scopes.home import HOME_VAR, global_root, global_vault
from cardvault.scopes.key import path_key, remote_key
from cardvault.scopes.registry import read_projects
from cardvault.scopes.scope import Scope
from cardvault.search.scoped import merge_ranked
from cardvault.vault.agent_names import agent_name
from cardvault.vault.config import VaultConfig, parse_config
from cardvault.vault.files import FileText, digest_text
from cardvault.vault.layout import Vault, open_vault_at
from cardvault.vault.read import VaultSnapshot
from cardvault.vault.tokens import count_tokens
from tests.support.cli import git_log, run_cli
from tests.test_context import ROOT, TODAY, check_pack_invariants, relevances, text_st, vaults

NOW = "2026-11-30T09:15"


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = run_cli(list(args), input=input)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def make_project(tmp_path: Path, name: str, remote: str | None = None) -> Path:
    """A project vault made by the real `cardvault init` (so it registers), with a remote."""
    root = tmp_path / name
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    if remote:
        subprocess.run(["git", "-C", str(root), "remote", "add", "origin", remote], check=True)
    code, _, err = run("init", str(root))
    assert code == 0, err
    return root


@pytest.fixture(autouse=True)
def pinned_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDVAULT_NOW", NOW)


# --- where the global vault is, and what a project is called ------------------------------------


def test_the_global_vault_is_never_the_real_user_folder() -> None:
    """The autouse fixture points $CARDVAULT_HOME at a temp folder; nothing made it yet."""
    root = global_root()
    assert "pytest" in str(root) and not root.exists()
    assert global_vault() is None


def test_without_cardvault_home_it_is_the_user_data_folder(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    old = dict(os.environ)
    try:
        os.environ.pop(HOME_VAR, None)
        os.environ.update(env)
        assert global_root() == (tmp_path / "data" / "cardvault").resolve()
    finally:
        os.environ.clear()
        os.environ.update(old)


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("git@github.com:acme/web.git", "github.com/acme/web"),
        ("https://github.com/Acme/Web.git", "github.com/acme/web"),
        ("ssh://git@gitlab.example.org:2222/group/sub/app", "gitlab.example.org/group/sub/app"),
        ("https://user:pw@host.io/o/r/", "host.io/o/r"),
        ("file:///srv/git/x.git", None),
        ("/srv/git/x.git", None),
    ],
)
def test_context_key_from_the_remote(url: str, key: str | None) -> None:
    assert remote_key(url) == key


def test_context_key_without_a_remote_is_the_sanitised_path(tmp_path: Path) -> None:
    folder = tmp_path / "My Project (v2)"
    folder.mkdir()
    key = path_key(folder)
    assert key.startswith("local/") and " " not in key and "(" not in key
    assert key.endswith("my-project-v2")


# --- registration ------------------------------------------------------------------------------


def test_init_creates_the_global_vault_and_registers_once(tmp_path: Path) -> None:
    alpha = make_project(tmp_path, "alpha", "git@github.com:acme/alpha.git")
    home = global_vault()
    assert home is not None and (home.root / ".git").is_dir()
    projects = read_projects(home)
    assert list(projects) == ["github.com/acme/alpha"]
    assert projects["github.com/acme/alpha"].paths == (str(alpha.resolve()),)
    before = git_log(home.root)
    code, _, _ = run("--vault", str(alpha), "scope", "--register")
    assert code == 0 and git_log(home.root) == before, "registered already: no new commit"
    code, out, _ = run("--vault", str(alpha), "scope", "--json")
    data = json.loads(out)
    assert data["key"] == "github.com/acme/alpha" and data["global_exists"]


def test_a_broken_registry_names_its_file(tmp_path: Path) -> None:
    make_project(tmp_path, "alpha")
    home = global_vault()
    assert home is not None
    (home.root / "projects.toml").write_text('["x"]\npaths = "not a list"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"projects\.toml"):
        read_projects(home)


# --- scope resolution and merging ----------------------------------------------------------------


def test_resolve_scopes(vault_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A session's scopes, project first; `all` with no project here falls back to the global
    vault with a notice, and fails when there is no global vault either."""
    home = tmp_path / "home"
    init_vault(home)  # a vault at $CARDVAULT_HOME is the global vault
    env = {**os.environ, HOME_VAR: str(home)}
    session = Session(vault_path, env=env)
    assert [s.name for s in session.scope(Scope.all).vaults] == ["project", "global"]
    assert [s.name for s in session.scope(Scope.project).vaults] == ["project"]
    nowhere = {**env, HOME_VAR: str(tmp_path / "none")}  # no global vault made
    only = Session(vault_path, env=nowhere).scope("global")
    assert only.vaults == () and only.notices
    alone = Session(vault_path, env=nowhere).scope(Scope.all, searching=True)
    assert ([s.name for s in alone.vaults], alone.notices) == (["project"], ())

    monkeypatch.chdir(tmp_path)  # no vault here or above
    fallback = Session(env=env).scope(Scope.all)
    assert [s.name for s in fallback.vaults] == ["global"] and fallback.notices
    with pytest.raises(VaultNotFoundError):
        Session(env=nowhere).scope(Scope.all)


def test_merge_ranked_by_score_project_first_on_ties() -> None:
    merged = merge_ranked([("project", [0.5, 0.2]), ("global", [0.9, 0.5])], float, 3)
    assert merged == [("global", 0.9), ("project", 0.5), ("global", 0.5)]


# --- agents ------------------------------------------------------------------------------------


def test_agent_names_are_checked() -> None:
    assert agent_name(None, {"CARDVAULT_AGENT": "Ada"}) == "ada"
    assert agent_name("bob", {"CARDVAULT_AGENT": "ada"}) == "bob"
    assert agent_name(None, {}) is None
    with pytest.raises(CardvaultError, match="invalid agent name"):
        agent_name("../etc", {})


def test_writes_name_the_agent_in_the_entry_and_the_commit(vault_path: Path) -> None:
    code, _, err = run("--vault", str(vault_path), "log", "--agent", "ada", "Lesson: pin it")
    assert code == 0, err
    text = (vault_path / "memory" / "2026-11-30.md").read_text(encoding="utf-8")
    assert "Lesson: pin it\nAgent: ada\n" in text
    trailer = subprocess.run(
        ["git", "-C", str(vault_path), "log", "-1", "--format=%(trailers:key=Agent,valueonly)"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert trailer == "ada"
    os.environ["CARDVAULT_AGENT"] = "bob"
    try:
        run("--vault", str(vault_path), "new", "Pin it", "-c", "tools", "--body", "Pin it.")
    finally:
        del os.environ["CARDVAULT_AGENT"]
    card = (vault_path / "memory" / "cards" / "pin-it.md").read_text(encoding="utf-8")
    assert "learned_by: [bob]" in card
    assert git_log(vault_path)[0] == "card: add pin-it"
    code, out, _ = run("--vault", str(vault_path), "agents", "--json")
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["ada"]["entries"] == 1 and rows["bob"]["cards"] == 1


def test_hot_memory_is_bounded_and_overflow_goes_to_the_log(vault_path: Path) -> None:
    toml = vault_path / "cardvault.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("hot_tokens = 300", "hot_tokens = 40"))
    history.commit(open_vault_at(vault_path), "smaller hot")
    for number in range(6):
        code, _, err = run("--vault", str(vault_path), "hot", "--agent", "ada",
                           f"fragment number {number} about the staging cluster")  # fmt: skip
        assert code == 0, err
    hot = (vault_path / "memory" / "agents" / "ada.md").read_text(encoding="utf-8")
    assert hot.startswith("# Hot memory: ada\n\n") and "fragment number 5" in hot
    assert count_tokens(hot) <= 40 and "fragment number 0" not in hot
    log = (vault_path / "memory" / "2026-11-30.md").read_text(encoding="utf-8")
    assert "fragment number 0" in log and "Hot memory overflow (ada)" in log
    assert "Agent: ada" in log
    code, _, err = run("--vault", str(vault_path), "hot", "a fragment")
    assert code == 1 and "--agent" in err


def test_bounded_keeps_hand_written_lines_and_the_newest_fragment() -> None:
    text = "# Hot memory: x\n\nkeep me always\n- 2026-01-01 10:00 " + "old " * 50 + "\n"
    text += "- 2026-01-02 10:00 " + "new " * 50 + "\n"
    kept, gone = bounded(text, VaultConfig(agent_hot_tokens=10))
    assert "keep me always" in kept and "new" in kept and len(gone) == 1


# --- tiers ---------------------------------------------------------------------------------------


def test_stats_shows_tiers_and_check_reports_a_hot_part_over_its_limit(vault_path: Path) -> None:
    run("--vault", str(vault_path), "hot", "--agent", "ada", "short")
    hot = vault_path / "memory" / "agents" / "ada.md"
    hot.write_text(hot.read_text(encoding="utf-8") + "word " * 400, encoding="utf-8")
    _code, out, _ = run("--vault", str(vault_path), "stats", "--json")
    tiers = {part["part"]: part for part in json.loads(out)["tiers"]}
    assert tiers["agent ada"]["tier"] == "HOT" and tiers["agent ada"]["over"]
    assert tiers["cards"]["tier"] == "WARM" and tiers["archive"]["tier"] == "COLD"
    assert tiers["MEMORY.md"]["limit"] == 2048 and tiers["rules"]["limit"] == 600
    _, out, _ = run("--vault", str(vault_path), "check")
    assert "memory/agents/ada.md:1: warning: HOT tier: agent ada is" in out
    assert "[tier-budget]" in out


def test_config_keys_for_scopes_are_validated() -> None:
    cfg = parse_config({"global": {"promote_projects": 3}, "agents": {"hot_tokens": 50}})
    assert cfg.global_promote_projects == 3 and cfg.agent_hot_tokens == 50
    with pytest.raises(ConfigError, match="review_threshold"):
        parse_config({"global": {"threshold": 0.5, "review_threshold": 0.7}})
    with pytest.raises(ConfigError, match=r"tiers\.rules_tokens"):
        parse_config({"tiers": {"rules_tokens": 0}})


# --- reads across scopes (keyword search: no model) -----------------------------------------------


@pytest.mark.slow
def test_global_writes_and_scoped_reads(tmp_path: Path) -> None:
    alpha = make_project(tmp_path, "alpha")
    base = ("--vault", str(alpha))
    run(*base, "new", "Alpha only", "-c", "tools", "--body", "Alpha ships on zebra days.")
    code, _, err = run(*base, "new", "Shared wisdom", "-c", "tools", "--global",
                       "--body", "Zebra crossings need patience everywhere.")  # fmt: skip
    assert code == 0, err
    home = global_vault()
    assert home is not None and (home.root / "memory/cards/shared-wisdom.md").is_file()
    assert not (alpha / "memory/cards/shared-wisdom.md").exists()
    code, out, _ = run(*base, "list", "--json")
    assert [r["slug"] for r in json.loads(out)] == ["alpha-only"]
    code, out, _ = run(*base, "list", "--scope", "all", "--json")
    assert {(r["vault"], r["slug"]) for r in json.loads(out)} == {
        ("project", "alpha-only"), ("global", "shared-wisdom")}  # fmt: skip
    code, out, _ = run(*base, "search", "zebra", "--mode", "keyword", "--json")
    assert {(h["vault"], h["slug"]) for h in json.loads(out)} == {
        ("project", "alpha-only"), ("global", "shared-wisdom")}  # fmt: skip
    code, out, _ = run(*base, "search", "zebra", "--mode", "keyword", "--scope", "global", "--json")
    assert [h["slug"] for h in json.loads(out)] == ["shared-wisdom"]
    code, out, _ = run(*base, "stats", "--scope", "all", "--json")
    assert [s["vault"] for s in json.loads(out)] == ["project", "global"]
    code, out, _ = run(*base, "graph", "--scope", "all", "--format", "json")
    assert [g["vault"] for g in json.loads(out)] == ["project", "global"]
    code, out, _ = run("show", "--global", "shared-wisdom")
    assert "Zebra crossings" in out


def test_a_search_leaves_a_global_vault_with_nothing_to_search_unopened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--scope all` searches the global vault beside a project once it holds a card or a log:
    before, its rules and MEMORY.md are no search's, so no index is built there and the hits
    are the project's. With no project here, the global vault is searched as it is."""
    alpha = make_project(tmp_path, "alpha")
    base = ("--vault", str(alpha))
    run(*base, "new", "Alpha only", "-c", "tools", "--body", "Alpha ships on zebra days.")
    home = global_vault()
    assert home is not None
    index = home.root / ".cardvault" / "search.sqlite"
    code, out, err = run(*base, "search", "zebra", "--mode", "keyword", "--json")
    assert code == 0, err
    assert [(h["vault"], h["slug"]) for h in json.loads(out)] == [("project", "alpha-only")]
    assert not index.exists()  # never opened, nor indexed
    monkeypatch.chdir(tmp_path)  # no vault here or above: the global vault alone, with a notice
    code, out, err = run("search", "zebra", "--mode", "keyword", "--json")
    assert (code, json.loads(out)) == (0, []) and "no project vault here" in err
    monkeypatch.chdir(alpha)
    run(*base, "new", "Shared wisdom", "-c", "tools", "--global", "--body", "Zebra crossings.")
    code, out, err = run(*base, "search", "zebra", "--mode", "keyword", "--json")
    assert code == 0, err
    assert {(h["vault"], h["slug"]) for h in json.loads(out)} == {
        ("project", "alpha-only"), ("global", "shared-wisdom")}  # fmt: skip
    assert index.exists()


def test_forget_asks_the_scope_when_the_global_vault_has_it_too(tmp_path: Path) -> None:
    alpha = make_project(tmp_path, "alpha")
    base = ("--vault", str(alpha))
    run(*base, "new", "Quokka facts", "-c", "tools", "--body", "Quokkas smile.")
    run(*base, "new", "Quokka facts", "-c", "tools", "--global", "--body", "Quokkas smile a lot.")
    code, _, err = run(*base, "forget", "quokka-facts", input="global\ny\n")
    assert code == 0, err
    home = global_vault()
    assert home is not None and not (home.root / "memory/cards/quokka-facts.md").exists()
    assert (alpha / "memory/cards/quokka-facts.md").exists()
    run(*base, "new", "Quokka facts", "-c", "tools", "--global", "--body", "Quokkas smile.")
    code, _, err = run(*base, "forget", "quokka-facts", "--scope", "everywhere", "--yes")
    assert code == 0, err
    assert not (alpha / "memory/cards/quokka-facts.md").exists()
    assert not (home.root / "memory/cards/quokka-facts.md").exists()


# --- the budget holds across scopes and tiers (property) ------------------------------------------


def _side(name: str, sources: Sources, relevance: Relevance | None, hot: str | None) -> Side:
    files = {}
    if hot is not None:
        path = ROOT / "memory" / "agents" / "ada.md"
        files["ada"] = FileText(path, hot, digest_text(hot))
    snapshot = VaultSnapshot(Vault(ROOT), (), (), None, None, hot=files)
    return Side(name, snapshot, sources, relevance)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), budget=st.integers(1, 4000))
def test_budget_holds_across_scopes_and_tiers(data: st.DataObject, budget: int) -> None:
    task = data.draw(st.none() | text_st)
    sides = []
    for name in ("project", "global"):
        sources = data.draw(vaults())
        relevance = data.draw(relevances(sources)) if task else None
        hot = data.draw(st.none() | text_st.map(lambda t: f"# Hot memory: ada\n\n- {t}"))
        sides.append(_side(name, sources, relevance, hot))
    agent = data.draw(st.sampled_from([None, "ada", "bob"]))
    pack = plan_context(sides, Request(task, budget, TODAY, agent), budget)
    assert count_tokens(pack.text) <= budget
    if budget >= 200:
        check_pack_invariants(pack, budget)
    tiers = {d.item.tier for d in pack.decisions}
    assert tiers <= {"HOT", "WARM"}
    for decision in pack.decisions:
        item = decision.item
        assert (item.tier == "HOT") == (item.kind in ("memory", "rule", "global-rule", "agent"))
        if item.kind == "agent":
            assert agent == "ada", "a hot memory is loaded for its own agent only"
        if item.vault == "global" and item.kind == "card":
            assert task is not None, "global cards come only when a task matches them"
    kinds = [d.item.kind for d in pack.decisions]
    if "global-rule" in kinds and "rule" in kinds:
        assert kinds.index("rule") < kinds.index("global-rule"), "project first"


def test_cold_cards_only_on_request(vault_path: Path) -> None:
    base = ("--vault", str(vault_path))
    run(*base, "new", "Old trick", "-c", "tools", "--body", "The walrus operator trick.")
    code, _, err = run(*base, "archive", "old-trick")
    assert code == 0, err
    _, out, _ = run(*base, "context", "--format", "json")
    assert "walrus" not in json.loads(out)["text"]
    _, out, _ = run(*base, "context", "--format", "json", "--archived")
    data = json.loads(out)
    assert "walrus" in data["text"]
    assert [r["tier"] for r in data["included"] if r["name"] == "old-trick"] == ["COLD"]


@pytest.mark.slow
def test_commands_write_only_in_the_vaults_and_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session's worth of commands leaves nothing outside the project vault, the global vault
    and the cache: $HOME and the work folder stay as they were. One exception, not cardvault's:
    importing onnxruntime writes its telemetry device id to ~/.cache/Microsoft/DeveloperTools
    (the native library does it; no setting turns it off)."""
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("CARDVAULT_HOME", str(tmp_path / "global"))
    monkeypatch.chdir(work)
    alpha = make_project(tmp_path, "alpha")
    base = ("--vault", str(alpha))
    for args in (
        ("new", "Walrus", "-c", "tools", "--body", "The walrus operator."),
        ("log", "--agent", "ada", "Lesson: use the walrus"),
        ("remember", "--global", "walruses are global"),
        ("hot", "--agent", "ada", "a fragment"),
        ("list", "--scope", "all"),
        ("search", "walrus", "--mode", "keyword"),
        ("stats", "--scope", "all"),
        ("graph", "--scope", "all"),
        ("check",),
        ("context", "--agent", "ada", "--task", "walrus"),
        ("maintain", "--only", "promote,archive,index"),
        ("agents",),
        ("scope",),
    ):
        code, _, err = run(*base, *args)
        assert code == 0, (args, err)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "gitconfig") == [
        "alpha", "global", "home", "work"]  # fmt: skip
    left = sorted(p.relative_to(home).as_posix() for p in home.rglob("*"))
    assert [p for p in left if not p.startswith(".cache/Microsoft")] in ([], [".cache"])
    assert list(work.iterdir()) == []


def test_context_says_when_the_global_vault_has_questions(tmp_path: Path) -> None:
    """A cross-project question `maintain --global` left in the global queue is one HOT line of
    every project's context (scope all), naming the command that lists it."""
    from tests.support.maintain import ask_cross_project

    alpha = make_project(tmp_path, "alpha")
    base = ("--vault", str(alpha))
    run(*base, "new", "Shared wisdom", "-c", "tools", "--global", "--body", "Be patient.")
    home = global_vault()
    assert home is not None
    ask_cross_project(home)
    code, out, err = run(*base, "context", "--format", "json")
    assert code == 0, err
    assert "1 memory decision pending: cardvault review --global" in json.loads(out)["text"]
    code, out, err = run(*base, "context", "--scope", "project", "--format", "json")
    assert "review --global" not in json.loads(out)["text"]


def test_a_named_vault_that_is_not_one_is_an_error_not_the_global_vault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--vault (or $CARDVAULT_VAULT) naming a folder that holds no vault — a typo — fails as
    `list` does; only a vault not found from the current folder falls back to the global
    vault under --scope all."""
    alpha = make_project(tmp_path, "alpha")  # its init makes the global vault
    run("--vault", str(alpha), "new", "Shared", "-c", "tools", "--global", "--body", "Zebra.")
    typo = tmp_path / "alpah"
    for argv in (
        ["search", "zebra", "--mode", "keyword"],
        ["context"],
        ["forget", "zebra", "--yes"],
    ):
        code, out, err = run("--vault", str(typo), *argv)
        assert code == 1 and out == "", (argv, out)
        assert f"{typo}: not a vault" in err
        result = run_cli(argv, env={"CARDVAULT_VAULT": str(typo)})
        assert result.exit_code == 1 and "not a vault" in result.stderr, argv
    monkeypatch.chdir(tmp_path)  # no vault here or above: the global vault alone, with a notice
    code, out, err = run("search", "zebra", "--mode", "keyword", "--json")
    assert code == 0 and [h["vault"] for h in json.loads(out)] == ["global"]
    assert "no project vault here" in err
