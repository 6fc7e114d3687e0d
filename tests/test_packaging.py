"""The package as a user installs it. The wheel setuptools builds from this checkout holds every
module and data file under cardvault/ (the vault templates, the view's style and script) and the
`cardvault` command; installed into a folder of its own it makes a vault and writes its page from
the installed files alone. Offline: the wheel is built with the setuptools at hand (no isolated
build environment to fill), and installed without dependencies or an index (this environment
has them)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BUILD = "import sys; from setuptools import build_meta; print(build_meta.build_wheel(sys.argv[1]))"


def _tracked() -> list[str]:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the package's files are not listed")
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "cardvault", "pyproject.toml", "README.md"],
        capture_output=True, check=True,
    )  # fmt: skip
    return [name for name in listed.stdout.decode("utf-8").split("\0") if name]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a copy of the checkout's tracked package files."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    for name in _tracked():
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)
    done = subprocess.run(
        [sys.executable, "-c", BUILD, str(work / "dist")],
        cwd=source, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return work / "dist" / done.stdout.strip().splitlines()[-1]


def test_the_wheel_holds_every_file_of_the_package(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    package = {name for name in _tracked() if name.startswith("cardvault/")}
    assert package - names == set(), "package files missing from the wheel"
    data = {name for name in package if not name.endswith(".py")}
    assert {"cardvault/templates/cardvault.toml", "cardvault/insight/view_assets/view.js"} <= data
    (entry,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry).decode("utf-8")
    assert "cardvault = cardvault.cli.entry:main" in text


def test_the_installed_wheel_makes_a_vault_and_its_page(wheel: Path, tmp_path: Path) -> None:
    """`cardvault init` and `cardvault view` from the wheel installed into a folder of its own
    (first on the path; the dependencies are this environment's): the templates and the page's
    assets come from the installed package, not from this checkout."""
    target = tmp_path / "installed"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    env["CARDVAULT_HOME"] = str(tmp_path / "home")
    install = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
               "--target", str(target), str(wheel)]  # fmt: skip
    done = subprocess.run(install, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (target / "bin" / "cardvault").is_file()
    env["PYTHONPATH"] = str(target)

    def cardvault(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "cardvault", *args], env=env, cwd=tmp_path,
                              capture_output=True, text=True, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    where = subprocess.run(
        [sys.executable, "-c", "import cardvault; print(cardvault.__file__)"],
        env=env, cwd=tmp_path, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert Path(where.stdout.strip()).is_relative_to(target), where.stdout
    cardvault("init", str(tmp_path / "vault"))
    assert (tmp_path / "vault" / "cardvault.toml").is_file()
    cardvault("--vault", str(tmp_path / "vault"), "view", "--out", str(tmp_path / "v.html"))
    page = (tmp_path / "v.html").read_text(encoding="utf-8")
    assert "CardvaultLayout" in page and '<meta name="generator" content="cardvault view">' in page
