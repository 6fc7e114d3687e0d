"""The resident process (`cardvault serve`) and the CLI's fast path to it, run for real:
real `cardvault` subprocesses, a real server process on a real unix socket, the real model."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardvault.cli.entry import answer_from_server, split_global_options
from cardvault.serve.client import run
from cardvault.serve.control import lock_holder, server_status
from cardvault.serve.protocol import PROTOCOL, RunRequest, socket_path
from cardvault.trust.store import approve
from tests.support.machine import scaled
from tests.support.serve import (
    cli,
    fake_server,
    outcome,
    requests_served,
    run_in_terminal,
    running_server,
    wait_for_status,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PARAPHRASE = "my containers keep getting terminated because they use too much RAM"
COMMANDS = [
    ["search", PARAPHRASE, "--json"],
    ["search", "docker", "--mode", "keyword", "-k", "3"],
    ["search", "reverse proxy rejects big uploads", "--mode", "semantic", "-c", "infrastructure"],
    ["search", "migration lock", "--logs", "--json"],
    ["search", "vpn", "--archived", "--status", "archived"],
    ["search", "x", "--mode", "fuzzy"],
    ["context"],
    ["context", "--task", "deploy to kubernetes", "--format", "json", "--explain"],
    ["context", "--task", "nginx upload limit", "--budget", "300"],
    ["context", "--budget", "0"],
]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["search", "q"], (None, ["search", "q"])),
        (["--vault", "/v", "search", "q", "--json"], ("/v", ["search", "q", "--json"])),
        (["-V", "/v", "context"], ("/v", ["context"])),
        (["--vault=/v", "context", "-t", "x"], ("/v", ["context", "-t", "x"])),
        (["--help"], None),
        (["--version", "search"], None),
        (["--vault"], None),
        (["--vault=", "search"], None),
        ([], (None, [])),
    ],
)
def test_fast_path_reads_global_options_like_typer(argv: list[str], expected: object) -> None:
    assert split_global_options(argv) == expected


@pytest.mark.slow
def test_results_are_identical_with_and_without_the_server(indexed_sample: Path) -> None:
    cli(indexed_sample, "search", "warm the index")
    alone = [outcome(cli(indexed_sample, *command)) for command in COMMANDS]
    assert alone[0][0] == 0 and json.loads(alone[0][1])[0]["slug"] == (
        "kubernetes-oomkilled-memory-limits"
    )
    assert alone[5][0] == 2 and alone[9][0] == 2  # usage errors are answered the same way too
    with running_server(indexed_sample):
        served = [outcome(cli(indexed_sample, *command)) for command in COMMANDS]
        assert requests_served(indexed_sample) == len(COMMANDS)
    for command, mine, theirs in zip(COMMANDS, served, alone, strict=True):
        assert mine == theirs, command


@pytest.mark.slow
def test_the_global_vault_is_searched_the_same_way(
    indexed_sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a global vault ($CARDVAULT_HOME), `search` and `context` (scope all by default) read
    both vaults, in the server as in-process."""
    shared = tmp_path / "global"
    shutil.copytree(FIXTURES / "search-vault", shared)
    monkeypatch.setenv("CARDVAULT_HOME", str(shared))
    commands = [
        ["search", "csrf token rejected on login", "--json"],
        ["search", "docker", "--mode", "keyword", "-k", "4"],
        ["context", "--task", "login fails with a csrf error", "--format", "json"],
    ]
    alone = [outcome(cli(indexed_sample, *command)) for command in commands]
    assert {hit["vault"] for hit in json.loads(alone[0][1])} == {"project", "global"}
    with running_server(indexed_sample):
        served = [outcome(cli(indexed_sample, *command)) for command in commands]
        assert requests_served(indexed_sample) == len(commands)
    assert served == alone


@pytest.mark.slow
def test_terminal_output_is_identical_byte_for_byte(indexed_sample: Path) -> None:
    argv = [sys.executable, "-m", "cardvault", "search", "docker image fails", "-k", "3"]
    cli(indexed_sample, "search", "warm the index")
    alone = run_in_terminal(argv, cwd=indexed_sample)
    with running_server(indexed_sample):
        served = run_in_terminal(argv, cwd=indexed_sample)
        assert requests_served(indexed_sample) == 1
    assert alone[0] == 0 and b"\x1b[" in alone[1] and "┃".encode() in alone[1]
    assert served == alone


