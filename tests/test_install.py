"""`cardvault install HOST [--project]` for real, in a temporary HOME: the files each host reads
are written as docs/agents.md says (user level: this machine's absolute paths; project level:
none), the hooks they register run (a shell, the host's JSON on stdin, a real vault), a second
install changes nothing, `--dry-run` and a piped run without `--yes` write nothing, and
`--uninstall` gives back every file byte for byte (pre-seeded with other servers, hooks and
comments), removing the files and folders install made."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import git_log, run_cli

BIN = Path(sys.executable).parent
HOSTS = ("claude-code", "codex", "cursor")
LEVELS = ("user", "project")
RULE = "Never commit .env files; commit only .env.example with placeholder values."
KNOWN_LESSON = (
    "S3 listing is paginated: list_objects_v2 returns at most 1000 keys, so one call silently "
    "misses objects in a large prefix; always paginate."
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh HOME with the variables the hosts and cardvault read pointed inside it."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home


@pytest.fixture
def project(sample_vault: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sample vault as a project (a git repository holding its vault), the current folder."""
    monkeypatch.chdir(sample_vault)
    return sample_vault


def host_files(host: str, level: str, home: Path, project: Path) -> tuple[Path, Path]:
    """(MCP file, hooks file) of `host` at `level`, as docs/agents.md lists them."""
    base = home if level == "user" else project
    if host == "claude-code":
        mcp = home / ".claude.json" if level == "user" else project / ".mcp.json"
        return mcp, base / ".claude" / "settings.json"
    if host == "codex":
        return base / ".codex" / "config.toml", base / ".codex" / "hooks.json"
    return base / ".cursor" / "mcp.json", base / ".cursor" / "hooks.json"


def install(host: str, level: str, project: Path, *extra: str) -> Any:
    args = ["--vault", str(project)] if level == "user" else []
    return run_cli([*args, "install", host, *(["--project"] if level == "project" else []), *extra])


def server_of(host: str, mcp_file: Path) -> dict[str, Any]:
    if host == "codex":
        return tomllib.loads(mcp_file.read_text())["mcp_servers"]["cardvault"]
    return json.loads(mcp_file.read_text())["mcpServers"]["cardvault"]


def hook_commands(host: str, hooks_file: Path) -> dict[str, str]:
    """cardvault's command for each of its events, read from the written hooks file."""
    data = json.loads(hooks_file.read_text())["hooks"]
    if host == "cursor":
        names = {"session-start": "sessionStart", "pre-compact": "preCompact", "stop": "stop"}
        return {ours: data[theirs][0]["command"] for ours, theirs in names.items()}
    names = {"session-start": "SessionStart", "pre-compact": "PreCompact", "stop": "Stop"}
    return {ours: data[theirs][-1]["hooks"][0]["command"] for ours, theirs in names.items()}


def hook_input(host: str, project: Path, transcript: Path | None, event: str) -> str:
    """The JSON the host sends its hook on stdin."""
    if host == "cursor":
        data: dict[str, Any] = {
            "conversation_id": "c0ffee00-1234",
            "workspace_roots": [str(project)],
        }
    else:
        data = {"session_id": "5e55104e-9abc", "cwd": str(project)}
    data["hook_event_name"] = event
    if transcript is not None:
        data["transcript_path"] = str(transcript)
    return json.dumps(data)


