"""The agent hosts cardvault installs into, their files, and the entries it puts there.

Each host keeps an MCP server list and a hooks list, at user level (this machine, every
project) and at project level (files in the project's repository, shared with the team);
docs/agents.md lists each host's files and where their formats are documented.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardvault.hosts.program import cardvault_args, is_cardvault_argv, program_for

SERVER_NAME = "cardvault"
#: cardvault's hook events, in the order they fire.
EVENTS = ("session-start", "pre-compact", "stop")
#: Seconds a host waits for each hook (context loads no model; a capture makes one commit).
TIMEOUTS = {"session-start": 30, "pre-compact": 60, "stop": 60}
#: Claude Code and Codex (the same hooks.json shape): event names and matchers.
_CLAUDE_EVENTS = {"session-start": "SessionStart", "pre-compact": "PreCompact", "stop": "Stop"}
_MATCHERS = {"session-start": "startup|resume|clear|compact"}
_CURSOR_EVENTS = {"session-start": "sessionStart", "pre-compact": "preCompact", "stop": "stop"}


@dataclass(frozen=True)
class Member:
    """An object member cardvault owns: `key` inside the object at `parent`."""

    parent: tuple[str, ...]
    key: str
    value: Any


@dataclass(frozen=True)
class Item:
    """An array item cardvault owns, inside the array at `parent`; `ours` tells its items."""

    parent: tuple[str, ...]
    value: Any
    ours: Callable[[Any], bool]


@dataclass(frozen=True)
class JsonFile:
    """A JSON file and cardvault's entries in it; `skeleton`: members a new file starts with."""

    path: Path
    slots: tuple[Member | Item, ...]
    skeleton: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class TomlTable:
    """A TOML file and the one table cardvault owns in it: one member, as in a JsonFile."""

    path: Path
    dotted: tuple[str, ...]
    values: dict[str, Any]
    skeleton: tuple[tuple[str, Any], ...] = ()

    @property
    def slots(self) -> tuple[Member]:
        return (Member(self.dotted[:-1], self.dotted[-1], self.values),)


Target = JsonFile | TomlTable


@dataclass(frozen=True)
class Host:
    """An agent host: its name on the command line, its name for people, its files."""

    name: str
    label: str
    files: Callable[
        [Path | None, Path | None, tuple[str, ...], Mapping[str, str]], tuple[Target, ...]
    ]


def home_folder(env: Mapping[str, str]) -> Path:
    """The user's home folder: `$HOME` of `env`, else the system's idea of it."""
    return Path(env.get("HOME") or Path.home())


def hook_command(program: tuple[str, ...], vault: Path | None, event: str, host: str) -> str:
    """The shell command a host runs for `event` (hosts run hook commands through a shell)."""
    pinned = ("--vault", str(vault)) if vault is not None else ()
    return shlex.join([*program, *pinned, "hook", event, "--host", host])


def server_entry(program: tuple[str, ...], vault: Path | None) -> dict[str, Any]:
    """The MCP server entry (`command`, `args`)."""
    pinned = ["--vault", str(vault)] if vault is not None else []
    return {"command": program[0], "args": [*program[1:], "mcp", *pinned]}


def is_our_command(command: Any) -> bool:
    """Whether a hook's command line runs `cardvault ... hook ...` (any install of it)."""
    if not isinstance(command, str):
        return False
    try:
        argv = shlex.split(command)
    except ValueError:
        return False
    if not is_cardvault_argv(argv):
        return False
    args = cardvault_args(argv)
    while len(args) >= 2 and args[0] in ("--vault", "-V", "--agent"):
        args = args[2:]
    return bool(args) and args[0] == "hook"


def _group_is_ours(group: Any) -> bool:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return isinstance(hooks, list) and bool(hooks) and all(map(_command_is_ours, hooks))


def _command_is_ours(item: Any) -> bool:
    return isinstance(item, dict) and is_our_command(item.get("command"))


def hook_slots(program: tuple[str, ...], vault: Path | None, host: str) -> tuple[Item, ...]:
    """The host's hooks, one per event, in `hooks.<Event>` lists: Cursor lists each
    `{command, timeout}` itself; Claude Code and Codex wrap it in a `{matcher, hooks}` group."""
    slots = []
    for event in EVENTS:
        command = {"command": hook_command(program, vault, event, host), "timeout": TIMEOUTS[event]}
        if host == "cursor":
            slots.append(Item(("hooks", _CURSOR_EVENTS[event]), command, _command_is_ours))
            continue
        matcher = {"matcher": _MATCHERS[event]} if event in _MATCHERS else {}
        group = {**matcher, "hooks": [{"type": "command", **command}]}
        slots.append(Item(("hooks", _CLAUDE_EVENTS[event]), group, _group_is_ours))
    return tuple(slots)


def _mcp_json(path: Path, program: tuple[str, ...], vault: Path | None) -> JsonFile:
    return JsonFile(path, (Member(("mcpServers",), SERVER_NAME, server_entry(program, vault)),))


def _claude_files(
    project: Path | None, vault: Path | None, program: tuple[str, ...], env: Mapping[str, str]
) -> tuple[Target, ...]:
    home = home_folder(env)
    mcp = project / ".mcp.json" if project else home / ".claude.json"
    settings = (project or home) / ".claude" / "settings.json"
    return (
        _mcp_json(mcp, program, vault),
        JsonFile(settings, hook_slots(program, vault, "claude-code")),
    )


def _codex_files(
    project: Path | None, vault: Path | None, program: tuple[str, ...], env: Mapping[str, str]
) -> tuple[Target, ...]:
    codex_home = env.get("CODEX_HOME") or home_folder(env) / ".codex"
    folder = project / ".codex" if project else Path(codex_home)
    return (
        TomlTable(
            folder / "config.toml", ("mcp_servers", SERVER_NAME), server_entry(program, vault)
        ),
        JsonFile(folder / "hooks.json", hook_slots(program, vault, "codex")),
    )


def _cursor_files(
    project: Path | None, vault: Path | None, program: tuple[str, ...], env: Mapping[str, str]
) -> tuple[Target, ...]:
    folder = (project or home_folder(env)) / ".cursor"
    return (
        _mcp_json(folder / "mcp.json", program, vault),
        JsonFile(folder / "hooks.json", hook_slots(program, vault, "cursor"), (("version", 1),)),
    )


HOSTS: dict[str, Host] = {
    "claude-code": Host("claude-code", "Claude Code", _claude_files),
    "codex": Host("codex", "Codex", _codex_files),
    "cursor": Host("cursor", "Cursor", _cursor_files),
}


def host_files(
    host: str, project: Path | None, vault: Path | None, env: Mapping[str, str] | None = None
) -> tuple[Target, ...]:
    """The files of `host` at project level (`project`: the project folder; the vault is found
    from it) or user level (`project` None; `vault`, when given, pinned by its absolute path)."""
    env = os.environ if env is None else env
    program = program_for(project is not None)
    return HOSTS[host].files(project, None if project else vault, program, env)
