"""The vault lock: a second writer waits (bounded), a killed holder leaves no lock behind."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from cardvault.edits.lock import Holder, read_holder, vault_lock
from cardvault.errors import CardvaultError, ConfigError, LockedError
from cardvault.vault.config import parse_config
from cardvault.vault.layout import Vault
from tests.support.writers import lock_held_elsewhere


def test_a_second_writer_waits_for_the_first_to_finish(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    order: list[str] = []
    holding = threading.Event()

    def first() -> None:
        with vault_lock(vault):
            holding.set()
            time.sleep(0.3)
            order.append("first done")

    thread = threading.Thread(target=first)
    thread.start()
    holding.wait()
    started = time.monotonic()
    with vault_lock(vault, timeout=10):
        order.append("second in")
        waited = time.monotonic() - started
    thread.join()
    assert order == ["first done", "second in"]
    assert 0.1 < waited < 10


def test_the_wait_is_bounded_and_names_the_holder(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    told: list[Holder] = []
    with lock_held_elsewhere(tmp_path_vault(tmp_path)) as holder:
        started = time.monotonic()
        with (
            pytest.raises(LockedError) as caught,
            vault_lock(Vault(tmp_path / "v"), timeout=1.5, on_wait=told.append),
        ):
            pass
        assert time.monotonic() - started >= 1.4
    message = str(caught.value)
    assert f"pid {holder.pid}" in message and "gave up after waiting 1.5 s" in message
    assert "lock_timeout" in message
    assert told and told[0].pid == str(holder.pid)
    with vault_lock(vault, timeout=0):  # an unrelated folder was never locked
        pass


def test_a_killed_holder_leaves_no_lock(tmp_path: Path) -> None:
    root = tmp_path_vault(tmp_path)
    with lock_held_elsewhere(root) as holder:
        holder.kill()
        holder.wait()
        with vault_lock(Vault(root), timeout=5):  # the OS released it with the process
            pass


def test_a_thread_taking_the_lock_twice_is_told_at_once(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    with (
        vault_lock(vault),
        pytest.raises(CardvaultError, match="already holds"),
        vault_lock(vault, timeout=30),
    ):
        pass
    with vault_lock(vault, timeout=0):  # released
        pass


def test_after_giving_up_the_lock_still_works_for_everyone(tmp_path: Path) -> None:
    """A waiter that gave up must not keep (or later take and keep) the lock."""
    vault = Vault(tmp_path)
    release = threading.Event()

    def holder() -> None:
        with vault_lock(vault):
            release.wait()

    thread = threading.Thread(target=holder)
    thread.start()
    time.sleep(0.1)
    with pytest.raises(LockedError), vault_lock(vault, timeout=0.2):
        pass
    release.set()
    thread.join()
    time.sleep(0.1)  # the abandoned waiter takes the lock and lets it go at once
    with vault_lock(vault, timeout=2):
        pass


def test_the_holder_is_recorded_for_the_message(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    with vault_lock(vault) as path:
        holder = read_holder(path)
    assert holder.pid.isdigit() and holder.since is not None
    assert "pid" in holder.describe()


def test_lock_timeout_is_a_setting() -> None:
    assert parse_config({"write": {"lock_timeout": 5}}).lock_timeout == 5.0
    with pytest.raises(ConfigError, match=r"write\.lock_timeout"):
        parse_config({"write": {"lock_timeout": -1}})


def tmp_path_vault(tmp_path: Path) -> Path:
    """A folder that opens as a vault (a config file is all `open_vault_at` needs)."""
    root = tmp_path / "v"
    root.mkdir(exist_ok=True)
    (root / "cardvault.toml").write_text("", encoding="utf-8")
    return root


def test_a_cache_path_that_is_not_a_folder_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / ".cardvault").write_text("not a folder", encoding="utf-8")
    with (
        pytest.raises(CardvaultError, match="must be a writable folder"),
        vault_lock(Vault(tmp_path)),
    ):
        pass
