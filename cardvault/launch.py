"""How cardvault starts itself in another process: this very installation, in a fresh Python
that imports nothing from the folder it runs in.

Every process cardvault starts for itself (the merge drivers git runs inside the work tree, the
resident `cardvault serve --background`, the MCP server a host launches when no `cardvault`
script is installed) runs

    PYTHON -I -c BOOT PACKAGE_FOLDER MODULE ARGS...

`-I` is Python's isolated mode: the working directory is not on `sys.path`, and PYTHONPATH, the
other PYTHON* variables and the user's site folder are ignored, so a `cardvault/` package, a
`sitecustomize.py` or a `yaml.py` committed to a vault is never imported, whatever folder the
process starts in. BOOT puts the folder holding the running package first on `sys.path` (so a
source checkout and an editable install work the same as a normal one, and the child runs the
same code as its parent), then runs MODULE as `python -m` would. BOOT holds no quote or
backslash, so git stores the drivers' command lines verbatim.
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