def run_hook(command: str, stdin: str, path: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The hook as the host runs it: through a shell, from the project folder."""
    env = {**os.environ, "PATH": path, "CARDVAULT_NOW": "2026-11-30T17:45"}
    return subprocess.run(
        ["sh", "-c", command], input=stdin, capture_output=True, text=True, env=env, cwd=cwd
    )


def assistant_line(host: str, text: str) -> str:
    """One assistant message as `host` writes it in its transcript."""
    if host == "codex":
        payload = {"type": "message", "role": "assistant",
                   "content": [{"type": "output_text", "text": text}]}  # fmt: skip
        return json.dumps({"type": "response_item", "payload": payload})
    if host == "cursor":
        return json.dumps(
            {"role": "assistant", "message": {"content": [{"type": "text", "text": text}]}}
        )
    tool = {"type": "tool_use", "name": "Bash", "input": {"command": "echo 'Lesson: no'"}}
    message = {"role": "assistant", "content": [{"type": "text", "text": text}, tool]}
    return json.dumps({"type": "assistant", "message": message})


def user_line(text: str) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}})


SESSION = (
    "Found it: the suite hangs because of the plugin.\n"
    "**Lesson:** pytest-xdist workers hang when pytest-randomly reseeds; run with -p no:randomly.\n"
    "```text\nFix: this is pasted output, not a lesson\n```\n"
    f"- Rule: {RULE}\n"
    f"Lesson: {KNOWN_LESSON}\n"
    "- Fix: pin urllib3 below 2 for the old boto client"
)
LOGGED = (
    "Lesson: pytest-xdist workers hang when pytest-randomly reseeds; run with -p no:randomly.",
    "Fix: pin urllib3 below 2 for the old boto client",
)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("host", HOSTS)
def test_install_writes_the_documented_files_and_its_hooks_run(
    host: str, level: str, home: Path, project: Path, tmp_path: Path
) -> None:
    mcp_file, hooks_file = host_files(host, level, home, project)
    done = install(host, level, project, "--yes")
    assert done.exit_code == 0, done.output
    assert mcp_file.is_file() and hooks_file.is_file()
    server = server_of(host, mcp_file)
    commands = hook_commands(host, hooks_file)
    if level == "user":
        assert server == {
            "command": str(BIN / "cardvault"),
            "args": ["mcp", "--vault", str(project)],
        }
        for event, command in commands.items():
            assert command == f"{BIN / 'cardvault'} --vault {project} hook {event} --host {host}"
        path = "/usr/bin:/bin"  # the venv is not on PATH: the absolute program still runs
    else:
        assert server == {"command": "cardvault", "args": ["mcp"]}
        for event, command in commands.items():
            assert command == f"cardvault hook {event} --host {host}"
        for written in (mcp_file, hooks_file):
            text = written.read_text()
            for machine_path in (str(home), sys.prefix, str(BIN), str(project), str(tmp_path)):
                assert machine_path not in text, f"{written} names {machine_path}"
        path = f"{BIN}{os.pathsep}/usr/bin:/bin"  # a teammate's PATH holds cardvault

    started = run_hook(commands["session-start"], hook_input(host, project, None, "SessionStart"),
                       path, project)  # fmt: skip
    assert started.returncode == 0, started.stderr
    context = (
        json.loads(started.stdout)["additional_context"] if host == "cursor" else started.stdout
    )
    assert "# Learned rules" in context and RULE in context

    transcript = tmp_path / "session.jsonl"
    transcript.write_text(user_line("Lesson: what the user typed is not logged") + "\n"
                          + assistant_line(host, SESSION) + "\n")  # fmt: skip
    before = len(git_log(project))
    stop = hook_input(host, project, transcript, "Stop")
    for _ in range(2):  # the second run finds nothing new
        captured = run_hook(commands["stop"], stop, path, project)
        assert captured.returncode == 0, captured.stderr
        assert captured.stdout == ("{}\n" if host == "cursor" else "")
    log = (project / "memory" / "2026-11-30.md").read_text()
    assert [line for line in log.splitlines() if line.startswith(("Lesson:", "Fix:", "Rule:"))] == [
        *LOGGED
    ]
    assert (
        f"Via: {dict(zip(HOSTS, ('Claude Code', 'Codex', 'Cursor'), strict=True))[host]} stop hook"
        in log
    )
    assert len(git_log(project)) == before + 1

    with transcript.open("a") as handle:  # the session goes on; compaction comes
        handle.write(
            assistant_line(host, "Gotcha: the staging bucket is us-west-2, not us-east-1") + "\n"
        )
    compact = hook_input(host, project, transcript, "PreCompact")
    compacted = run_hook(commands["pre-compact"], compact, path, project)
    assert compacted.returncode == 0, compacted.stderr
    log = (project / "memory" / "2026-11-30.md").read_text()
    assert log.count("Gotcha: the staging bucket is us-west-2") == 1
    assert log.count(LOGGED[0]) == 1 and len(git_log(project)) == before + 2


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("host", HOSTS)
def test_a_second_install_changes_nothing(host: str, level: str, home: Path, project: Path) -> None:
    assert install(host, level, project, "--yes").exit_code == 0
    files = host_files(host, level, home, project)
    written = [path.read_bytes() for path in files]
    again = install(host, level, project, "--yes")
    assert again.exit_code == 0 and "nothing to change" in again.output
    assert [path.read_bytes() for path in files] == written


def seed(home: Path, project: Path) -> dict[Path, bytes]:
    """Host files as a user has them: other servers, other hooks, comments, odd layouts."""
    files = {
        home / ".claude.json": json.dumps(
            {
                "numStartups": 12,
                "mcpServers": {"github": {"command": "gh-mcp", "args": []}},
                "projects": {"/src/x": {"allowedTools": []}},
            },
            indent=2,
        ),
        home / ".claude" / "settings.json": (
            '{\n    "model": "opus",\n    "hooks": {\n        "PreToolUse": [\n            '
            '{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}\n'
            '        ],\n        "Stop": [\n            {"hooks": [{"type": "command", '
            '"command": "notify-send done"}]}\n        ]\n    }\n}\n'
        ),
        project / ".mcp.json": '{"mcpServers": {"db": {"command": "db-mcp", "args": ["--ro"]}}}',
        project / ".claude" / "settings.json": '{"permissions": {"allow": ["Bash(ls:*)"]}}\n',
        home / ".codex" / "config.toml": (
            '# my Codex settings\nmodel = "o3"  # the fast one\n\n[mcp_servers.docs]\n'
            'command = "npx"\nargs = ["-y", "docs-mcp"]\n\n# keep this comment\n'
            '[profiles.work]\nmodel = "o4"'
        ),
        project / ".codex" / "hooks.json": json.dumps(
            {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "make env"}]}]}},
            indent=4,
        )
        + "\n",
        home / ".cursor" / "mcp.json": '{\n  "mcpServers": {}\n}\n',  # as Cursor makes it
        project / ".cursor" / "mcp.json": "\n",  # an editor's new, empty file
        home / ".cursor" / "hooks.json": json.dumps(
            {"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}]}}, indent=2
        ),
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return {path: text.encode() for path, text in files.items()}


def everything(home: Path, project: Path) -> dict[str, bytes | None]:
    """Every host file of every host and level (None: absent), and whether each folder is."""
    seen: dict[str, bytes | None] = {}
    for host in HOSTS:
        for level in LEVELS:
            for path in host_files(host, level, home, project):
                seen[str(path)] = path.read_bytes() if path.exists() else None
                seen[str(path.parent)] = b"folder" if path.parent.is_dir() else None
    return seen


def test_uninstall_restores_every_file_byte_for_byte(home: Path, project: Path) -> None:
    seed(home, project)
    original = everything(home, project)
    for host in HOSTS:
        for level in LEVELS:
            assert install(host, level, project, "--yes").exit_code == 0
    installed = everything(home, project)
    changed = {path for path in original if original[path] != installed[path]}
    assert len(changed) >= 12, "every host file gained cardvault's entries"
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert settings["hooks"]["Stop"][0]["hooks"][0]["command"] == "notify-send done"
    assert settings["model"] == "opus" and len(settings["hooks"]["Stop"]) == 2
    codex = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert set(codex["mcp_servers"]) == {"docs", "cardvault"} and codex["profiles"]["work"]
    for host in HOSTS:
        for level in LEVELS:
            done = install(host, level, project, "--uninstall", "--yes")
            assert done.exit_code == 0, done.output
    assert everything(home, project) == original
    again = install("codex", "user", project, "--uninstall", "--yes")
    assert again.exit_code == 0 and "not installed" in again.output


def test_uninstalling_everything_leaves_no_install_records(home: Path, project: Path) -> None:
    """README: the install records (~/.local/state/cardvault/) are gone once everything is
    uninstalled: the folder too, not only the file in it."""
    state = home / ".local" / "state" / "cardvault"
    for host in HOSTS:
        assert install(host, "user", project, "--yes").exit_code == 0
    assert (state / "installs.json").is_file()
    for host in HOSTS:
        assert install(host, "user", project, "--uninstall", "--yes").exit_code == 0
    assert not state.exists()
    assert (home / ".local" / "state").is_dir()  # the shared state folder stays


def test_dry_run_and_a_piped_run_without_yes_write_nothing(home: Path, project: Path) -> None:
    seed(home, project)
    before = everything(home, project)
    dry = install("claude-code", "user", project, "--dry-run")
    assert dry.exit_code == 0
    assert "+++ ~/.claude/settings.json" in dry.stdout and "+++ ~/.claude.json" in dry.stdout
    lines = dry.stdout.splitlines()
    added = {line[1:] for line in lines if line.startswith("+") and not line.startswith("+++")}
    removed = [line[1:] for line in lines if line.startswith("-") and not line.startswith("---")]
    assert all(line + "," in added for line in removed), "a kept line only gains its comma"
    assert (
        f'+                        "command": "{BIN / "cardvault"} --vault {project} hook stop'
        in (dry.stdout)
    )
    piped = install("cursor", "project", project)
    assert piped.exit_code == 1 and "--yes" in piped.output
    assert "+++ .cursor/hooks.json" in piped.stdout
    assert everything(home, project) == before


def test_codex_home_moves_the_user_level_files(
    home: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    assert install("codex", "user", project, "--yes").exit_code == 0
    assert (codex_home / "config.toml").is_file() and (codex_home / "hooks.json").is_file()
    assert not (home / ".codex").exists()


def test_a_file_that_is_not_plain_json_is_refused_and_kept(home: Path, project: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  // my settings\n  "model": "opus"\n}\n')
    done = install("claude-code", "user", project, "--yes")
    assert done.exit_code == 1
    assert f"{settings}:2: not valid JSON" in done.output.replace("\n", " ")
    assert settings.read_text() == '{\n  // my settings\n  "model": "opus"\n}\n'
    assert not (home / ".claude.json").exists(), "nothing is written when one file is refused"


def test_project_files_are_never_written_through_a_link(
    home: Path, project: Path, tmp_path: Path
) -> None:
    """A repository could ship `.cursor` as a link to ~/.ssh: cardvault refuses, reads nothing."""
    target = tmp_path / "elsewhere"
    target.mkdir()
    (project / ".cursor").symlink_to(target)
    done = install("cursor", "project", project, "--yes")
    assert done.exit_code == 1 and "symbolic link" in done.output
    assert list(target.iterdir()) == []


def test_a_project_install_needs_the_vault_found_from_the_project(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "project"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    done = run_cli(["install", "claude-code", "--project", "--yes"])
    assert done.exit_code == 1 and "project-level hooks find the vault" in done.output
    assert not (elsewhere / ".mcp.json").exists()


def test_a_user_install_names_the_vault_it_pins(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    done = run_cli(["install", "claude-code", "--yes"])
    assert done.exit_code == 1 and "pass --vault PATH" in done.output
    assert not (home / ".claude.json").exists()


def test_codex_config_edits_keep_the_comments_around_cardvaults_table(
    home: Path, project: Path
) -> None:
    """An older cardvault table is replaced in place and uninstall takes it out; the user's
    comment below it belongs to the next table and stays through both (a whole-table
    delete in a TOML document model drops it with the table)."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    work = '# the work profile\n[profiles.work]\nmodel = "o4"\n'
    config.write_text(
        f'model = "o3"\n\n[mcp_servers.cardvault]\ncommand = "old-cardvault"\nargs = []\n\n{work}'
    )
    assert install("codex", "user", project, "--yes").exit_code == 0
    installed = config.read_text()
    assert installed.startswith('model = "o3"\n\n') and installed.endswith("\n\n" + work)
    assert server_of("codex", config)["command"] == str(BIN / "cardvault")
    assert install("codex", "user", project, "--uninstall", "--yes").exit_code == 0
    assert config.read_text() == f'model = "o3"\n\n{work}'


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('model = "o3"\nmodel = "o4"\n', "not valid TOML: Cannot overwrite a value (at line 2"),
        ('mcp_servers = { cardvault = { command = "x" } }\n', "[mcp_servers.cardvault] is def"),
        ('[mcp_servers]\ncardvault.command = "x"\n', "[mcp_servers.cardvault] is def"),
    ],
)
def test_a_codex_config_cardvault_cannot_edit_is_refused_and_kept(
    home: Path, project: Path, text: str, said: str
) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(text)
    done = install("codex", "user", project, "--yes")
    assert done.exit_code == 1 and "Traceback" not in done.output
    assert f"{config}: {said}" in done.output.replace("\n", " ")
    assert config.read_text() == text and not (home / ".codex" / "hooks.json").exists()


