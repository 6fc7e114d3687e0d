"""The command line that starts cardvault from a host's configuration file.

A user-level file belongs to this machine: it names the program running now by absolute path
(the `cardvault` script beside this Python, else the isolated launch, cardvault/launch.py), so
hooks work whatever the host's PATH and import nothing from the project's folder. A
project-level file is shared in git: it names bare `cardvault` and no path of this machine.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: What project-level files run: the `cardvault` on the PATH of whoever opens the project.
PROJECT_PROGRAM = ("cardvault",)


def installed_program() -> tuple[str, ...]:
    """The argv prefix that runs this very install of cardvault (absolute paths)."""
    from cardvault.launch import python_command

    script = Path(sys.executable).with_name("cardvault")
    if script.is_file():
        return (str(script),)
    return tuple(python_command("cardvault"))


def program_for(project: bool) -> tuple[str, ...]:
    """The program a user-level (`project` False) or project-level file runs."""
    return PROJECT_PROGRAM if project else installed_program()


def is_cardvault_argv(argv: list[str]) -> bool:
    """Whether `argv` starts cardvault: a program named `cardvault`, `PYTHON -m cardvault`, or
    the isolated launch (`PYTHON -I -c BOOT FOLDER cardvault`)."""
    if not argv:
        return False
    return Path(argv[0]).name == "cardvault" or _program_length(argv) > 1


def cardvault_args(argv: list[str]) -> list[str]:
    """The arguments after the program in a cardvault command line (`is_cardvault_argv`)."""
    return argv[max(1, _program_length(argv)) :]


def _program_length(argv: list[str]) -> int:
    """How many words of `argv` start a Python running cardvault (0: none)."""
    if len(argv) >= 3 and argv[1] == "-m" and argv[2] == "cardvault":
        return 3
    if len(argv) >= 6 and argv[1:3] == ["-I", "-c"] and argv[5] == "cardvault":
        return 6
    return 0
