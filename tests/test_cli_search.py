"""The `search` and `index` commands; a search loads onnxruntime but never torch.

(tests/test_startup.py checks that commands which do not search load none of the model stack.)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.search import copy_vault

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "sentence_transformers", "onnxruntime", "transformers")


@pytest.fixture
def vault_root(search_vault_template: Path, tmp_path: Path) -> Path:
    return copy_vault(search_vault_template, tmp_path / "vault")


@pytest.mark.slow
def test_search_json_parses(vault_root: Path) -> None:
    result = run_cli(
        ["--vault", str(vault_root), "search", "Cortex CSRF header", "--json", "-k", "3"]
    )
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)
    assert 1 <= len(hits) <= 3 and hits[0]["slug"] == "cortex-csrf-automation"
    keys = {"slug", "path", "topic", "category", "tags", "score", "weak", "snippet", "kind"}
    assert keys <= set(hits[0])
    first = hits[0]
    assert first["keyword"]["rank"] == 1 and first["semantic"]["rank"] == 1
    assert first["passage"] == {"number": 0, "of": 1}
    assert 0.5 < first["score"] <= 1 and not first["weak"]  # a calibrated probability
    # The hybrid score's coefficients for the cosine and the keyword share (as the query's
    # semantic spread sets them; they no longer sum to 2 as the coverage rule's weights did).
    weights = first["weights"]
    assert weights["keyword"] > 0 and weights["semantic"] > 0


@pytest.mark.slow
def test_search_logs_and_filters_in_json(vault_root: Path) -> None:
    args = ["--vault", str(vault_root), "search", "race between fixtures", "--logs", "--json"]
    hits = json.loads(run_cli(args).stdout)
    assert hits[0]["entry"] == "09:15 Flaky CI" and hits[0]["path"] == "memory/2026-11-03.md"
    args = ["--vault", str(vault_root), "search", "docker", "--tag", "arm64", "--json"]
    assert [h["slug"] for h in json.loads(run_cli(args).stdout)] == ["docker-apple-silicon"]


@pytest.mark.slow
def test_index_piped_writes_no_progress_bar_remains_to_stderr(vault_root: Path) -> None:
    """The progress bar is for a terminal: piped, it left a lone blank line on stderr (the
    demo script's output showed it before "✓ 8 documents ...")."""
    result = run_cli(["--vault", str(vault_root), "index", "--rebuild"])
    assert result.exit_code == 0, result.output
    assert "" not in result.stderr.splitlines(), repr(result.stderr)


def test_a_long_index_piped_says_how_far_it_is_now_and_then(
    vault_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Piped (an agent reading stderr), a first index of thousands of notes printed nothing
    for minutes; it now writes a plain line every PIPED_EVERY seconds (every call here)."""
    from cardvault.cli import render

    monkeypatch.setattr(render, "PIPED_EVERY", 0.0)
    result = run_cli(["--vault", str(vault_root), "index", "--rebuild"])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert "" not in lines, lines
    assert any(re.fullmatch(r"cardvault: embedding \d+/\d+(, about \d+ (s|min) left)?", line)
               for line in lines), lines  # fmt: skip


def never_indexed(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`root` as a vault never indexed (its search database removed), with a piped progress
    line on every report (PIPED_EVERY 0)."""
    from cardvault.cli import render

    databases = list((root / ".cardvault").glob("search.sqlite*"))
    assert databases
    for db in databases:
        db.unlink()
    monkeypatch.setattr(render, "PIPED_EVERY", 0.0)


def test_a_first_search_piped_says_how_far_its_index_is(
    vault_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first search of a vault never indexed built its index inside the search and printed
    nothing meanwhile, piped or not (minutes on thousands of long notes, taken for a hang); it
    now shows the progress `cardvault index` shows, then answers."""
    never_indexed(vault_root, monkeypatch)
    result = run_cli(["--vault", str(vault_root), "search", "Cortex CSRF header", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["slug"] == "cortex-csrf-automation"
    lines = result.stderr.splitlines()
    assert any(line.startswith("cardvault: embedding ") for line in lines), lines
    again = run_cli(["--vault", str(vault_root), "search", "Cortex CSRF header", "--json"])
    assert not any(line.startswith("cardvault: ") for line in again.stderr.splitlines())


def test_a_first_context_for_a_task_says_how_far_its_index_is(
    vault_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`context --task` ranks by a search too: on a vault never indexed it built the index
    inside the query with nothing to show; it now shows the progress, then prints the pack."""
    never_indexed(vault_root, monkeypatch)
    args = ["--vault", str(vault_root), "context", "--task", "Cortex CSRF header", "--json"]
    result = run_cli(args)
    assert result.exit_code == 0, result.output
    assert "cortex-csrf-automation" in result.stdout
    lines = result.stderr.splitlines()
    assert any(line.startswith("cardvault: embedding ") for line in lines), lines


@pytest.mark.slow
def test_index_reports_counts(vault_root: Path) -> None:
    broken = vault_root / "memory" / "cards" / "broken-card.md"
    broken.write_text(broken.read_text() + "Edited.\n")  # re-read, so reported again
    result = run_cli(["--vault", str(vault_root), "index"])
    assert result.exit_code == 0, result.output
    assert "0 passages embedded" in result.stdout
    assert "broken-card.md" in result.stderr


def test_keyword_search_needs_no_model_at_all(tmp_path: Path) -> None:
    root = copy_vault(REPO / "tests" / "fixtures" / "search-vault", tmp_path / "vault")
    (root / "cardvault.toml").write_text('[search]\nmodel = "./nothing-here"\n')
    assert run_cli(["--vault", str(root), "trust", "--yes"]).exit_code == 0  # the user's choice
    result = run_cli(["--vault", str(root), "search", "PgBouncer", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["slug"] == "postgres-connection-pool"
    assert "keyword results only" in result.stderr


def _modules_after(args: list[str], cwd: Path) -> set[str]:
    """Run the CLI in a fresh interpreter and list which heavy modules it imported."""
    code = (
        "import sys\nfrom cardvault.cli.app import app\n"
        f"try:\n    app({args!r})\nexcept BaseException:\n    pass\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "CARDVAULT_NOW": "2026-11-30T09:15"}
    env.update(
        {
            f"GIT_{who}_{key}": value
            for who in ("AUTHOR", "COMMITTER")
            for key, value in (("NAME", "Test"), ("EMAIL", "test@example.com"))
        }
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return {name for name in done.stdout.strip().splitlines()[-1].split(",") if name}


@pytest.mark.slow
def test_search_itself_never_imports_torch(vault_root: Path) -> None:
    assert _modules_after(["search", "docker", "--json"], vault_root) == {"onnxruntime"}


@pytest.mark.slow
def test_a_search_writes_nothing_outside_the_vault_and_the_cache(
    vault_root: Path, tmp_path: Path
) -> None:
    """onnxruntime's usage database (~/.cache/Microsoft/DeveloperTools) is switched off."""
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    env.pop("ORT_DISABLE_TELEMETRY", None)
    done = subprocess.run(
        [sys.executable, "-m", "cardvault", "--vault", str(vault_root), "search", "csrf"],
        env=env, cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert sorted(p.relative_to(home).as_posix() for p in home.rglob("*")) == []


@pytest.mark.slow
def test_a_search_of_the_project_and_the_global_vault_loads_the_model_once(
    vault_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`search` reads the project and the global vault (scope all, the default): both are set
    to the same model, so one ONNX session serves both; hits come from both vaults."""
    from cardvault.search import onnx

    new = run_cli(
        ["new", "--global", "Zeppelin hangar doors", "-c", "tools",
         "--body", "The hangar doors open with the blue lever; never force them."]
    )  # fmt: skip
    assert new.exit_code == 0, new.output
    made: list[object] = []
    real_init = onnx.OnnxEmbedder.__init__

    def counted(self: object, *args: object, **kwargs: object) -> None:
        made.append(self)
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(onnx.OnnxEmbedder, "__init__", counted)
    monkeypatch.setattr(onnx, "_LOADED", {})  # what earlier tests of this process loaded
    # the query shares a word with each vault, so each answers (a vault with no evidence for a
    # query answers nothing); the point here is that both vaults were searched.
    args = ["--vault", str(vault_root), "search", "airship shed gates csrf", "--json"]
    result = run_cli(args)
    assert result.exit_code == 0, result.output
    vaults = {hit["vault"] for hit in json.loads(result.stdout)}
    assert vaults == {"project", "global"}
    assert len(made) == 1


@pytest.mark.slow
def test_index_of_unreadable_cards_names_a_few_and_ticks_nothing(vault_path: Path) -> None:
    """Every card unreadable: a few are named, the rest counted, and no ✓ for 0 documents."""
    cards = vault_path / "memory" / "cards"
    for number in range(12):
        (cards / f"broken-{number:02}.md").write_text("---\ntopic: [bad\n---\nbody\n")
    result = run_cli(["--vault", str(vault_path), "index"])
    assert result.exit_code == 0, result.output
    named = re.findall(r"skipped memory/cards/broken-\d\d\.md", result.stderr)
    assert len(named) == 5 and "skipped 7 more files" in result.stderr, result.stderr
    assert "✓" not in result.output and "nothing indexed: 12 files" in result.stderr