@pytest.mark.slow
def test_a_terminal_of_zero_columns_gets_the_table_either_way(indexed_sample: Path) -> None:
    """A pseudo-terminal that reports 0 x 0 (COLUMNS=0 is forwarded to the server): the table
    at the default width, as without the server, never an empty answer."""
    argv = [sys.executable, "-m", "cardvault", "search", "docker image fails", "-k", "3"]
    cli(indexed_sample, "search", "warm the index")
    alone = run_in_terminal(argv, cwd=indexed_sample, columns=0)
    with running_server(indexed_sample):
        served = run_in_terminal(argv, cwd=indexed_sample, columns=0)
        assert requests_served(indexed_sample) == 1
    assert alone[0] == 0 and "┃".encode() in alone[1] and b"docker" in alone[1].lower()
    assert served == alone


@pytest.mark.slow
def test_an_edit_made_while_it_runs_is_found_by_the_next_search(indexed_sample: Path) -> None:
    card = indexed_sample / "memory" / "cards" / "quokka-feeding.md"
    query = ["search", "quokka feeding schedule", "--json"]
    with running_server(indexed_sample):
        assert "quokka-feeding" not in cli(indexed_sample, *query).stdout
        card.write_text(
            "---\ntopic: Quokka Feeding\ncategory: lessons\ntags: [zoo]\ncreated: 2026-11-30\n"
            "updated: 2026-11-30\n---\nFeed the quokkas at noon, never after dusk.\n"
        )
        hits = json.loads(cli(indexed_sample, *query).stdout)
        assert hits[0]["slug"] == "quokka-feeding"
        card.write_text(card.read_text().replace("noon", "sunrise"))
        hits = json.loads(cli(indexed_sample, "search", "sunrise", "--mode", "keyword").stdout)
        assert hits[0]["slug"] == "quokka-feeding" and "sunrise" in hits[0]["snippet"]
        assert requests_served(indexed_sample) == 3


@pytest.mark.slow
def test_a_changed_cardvault_toml_is_seen(indexed_sample: Path) -> None:
    config = indexed_sample / "cardvault.toml"
    with running_server(indexed_sample):
        assert json.loads(cli(indexed_sample, "context", "-f", "json").stdout)["budget"] == 2000
        config.write_text(config.read_text().replace("token_budget = 2000", "token_budget = 700"))
        assert json.loads(cli(indexed_sample, "context", "-f", "json").stdout)["budget"] == 700
        assert requests_served(indexed_sample) == 2


@pytest.mark.slow
def test_a_killed_server_leaves_nothing_that_breaks_the_next_command(indexed_sample: Path) -> None:
    expected = outcome(cli(indexed_sample, "search", PARAPHRASE, "--json"))
    with running_server(indexed_sample) as process:
        process.kill()
        process.wait()
        assert socket_path(indexed_sample).exists()  # stale, and the lock is free
        assert lock_holder(indexed_sample) is None
        assert outcome(cli(indexed_sample, "search", PARAPHRASE, "--json")) == expected
        status = cli(indexed_sample, "serve", "--status")
        assert status.returncode == 1 and "no server" in status.stderr
    started = cli(indexed_sample, "serve", "--background", "--idle-timeout", "5")
    assert started.returncode == 0, started.stderr
    try:
        assert outcome(cli(indexed_sample, "search", PARAPHRASE, "--json")) == expected
        assert requests_served(indexed_sample) == 1
    finally:
        assert cli(indexed_sample, "serve", "--stop").returncode == 0
    assert not socket_path(indexed_sample).exists() and lock_holder(indexed_sample) is None


