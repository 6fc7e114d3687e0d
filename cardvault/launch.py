"""How cardvault starts itself in another process (git's merge drivers, `serve --background`, an
MCP server with no `cardvault` script): this installation, in a fresh Python that imports
nothing from the folder it runs in, as `PYTHON -I -c BOOT PACKAGE_FOLDER MODULE ARGS...`.

`-I` (isolated mode) keeps the working directory off `sys.path` and ignores PYTHON* variables
and the user's site folder, so a `cardvault/`, `sitecustomize.py` or `yaml.py` committed to a
vault is never imported. BOOT puts the running package's folder first on `sys.path` (the child
runs the same code as its parent, from a checkout or an install alike), then runs MODULE as
`python -m` would. BOOT holds no quote or backslash, so git stores the command lines verbatim.
"""

from __future__ import annotations

import os
import shlex
import sys

#: The program `-c` runs: argv[1] is the package's folder, argv[2] the module to run.
BOOT = "import sys; sys.path.insert(0, sys.argv.pop(1)); from cardvault.launch import main; main()"


def package_folder() -> str:
    """The folder holding this `cardvault` package (what `sys.path` needs to import it)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def python_command(module: str, *args: str) -> list[str]:
    """The argv that runs `python -m module args...` with this installation, isolated."""
    return [sys.executable, "-I", "-c", BOOT, package_folder(), module, *args]


def shell_command(module: str, *args: str, raw: str = "") -> str:
    """`python_command` as one shell line; `raw` is appended unquoted (git's `%O %A %B %P`)."""
    line = shlex.join(python_command(module, *args))
    return f"{line} {raw}" if raw else line


def main() -> None:
    """BOOT's second half: run the module named in argv[1] as `__main__`, with the rest as its
    arguments (sys.argv[0] becomes the module's file, as with `python -m`)."""
    import runpy

    module = sys.argv.pop(1)
    runpy.run_module(module, run_name="__main__", alter_sys=True)
