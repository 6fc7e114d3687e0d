"""Shared fixtures: hermetic git and environment, and fresh real vaults in temp folders."""

from __future__ import annotations

import fcntl
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from cardvault.search.embedder import Embedder

from cardvault.vault.config import DEFAULT_MODEL
from tests.support.cli import REPO, SAMPLE_VAULT

#: The property tests draw the same cases on every run, so a red run is the change's doing, not
#: a new draw's (CI once went red on a case a test, not the product, had wrong).
#: `CARDVAULT_HYPOTHESIS=explore pytest` draws new cases on each run, to look for more.
HYPOTHESIS_VAR = "CARDVAULT_HYPOTHESIS"
settings.register_profile("fixed", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get(HYPOTHESIS_VAR, "fixed"))


@functools.cache
def modes_bind() -> bool:
    """Whether file modes stop this process: a file chmod 000 cannot be read (not so for root,
    nor for a process with CAP_DAC_OVERRIDE). Probed, not guessed from the user id."""
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / "probe"
        probe.write_text("x")
        probe.chmod(0)
        try:
            probe.read_text()
        except PermissionError:
            return True
        return False


#: Set by .ci/unprivileged: there, a permission test that cannot run is a failure, not a skip.
UNPRIVILEGED_VAR = "CARDVAULT_TEST_UNPRIVILEGED"


#: How many `permissions` tests this run left to .ci/unprivileged (said in the summary).
_LEFT_TO_UNPRIVILEGED: list[str] = []


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A `permissions` test needs a process that file modes bind. As root they are not run
    (nor skipped) here: `.ci/run` runs them next as an unprivileged user (.ci/unprivileged),
    and the summary says how many were left to it. With CARDVAULT_TEST_UNPRIVILEGED set (that
    run), a process file modes do not bind is an error."""
    if modes_bind():
        return
    if os.environ.get(UNPRIVILEGED_VAR):
        raise pytest.UsageError(
            f"{UNPRIVILEGED_VAR} is set but file modes do not bind this process"
        )
    left = [item for item in items if item.get_closest_marker("permissions") is not None]
    if left:
        _LEFT_TO_UNPRIVILEGED.extend(item.nodeid for item in left)
        config.hook.pytest_deselected(items=left)
        items[:] = [item for item in items if item.get_closest_marker("permissions") is None]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    # Under xdist the workers collect (and leave the tests out): the controller knows no count.
    if _LEFT_TO_UNPRIVILEGED or (
        terminalreporter.config.pluginmanager.hasplugin("dsession") and not modes_bind()
    ):
        count = f"{len(_LEFT_TO_UNPRIVILEGED)} " if _LEFT_TO_UNPRIVILEGED else "the "
        terminalreporter.write_line(
            f"{count}permission tests not run here: file modes do not bind"
            " this process (root); `bash .ci/unprivileged` runs them as an ordinary user"
            " (.ci/run does, next)"
        )


#: Variables of the caller that would reach into a test: the vault, the agent, the clock, the
#: git identity and repository (a test that needs one names it), and the terminal's colours and
#: size (a test that needs them sets them: support.serve.run_in_terminal).
CALLER_VARS = (
    "CARDVAULT_VAULT",
    "CARDVAULT_NOW",
    "CARDVAULT_AGENT",
    "CARDVAULT_GIT_HOOKS",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "EMAIL",
    # The terminal the suite happens to run in: rich and click read these to colour and wrap.
    "FORCE_COLOR",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "COLUMNS",
    "LINES",
)


def make_hermetic(patch: pytest.MonkeyPatch, home: Path, global_root: Path) -> None:
    """Point HOME, the XDG data folder, git's global config and $CARDVAULT_HOME at fresh temp
    folders and drop the caller's vault, agent, clock and git identity: a test sees neither
    the developer's dotfiles nor an empty or unwritable HOME of a CI runner."""
    patch.setenv("HOME", str(home))
    patch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    patch.setenv("CARDVAULT_HOME", str(global_root / "vault"))
    # the user's own settings and trust approvals (docs/security.md): none, in a temp folder
    patch.setenv("CARDVAULT_CONFIG_DIR", str(home / ".config" / "cardvault"))
    patch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in CALLER_VARS:
        patch.delenv(var, raising=False)
    patch.setenv("HF_HUB_OFFLINE", "1")
    patch.setenv("TRANSFORMERS_OFFLINE", "1")
    # no test leaves a resident process behind (tests/test_autoserve.py turns this off)
    patch.setenv("CARDVAULT_NO_AUTOSERVE", "1")


