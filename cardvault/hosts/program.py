"""The command line that starts cardvault from a host's configuration file.

A user-level file belongs to this machine: it names the exact program that runs now (the
`cardvault` script beside this Python, else `python -m cardvault`) by absolute path, so a hook
or an MCP server works whatever the host's PATH (a venv that is not activated included). A
project-level file is shared in git: it names bare `cardvault`, found on each teammate's PATH,
and no path of this machine.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

#: What project-level files run: the `cardvault` on the PATH of whoever opens the project.
PROJECT_PROGRAM = ("cardvault",)


def installed_program() -> tuple[str, ...]:
    """The argv prefix that runs this very install of cardvault (absolute paths)."""
    script = Path(sys.executable).with_name("cardvault")
    if script.is_file():
        return (str(script),)
    return (sys.executable, "-m", "cardvault")


def program_for(project: bool) -> tuple[str, ...]:
    """The program a user-level (`project` False) or project-level file runs."""
    return PROJECT_PROGRAM if project else installed_program()


def shell_command(argv: tuple[str, ...] | list[str]) -> str:
    """`argv` as one POSIX shell command line (hosts run hook commands through a shell)."""
    return shlex.join(argv)


def is_cardvault_argv(argv: list[str]) -> bool:
    """Whether `argv` starts cardvault: a program named `cardvault`, or `PYTHON -m cardvault`."""
    if not argv:
        return False
    if Path(argv[0]).name == "cardvault":
        return True
    return len(argv) >= 3 and argv[1] == "-m" and argv[2] == "cardvault"


def cardvault_args(argv: list[str]) -> list[str]:
    """The arguments after the program in a cardvault command line (`is_cardvault_argv`)."""
    return argv[3:] if len(argv) >= 3 and argv[1] == "-m" else argv[1:]