@pytest.mark.slow
def test_status_stop_and_a_second_server(indexed_sample: Path) -> None:
    assert cli(indexed_sample, "serve", "--status").returncode == 1
    assert "no server was running" in cli(indexed_sample, "serve", "--stop").stdout
    started = cli(indexed_sample, "serve", "-d", "--idle-timeout", "5")
    assert started.returncode == 0 and "serving" in started.stdout
    pid = wait_for_status(indexed_sample).pid
    again = cli(indexed_sample, "serve", "-d")
    assert again.returncode == 0 and f"pid {pid}" in again.stdout  # the running one, not a new one
    second = cli(indexed_sample, "serve", "--idle-timeout", "1")
    assert second.returncode == 1 and f"already served by pid {pid}" in second.stderr
    status = cli(indexed_sample, "serve", "--status")
    assert status.returncode == 0 and f"pid {pid}" in status.stdout
    stopped = cli(indexed_sample, "serve", "--stop")
    assert stopped.returncode == 0 and f"pid {pid}" in stopped.stdout
    assert server_status(indexed_sample) is None and lock_holder(indexed_sample) is None


@pytest.mark.slow
def test_stop_and_background_print_json_when_asked(indexed_sample: Path) -> None:
    """A script that stops or starts the server with --json reads one object (as --status
    gives it), never the sentence a person reads."""
    none = cli(indexed_sample, "serve", "--stop", "--json")
    assert none.returncode == 0
    assert json.loads(none.stdout) == {"stopped": False, "pid": None, "vault": str(indexed_sample)}
    started = cli(indexed_sample, "serve", "-d", "--idle-timeout", "5", "--json")
    assert started.returncode == 0, started.stderr
    shown = json.loads(started.stdout)
    assert shown["running"] is True and shown["pid"] == wait_for_status(indexed_sample).pid
    stopped = cli(indexed_sample, "serve", "--stop", "--json")
    assert stopped.returncode == 0
    assert json.loads(stopped.stdout) == {
        "stopped": True, "pid": shown["pid"], "vault": str(indexed_sample)
    }  # fmt: skip
    assert server_status(indexed_sample) is None


@pytest.mark.slow
def test_it_exits_after_the_idle_timeout(indexed_sample: Path) -> None:
    with running_server(indexed_sample, idle_minutes=0.05) as process:
        assert process.wait(scaled(120)) == 0
        assert not socket_path(indexed_sample).exists()


@pytest.mark.slow
def test_it_answers_only_search_and_context(indexed_sample: Path) -> None:
    before = sorted(p.name for p in (indexed_sample / "memory").iterdir())
    with running_server(indexed_sample):
        for argv in (["log", "sneaky"], ["forget", "docker"], ["index", "--rebuild"]):
            request = RunRequest(argv, {}, False, False, "utf-8")
            assert run(indexed_sample.resolve(), request) is None
        assert requests_served(indexed_sample) == 3
    assert sorted(p.name for p in (indexed_sample / "memory").iterdir()) == before


@pytest.mark.slow
def test_a_socket_open_to_other_users_is_ignored(indexed_sample: Path) -> None:
    expected = outcome(cli(indexed_sample, "search", PARAPHRASE, "--json"))
    with running_server(indexed_sample):
        os.chmod(socket_path(indexed_sample), 0o666)
        assert outcome(cli(indexed_sample, "search", PARAPHRASE, "--json")) == expected
        os.chmod(socket_path(indexed_sample), 0o600)
        assert requests_served(indexed_sample) == 0


@pytest.mark.slow
@pytest.mark.skipif(os.getuid() != 0, reason="only root can give a file to another user")
def test_a_socket_owned_by_another_user_is_ignored(indexed_sample: Path) -> None:
    expected = outcome(cli(indexed_sample, "search", PARAPHRASE, "--json"))
    with running_server(indexed_sample):
        os.chown(socket_path(indexed_sample), 65534, 65534)
        assert outcome(cli(indexed_sample, "search", PARAPHRASE, "--json")) == expected
        os.chown(socket_path(indexed_sample), 0, 0)
        assert requests_served(indexed_sample) == 0


def _answer(request: dict, **fields: object) -> bytes:
    from cardvault import __version__
    from cardvault.serve.protocol import install

    base = {"v": PROTOCOL, "id": request.get("id"), "root": request.get("root"),
            "version": __version__, "install": install(), "ok": True, "code": 0,
            "output": [[1, "FAKE\n"]]}  # fmt: skip
    return json.dumps({**base, **fields}).encode()