@pytest.fixture(scope="session", autouse=True)
def session_model_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One CARDVAULT_CACHE for the whole run, set before any fixture of any scope uses the
    model, its ONNX copy exported into it before any test runs: once per run (the xdist
    workers share it), in a process of its own, so torch (about 470 MB) never loads into a
    test process. The session's fixtures (the indexed templates, which commit with git) get
    the same hermetic environment as each test."""
    with pytest.MonkeyPatch.context() as patch:
        home = tmp_path_factory.mktemp("session-home")
        make_hermetic(patch, home, tmp_path_factory.mktemp("session-global"))
        cache = exported_model_cache(tmp_path_factory)
        patch.setenv("CARDVAULT_CACHE", str(cache))
        yield cache


def exported_model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's model cache holding the ONNX copy: the first xdist worker to come exports it
    (in a subprocess), the others wait on the lock and find it done."""
    base = tmp_path_factory.getbasetemp()
    run = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    cache = run / "model-cache"
    with open(run / "model-cache.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (cache / "exported").is_file():
            export = (
                "import pathlib\n"
                "from cardvault.search.model import resolve_model\n"
                "from cardvault.search.onnx import ensure_onnx\n"
                f"ensure_onnx(resolve_model({DEFAULT_MODEL!r}, pathlib.Path({str(REPO)!r})))\n"
            )
            env = {**os.environ, "CARDVAULT_CACHE": str(cache)}
            subprocess.run([sys.executable, "-c", export], env=env, check=True, cwd=REPO)
            (cache / "exported").touch()
    return cache


@pytest.fixture(scope="session")
def embedder(session_model_cache: Path) -> Embedder:
    """The vault default model, loaded once per test process (the maintenance and review tests
    hand it to the services: tests.support.maintain.run): its ONNX copy in onnxruntime, the
    embedder `cardvault index` uses (the same vectors as sentence-transformers', to float
    precision: tests/test_search_embedder.py), without torch."""
    from cardvault.search.bulk import onnx_embedder
    from cardvault.search.model import resolve_model

    return onnx_embedder(resolve_model(DEFAULT_MODEL, REPO), bulk=True)


@pytest.fixture(autouse=True)
def hermetic_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's git config, vault variable, agent, clock, settings or trust
    approvals, and none touches
    the real global vault: $CARDVAULT_HOME is a fresh temp folder (not created: the first write
    to the global vault makes it)."""
    make_hermetic(monkeypatch, tmp_path_factory.mktemp("home"), tmp_path_factory.mktemp("global"))


@pytest.fixture
def vault_path(tmp_path: Path) -> Path:
    """A fresh vault made by `cardvault init` (real git repo, first commit)."""
    from cardvault.app.vaults import init_vault

    root = tmp_path / "vault"
    init_vault(root)
    return root


@pytest.fixture
def sample_vault(tmp_path: Path) -> Iterator[Path]:
    """A copy of the bundled sample-vault/ as a git repository with one commit."""
    from cardvault import history
    from cardvault.vault.layout import open_vault_at

    root = tmp_path / "sample"
    shutil.copytree(SAMPLE_VAULT, root)
    history.init_repo(root)
    history.commit(open_vault_at(root), "sample vault")
    yield root


@pytest.fixture(scope="session")
def indexed_sample_template(
    tmp_path_factory: pytest.TempPathFactory, session_model_cache: Path
) -> Path:
    """The sample vault as a git repository, indexed with the real model once per run."""
    from cardvault import history, open_vault
    from cardvault.vault.layout import open_vault_at

    root = tmp_path_factory.mktemp("indexed-sample") / "sample"
    shutil.copytree(SAMPLE_VAULT, root)
    history.init_repo(root)
    history.commit(open_vault_at(root), "sample vault")
    open_vault(root).index()
    return root


@pytest.fixture(scope="session")
def search_vault_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/fixtures/search-vault indexed with the real model, once per run (tests copy it:
    `support.search.copy_vault`)."""
    from cardvault import open_vault

    root = tmp_path_factory.mktemp("search-vault") / "vault"
    shutil.copytree(REPO / "tests" / "fixtures" / "search-vault", root)
    with open_vault(root) as handle:
        handle.index()
    return root


@pytest.fixture
def indexed_sample(tmp_path: Path, indexed_sample_template: Path) -> Path:
    """A copy of the indexed sample vault (git history, index and vectors) of its own."""
    return Path(shutil.copytree(indexed_sample_template, tmp_path / "sample", symlinks=True))
