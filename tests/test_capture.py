"""`cardvault capture`: real failing commands, run through the real CLI in a subprocess.

Each test runs `cardvault capture -- CMD` as a process (real stdin/stdout/stderr, real exit
codes and signals) against a fresh vault with a real git repository. The process starts with
signal dispositions the test names (`LAUNCHER`), never the ones pytest happened to inherit: run
as a background job of a script, pytest itself ignores SIGINT and SIGQUIT, and under `nohup`
SIGHUP, and a child would inherit that.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardvault.capture import failure
from cardvault.capture.record import captures_of
from cardvault.capture.run import PASSED_ON
from cardvault.vault.layout import open_vault_at
from tests.support.cli import git_log
from tests.support.machine import scaled

PY = sys.executable
NOW = "2026-11-30T10:15"
LOG = "memory/2026-11-30.md"
BAD_TOML = 'name = "demo"\nport = = 8080\n'
JOB_SIGNALS = ("SIGINT", "SIGQUIT", "SIGHUP", "SIGTERM")
#: `python -c LAUNCHER IGNORED PROGRAM ARGS...`: sets every job signal to default, or to ignored
#: for those named in IGNORED (comma-separated), then becomes PROGRAM (dispositions survive exec).
LAUNCHER = (
    "import os, signal, sys\n"
    "ignored = set(sys.argv[1].split(','))\n"
    f"for name in {JOB_SIGNALS!r}:\n"
    "    way = signal.SIG_IGN if name in ignored else signal.SIG_DFL\n"
    "    signal.signal(getattr(signal, name), way)\n"
    "os.execv(sys.argv[2], sys.argv[2:])\n"
)
#: What a shell script gives `cardvault capture -- CMD &`, and what `nohup` gives.
BACKGROUND = ("SIGINT", "SIGQUIT")
NOHUP = ("SIGHUP",)


def launched(ignored: tuple[str, ...] = ()) -> list[str]:
    """The start of a command line that runs what follows with `ignored` ignored."""
    return [PY, "-c", LAUNCHER, ",".join(ignored)]


def capture_args(vault: Path | None, ignored: tuple[str, ...] = ()) -> list[str]:
    """`cardvault [--vault V] capture --`, started with `ignored` ignored and the rest default."""
    vault_args = ["--vault", str(vault)] if vault else []
    return [*launched(ignored), PY, "-m", "cardvault", *vault_args, "capture", "--"]


def capture(
    vault: Path | None,
    *command: str,
    cwd: Path | None = None,
    now: str = NOW,
    ignored: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """Run `cardvault [--vault V] capture -- COMMAND...` as a real process."""
    env = {**os.environ, "CARDVAULT_NOW": now}
    return subprocess.run(
        [*capture_args(vault, ignored), *command],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=scaled(120),
    )  # fmt: skip


def log_text(vault: Path) -> str:
    return (vault / LOG).read_text()


def test_missing_module_is_logged_and_exit_code_kept(vault_path: Path) -> None:
    done = capture(vault_path, PY, "-c", "import nosuchmodule")
    assert done.returncode == 1
    assert "ModuleNotFoundError: No module named 'nosuchmodule'" in done.stderr  # passed through
    text = log_text(vault_path)
    assert "## 10:15 — Command failed:" in text
    assert "Category: dependency" in text
    assert "Exit code: 1\n" in text
    assert f"Directory: {Path.cwd()}" in text
    assert "Normalised: ModuleNotFoundError: No module named <q>" in text
    assert "~~~text\nTraceback (most recent call last):" in text
    assert "Seen: 1\n" in text
    assert git_log(vault_path)[0].startswith("log: 2026-11-30 10:15 Command failed")
    assert "dependency failure logged" in done.stderr


def test_second_identical_failure_bumps_the_counter(vault_path: Path) -> None:
    first = capture(vault_path, PY, "-c", "import nosuchmodule")
    second = capture(vault_path, PY, "-c", "import nosuchmodule", now="2026-11-30T11:02")
    assert first.returncode == second.returncode == 1
    text = log_text(vault_path)
    assert text.count("Traceback (most recent call last)") == 1, "no second copy of the tail"
    assert "## 11:02 — Failed again:" in text
    assert re.search(r"Seen: 2 \(first: memory/2026-11-30\.md#[0-9a-f]{6}\)", text)  # by id
    signature = failure.signature("ModuleNotFoundError: No module named <q>")
    assert len(captures_of(open_vault_at(vault_path), signature)) == 2
    assert "seen 2×" in second.stderr
    third = capture(vault_path, PY, "-c", "import nosuchmodule", now="2026-12-01T08:00")
    assert "seen 3×" in third.stderr
    first_id = re.search(r"## 10:15 — .*<!-- id:([0-9a-f]{6}) -->", text)
    assert first_id is not None
    assert (
        f"Seen: 3 (first: memory/2026-11-30.md#{first_id.group(1)})"
        in (vault_path / "memory/2026-12-01.md").read_text()
    )


def test_same_error_elsewhere_has_the_same_signature(vault_path: Path, tmp_path: Path) -> None:
    for folder, name in (("a", "settings.json"), ("b", "deep/other.yaml")):
        (tmp_path / folder).mkdir()
        capture(vault_path, PY, "-c", f"open('{tmp_path / folder / name}')", cwd=tmp_path / folder)
    text = log_text(vault_path)
    assert text.count("Signature:") == 2
    assert "Failed again" in text and "Seen: 2" in text


def test_permission_error(vault_path: Path, tmp_path: Path) -> None:
    tool = tmp_path / "tool.sh"
    tool.write_text("#!/bin/sh\necho hi\n")
    tool.chmod(0o000)  # not executable, even for root
    done = capture(vault_path, "bash", "-c", str(tool))
    assert done.returncode == 126
    assert "Permission denied" in done.stderr
    assert "Category: permission" in log_text(vault_path)


@pytest.mark.permissions
def test_permission_error_on_reading(vault_path: Path, tmp_path: Path) -> None:
    secret = tmp_path / "data.txt"
    secret.write_text("x")
    secret.chmod(0o000)
    done = capture(vault_path, PY, "-c", f"open({str(secret)!r}).read()")
    assert done.returncode == 1
    assert "Category: permission" in log_text(vault_path)


def test_bad_config_file(vault_path: Path, tmp_path: Path) -> None:
    (tmp_path / "app.toml").write_text(BAD_TOML)
    code = "import tomllib; tomllib.load(open('app.toml', 'rb'))"
    done = capture(vault_path, PY, "-c", code, cwd=tmp_path)
    assert done.returncode == 1
    text = log_text(vault_path)
    assert "Category: config" in text and "TOMLDecodeError" in text


def test_known_fix_in_a_card_is_shown(vault_path: Path) -> None:
    (vault_path / "memory" / "cards" / "tomllib-missing-module.md").write_text(
        "---\ntopic: Python module missing in the venv\ncategory: tools\ntags: [python]\n"
        "created: 2026-11-01\nupdated: 2026-11-01\n---\n"
        "ModuleNotFoundError: No module named 'nosuchmodule' means the venv is not active.\n"
        "Fix: run `source .venv/bin/activate`, then `pip install -e .`\n"
    )
    done = capture(vault_path, PY, "-c", "import nosuchmodule")
    assert done.returncode == 1
    assert "known fixes" in done.stderr
    assert "Fix: run `source .venv/bin/activate`, then `pip install -e .`" in done.stderr
    assert "memory/cards/tomllib-missing-module.md" in done.stderr


def test_unrelated_card_is_not_offered_as_a_fix(vault_path: Path) -> None:
    (vault_path / "memory" / "cards" / "npm-modules.md").write_text(
        "---\ntopic: npm modules\ncategory: tools\ntags: [npm]\ncreated: 2026-11-01\n"
        "updated: 2026-11-01\n---\nFix: delete node_modules when the module cache is stale.\n"
    )
    done = capture(vault_path, PY, "-c", "import nosuchmodule")
    assert "node_modules" not in done.stderr and "no known fix yet" in done.stderr


def test_fix_logged_for_a_signature_is_shown_next_time(vault_path: Path) -> None:
    first = capture(vault_path, PY, "-c", "import nosuchmodule")
    signature = first.stderr.split("signature ")[1][:8]
    subprocess.run(
        [PY, "-m", "cardvault", "--vault", str(vault_path), "log",
         f"Fix: pip install nosuchmodule-client (signature {signature})"],
        check=True, capture_output=True, env={**os.environ, "CARDVAULT_NOW": "2026-11-30T10:20"},
    )  # fmt: skip
    second = capture(vault_path, PY, "-c", "import nosuchmodule", now="2026-11-30T10:30")
    assert "Fix: pip install nosuchmodule-client" in second.stderr
    fix_entry = [line for line in (vault_path / "memory/2026-11-30.md").read_text().splitlines()
                 if line.startswith("## 10:20 — ")]  # fmt: skip
    entry_id = fix_entry[0].split("<!-- id:")[1].split(" ")[0]  # cited by its id
    assert f"memory/2026-11-30.md#{entry_id}" in second.stderr
    assert "seen 2×" in second.stderr, "the fix entry is not counted as a capture"


def test_success_passes_output_and_writes_nothing(vault_path: Path) -> None:
    before = git_log(vault_path)
    done = capture(
        vault_path, PY, "-c", "print('hello out'); import sys; print('note', file=sys.stderr)"
    )
    assert done.returncode == 0
    assert done.stdout == "hello out\n" and done.stderr == "note\n"
    assert git_log(vault_path) == before and not (vault_path / LOG).exists()


@pytest.mark.parametrize("code", [2, 7, 255])
def test_exit_codes_pass_through(vault_path: Path, code: int) -> None:
    assert capture(vault_path, PY, "-c", f"import sys; sys.exit({code})").returncode == code


SELF_TERM = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
SELF_INT = "import os, signal; os.kill(os.getpid(), signal.SIGINT)"


@pytest.mark.parametrize(
    "ignored", [(), BACKGROUND, NOHUP], ids=["foreground", "background", "nohup"]
)
def test_killed_by_signal_is_reported_the_same_however_started(
    vault_path: Path, ignored: tuple[str, ...]
) -> None:
    done = capture(vault_path, PY, "-c", SELF_TERM, ignored=ignored)
    assert done.returncode == 128 + signal.SIGTERM
    text = log_text(vault_path)
    assert f"Exit code: {128 + signal.SIGTERM} (killed by SIGTERM)\n" in text
    assert "Category: runtime" in text
    assert f"Error: {Path(PY).name}: killed by SIGTERM\n" in text
    if ignored:  # said in the entry and on stderr: the command ran with them ignored
        assert f"Ignored signals: {', '.join(ignored)} (inherited:" in text
        assert f"the command ran with these signals ignored: {', '.join(ignored)}" in done.stderr
    else:
        assert "Ignored signals" not in text and "signals ignored" not in done.stderr


def test_interrupted_by_ctrl_c_is_130_and_not_logged(vault_path: Path) -> None:
    done = capture(vault_path, PY, "-c", SELF_INT)
    assert done.returncode == 128 + signal.SIGINT
    assert not (vault_path / LOG).exists()


def test_a_background_job_runs_its_command_as_a_shell_would(vault_path: Path) -> None:
    """Started in the background by a script, cardvault inherits SIGINT ignored, and its command
    does too, exactly as if the script had started the command itself: SIGINT does not stop it."""
    direct = subprocess.run([*launched(BACKGROUND), PY, "-c", SELF_INT], timeout=scaled(60))
    done = capture(vault_path, PY, "-c", SELF_INT + "; print('still here')", ignored=BACKGROUND)
    assert direct.returncode == done.returncode == 0
    assert done.stdout == "still here\n" and not (vault_path / LOG).exists()
    failed = capture(vault_path, PY, "-c", "import sys; sys.exit(3)", ignored=BACKGROUND)
    assert failed.returncode == 3
    assert (
        "Ignored signals: SIGINT, SIGQUIT (inherited: started in the background by a script?)"
        in (log_text(vault_path))
    )


def _wait_until_catching(pid: int, number: int) -> None:
    """Wait until process `pid` has a handler for signal `number` (Linux: /proc/PID/status)."""
    status = Path(f"/proc/{pid}/status")
    for _ in range(6000):
        found = re.search(r"^SigCgt:\s*([0-9a-f]+)$", status.read_text(), re.M)
        assert found is not None
        if int(found.group(1), 16) >> (number - 1) & 1:
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} never caught signal {number}")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc/PID/status")
@pytest.mark.parametrize(
    ("ignored", "sent", "code"),
    [((), ("SIGHUP",), 42), (NOHUP, ("SIGHUP", "SIGTERM"), 15)],
    ids=["default", "nohup"],
)
def test_a_signal_ignored_at_start_is_not_passed_on(
    vault_path: Path, ignored: tuple[str, ...], sent: tuple[str, ...], code: int
) -> None:
    """SIGHUP sent to cardvault is passed on (the command's handler exits 42); under nohup it
    reaches neither, and the SIGTERM sent after it is what ends the command (exit 15)."""
    child = (
        "import os, signal, time\n"
        "signal.signal(signal.SIGHUP, lambda *_: os._exit(42))\n"
        "signal.signal(signal.SIGTERM, lambda *_: os._exit(15))\n"
        "print('ready', flush=True)\n"
        "time.sleep(120)\n"
    )
    env = {**os.environ, "CARDVAULT_NOW": NOW}
    args = [*capture_args(vault_path, ignored), PY, "-c", child]
    out = subprocess.PIPE
    with subprocess.Popen(args, env=env, text=True, stdout=out, stderr=out) as proc:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"  # handlers set
        for name in PASSED_ON:  # cardvault is waiting for its command, every handler set
            if name not in ignored:
                _wait_until_catching(proc.pid, getattr(signal, name))
        for name in sent:
            proc.send_signal(getattr(signal, name))
        proc.communicate(timeout=scaled(120))
    assert proc.returncode == code


def test_capture_without_a_command_is_a_usage_error(vault_path: Path) -> None:
    done = capture(vault_path)
    assert done.returncode == 2 and "name a command to run" in done.stderr


def test_missing_program_is_127(vault_path: Path) -> None:
    done = capture(vault_path, "no-such-program-xyz", "--flag")
    assert done.returncode == 127 and "command not found" in done.stderr
    assert "Category: dependency" in log_text(vault_path)


def test_commands_own_flags_pass_through(vault_path: Path) -> None:
    done = capture(
        vault_path, PY, "-c", "import sys; print(sys.argv[1:])", "--help", "-x", "--vault"
    )
    assert done.returncode == 0 and done.stdout == "['--help', '-x', '--vault']\n"


def test_unwritable_vault_warns_and_keeps_the_exit_code(vault_path: Path) -> None:
    (vault_path / LOG).mkdir(parents=True)  # today's log path cannot be written as a file
    done = capture(vault_path, PY, "-c", "import sys; sys.exit(3)")
    assert done.returncode == 3
    assert "warning:" in done.stderr and "not logged" in done.stderr


def test_missing_vault_warns_and_keeps_the_exit_code(tmp_path: Path) -> None:
    done = capture(None, PY, "-c", "import nosuchmodule", cwd=tmp_path)
    assert done.returncode == 1
    assert "ModuleNotFoundError" in done.stderr and "failure not captured" in done.stderr


def test_secrets_in_stderr_and_command_are_redacted(vault_path: Path) -> None:
    token = "ghp_" + "Zq8xT1vN4kLm7Rp2Ws9Yb3Cd6Fg0Hj5Kt8Ua"
    code = f"import sys; sys.stderr.write('auth failed for {token}\\n'); sys.exit(4)"
    done = capture(vault_path, PY, "-c", code)
    assert done.returncode == 4 and token in done.stderr  # the terminal still sees it all
    text = log_text(vault_path)
    assert token not in text and "auth failed for" in text


def test_stderr_is_passed_through_live(vault_path: Path) -> None:
    pause = scaled(3)  # the command's run after its first line: the line must come before
    code = (
        "import sys, time; print('early', file=sys.stderr, flush=True);"
        f" time.sleep({pause}); sys.exit(1)"
    )
    args = [PY, "-m", "cardvault", "--vault", str(vault_path), "capture", "--", PY, "-c", code]
    start = time.monotonic()
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    first = proc.stderr.readline()
    arrived = time.monotonic() - start
    proc.communicate(timeout=scaled(60))
    assert first == "early\n" and arrived < pause - 0.1, f"stderr arrived after {arrived:.1f}s"
    assert proc.returncode == 1


def test_success_loads_no_model_guard_or_git() -> None:
    probe = (
        "import sys\nfrom cardvault.cli.app import app\n"
        "try:\n    app(['capture', '--', sys.executable, '-c', 'pass'])\n"
        "except SystemExit as exc:\n    code = exc.code\n"
        "heavy = ['torch', 'sentence_transformers', 'onnxruntime', 'numpy', 'git',"
        " 'detect_secrets', 'cardvault.guard', 'cardvault.search.index']\n"
        "print(code, [m for m in heavy if m in sys.modules])\n"
    )
    out = subprocess.run([PY, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0 []"


def test_failure_lookup_loads_no_model(vault_path: Path) -> None:
    probe = (
        "import sys\nfrom cardvault.cli.app import app\n"
        f"try:\n    app(['--vault', {str(vault_path)!r}, 'capture', '--', sys.executable, '-c',"
        " 'import nosuchmodule'])\n"
        "except SystemExit as exc:\n    code = exc.code\n"
        "heavy = ('torch', 'sentence_transformers', 'onnxruntime')\n"
        "print(code, [m for m in heavy if m in sys.modules])\n"
    )
    out = subprocess.run([PY, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "1 []"
    logs = list((vault_path / "memory").glob("*.md"))
    assert len(logs) == 1 and "Category: dependency" in logs[0].read_text()


CASES = (
    (
        "Traceback (most recent call last):\nModuleNotFoundError: No module named 'x'",
        1,
        "dependency",
    ),
    ("bash: line 1: ./tool.sh: Permission denied", 126, "permission"),
    ("tomllib.TOMLDecodeError: Invalid value (at line 2, column 8)", 1, "config"),
    ('  File "app.py", line 3\n    def f(:\nSyntaxError: invalid syntax', 1, "syntax"),
    ("curl: (7) Failed to connect to api port 443: Connection refused", 7, "network"),
    ("AssertionError: expected 3 got 4", 1, "logic"),
    ("Segmentation fault (core dumped)", 139, "runtime"),
    ("", 1, "logic"),
    ("", 137, "runtime"),
    ("zsh: command not found: foo", 127, "dependency"),
)


@pytest.mark.parametrize(("stderr", "code", "category"), CASES)
def test_categories(stderr: str, code: int, category: str) -> None:
    line = failure.error_line(stderr, code, "prog")
    assert failure.categorize(line, stderr, code) == category


def test_signature_ignores_places_but_not_errors() -> None:
    a = failure.normalise("FileNotFoundError: [Errno 2] No such file: '/home/a/x.json' at 0x7f3a2b")
    b = failure.normalise("FileNotFoundError: [Errno 2] No such file: '/srv/b/y.json' at 0x11ee00")
    c = failure.normalise("PermissionError: [Errno 13] Permission denied: '/home/a/x.json'")
    assert a == b and failure.signature(a) == failure.signature(b) != failure.signature(c)
    assert failure.error_line("", 3, "/usr/bin/pytest") == "pytest: exit status 3"