GARBAGE = {
    "not json": lambda request: b"\x00\xffnot json at all",
    "nothing": lambda request: b"",
    "another request's id": lambda request: _answer(request, id="0123456789abcdef"),
    "another protocol": lambda request: _answer(request, v=PROTOCOL + 1),
    "another version": lambda request: _answer(request, version="0.0.0-old"),
    "another install": lambda request: _answer(request, install="/other/clone|/other/venv"),
    "no install": lambda request: _answer(request, install=None),
    "another vault": lambda request: _answer(request, root="/somewhere/else"),
    "a failure": lambda request: _answer(request, ok=False, error="boom"),
    "code as text": lambda request: _answer(request, code="0"),
    "output not a list": lambda request: _answer(request, output="FAKE"),
    "stream 3": lambda request: _answer(request, output=[[3, "FAKE"]]),
    "an array": lambda request: b"[1, 2, 3]",
}


@pytest.mark.parametrize("kind", sorted(GARBAGE))
def test_a_garbage_answer_is_ignored(
    vault_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--vault", str(vault_path), "search", "anything"]
    with fake_server(vault_path, GARBAGE[kind]) as received:
        assert answer_from_server(argv) is None
    assert len(received) == 1 and received[0]["argv"] == ["search", "anything"]
    assert capsys.readouterr() == ("", "")


def test_a_server_that_does_not_answer_in_time_is_ignored(vault_path: Path) -> None:
    def slow(request: dict) -> bytes:
        time.sleep(2)
        return _answer(request)

    request = RunRequest(["search", "anything"], {}, False, False, "utf-8")
    with fake_server(vault_path, slow) as received:  # its answer, once it comes, is valid
        assert run(vault_path.resolve(), request, timeout=0.3) is None
    assert len(received) == 1


def test_a_well_formed_answer_is_replayed(
    vault_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The control for the garbage cases: the same fake server, answering properly, is used."""
    reply = lambda request: _answer(request, code=3, output=[[2, "warn\n"], [1, "out\n"]])  # noqa: E731
    with fake_server(vault_path, reply):
        assert answer_from_server(["--vault", str(vault_path), "search", "x"]) == 3
    assert capsys.readouterr() == ("out\n", "warn\n")


@pytest.mark.slow
def test_a_command_still_works_when_the_server_answers_garbage(indexed_sample: Path) -> None:
    expected = outcome(cli(indexed_sample, "search", PARAPHRASE, "--json"))
    with fake_server(indexed_sample, GARBAGE["not json"]) as received:
        assert outcome(cli(indexed_sample, "search", PARAPHRASE, "--json")) == expected
        assert len(received) == 1


PROBE = """
import json, sys
from cardvault.cli.entry import answer_from_server
code = answer_from_server(sys.argv[1:])
heavy = {"typer", "click", "rich", "numpy", "onnxruntime", "tokenizers", "git", "yaml",
         "frontmatter", "markdown_it", "torch"}
print(json.dumps({"code": code, "heavy": sorted({m.split(".")[0] for m in sys.modules} & heavy)}))
"""


def _probe(root: Path) -> dict:
    argv = ["--vault", str(root), "search", PARAPHRASE, "--json"]
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_the_fast_path_imports_nothing_heavy(indexed_sample: Path) -> None:
    assert _probe(indexed_sample) == {"code": None, "heavy": []}  # no server: a few stat calls
    with running_server(indexed_sample):
        assert _probe(indexed_sample) == {"code": 0, "heavy": []}


def test_the_vaults_of_a_long_lived_process_share_one_model(
    vault_path: Path, tmp_path: Path
) -> None:
    """`cardvault serve` and `cardvault mcp` search the project and the global vault: set to
    the same model, both use one query model (one ONNX session in memory); another model in
    one vault's settings gets its own."""
    from cardvault.api import WarmHandles
    from cardvault.app.vaults import init_vault

    other = tmp_path / "other"
    init_vault(other)
    handles = WarmHandles()
    try:
        shared = handles.handle(vault_path).searcher.model
        assert handles.handle(other).searcher.model is shared
        toml = other / "cardvault.toml"
        text = toml.read_text(encoding="utf-8")
        changed = re.sub(r"(?m)^model = .*$", 'model = "./no-such-model"', text, count=1)
        assert changed != text
        toml.write_text(changed, encoding="utf-8")
        approve(other, [("search.model", "./no-such-model")], dt.datetime(2026, 3, 19))
        assert handles.handle(other).searcher.model is not shared
    finally:
        handles.close()
