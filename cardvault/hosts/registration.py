"""The snippets that register `cardvault mcp` with an agent host by hand, and where each goes:
the entries `cardvault install` writes (hosts.py), naming this install and the vault by
absolute path so the host starts them whatever its working directory and PATH.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from cardvault.hosts import tomledit
from cardvault.hosts.hosts import SERVER_NAME, server_entry
from cardvault.hosts.program import installed_program

HOSTS = ("claude", "cursor", "codex")


def launch_command(root: Path) -> list[str]:
    """The argv that starts the MCP server for the vault at `root`."""
    return [*installed_program(), "mcp", "--vault", str(root)]


def registration(host: str, root: Path) -> tuple[str, str]:
    """(the snippet, where it goes) for `host` (claude, cursor or codex): the entries
    `cardvault install` writes (hosts.py `server_entry`)."""
    command = launch_command(root)
    entry = server_entry(installed_program(), root)
    if host == "codex":
        block = tomledit.table_text(("mcp_servers", SERVER_NAME), entry)  # less install's mark
        return block.removeprefix(tomledit.MARKER + "\n"), "add it to ~/.codex/config.toml"
    text = json.dumps({"mcpServers": {SERVER_NAME: entry}}, indent=2) + "\n"
    if host == "cursor":
        return text, (
            "save it as .cursor/mcp.json in the project (or ~/.cursor/mcp.json for every "
            "project); merge it into an existing mcpServers object"
        )
    if host == "claude":
        add = shlex.join(["claude", "mcp", "add", "--scope", "user", "cardvault", "--", *command])
        return text, (
            f"save it as .mcp.json in the project root (shared with the team), or register it "
            f"for yourself only: {add}"
        )
    raise ValueError(f"unknown host {host!r}: one of {', '.join(HOSTS)}")