def test_older_cardvault_hooks_are_replaced_where_they_are(home: Path, project: Path) -> None:
    """Two older cardvault hooks between the user's: the first is replaced in place, the second
    taken out; uninstall without its record takes out exactly cardvault's hooks."""
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine, theirs = (
        '{"hooks": [{"type": "command", "command": "notify-send done"}]}',
        '{"hooks": [{"type": "command", "command": "cardvault --vault /old hook stop"}]}',
    )
    settings.write_text(f'{{"hooks": {{"Stop": [{mine}, {theirs}, {theirs}, {mine}]}}}}\n')
    assert install("claude-code", "user", project, "--yes").exit_code == 0
    stop = json.loads(settings.read_text())["hooks"]["Stop"]
    assert len(stop) == 3 and stop[0] == stop[2] == json.loads(mine)
    assert stop[1]["hooks"][0]["command"].endswith(f"{project} hook stop --host claude-code")
    assert settings.read_text().startswith(f'{{"hooks": {{"Stop": [{mine}, {{"hooks": [{{"')
    (home / ".local" / "state" / "cardvault" / "installs.json").unlink()
    assert install("claude-code", "user", project, "--uninstall", "--yes").exit_code == 0
    assert settings.read_text() == f'{{"hooks": {{"Stop": [{mine}, {mine}]}}}}\n'
