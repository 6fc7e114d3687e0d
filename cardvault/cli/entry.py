"""The console-script entry point: `search` and `context` go to a running `cardvault serve`
when there is one, everything else (and any doubt) to the full typer CLI.

This module must stay cheap: it imports only the standard library and `cardvault.serve`'s
client, and typer and the commands only when the server cannot answer. The server runs the same
code, so its answer is byte for byte the in-process command's. It is the one front-end module
that does not go through the app: importing `cardvault.app` would about double the fast path's
start-up (tests/test_code_rules.py lists its three imports).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: Set by the shell while completing a word: typer must answer that, never the server.
COMPLETION_VAR = "_CARDVAULT_COMPLETE"


def main() -> None:
    """Run `cardvault` with the process's arguments."""
    code = answer_from_server(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from cardvault.cli.app import main as full_cli

    full_cli()


def answer_from_server(argv: list[str]) -> int | None:
    """Have the vault's resident process run `argv`; its exit code after replaying its output,
    or None (nothing printed) when the command must run in this process."""
    from cardvault.serve.protocol import CLIENT_ENV, RESIDENT_COMMANDS, RunRequest, socket_path

    if os.environ.get(COMPLETION_VAR):
        return None
    split = split_global_options(argv)
    if split is None or not split[1] or split[1][0] not in RESIDENT_COMMANDS:
        return None
    root = _vault_root(split[0])
    if root is None or not socket_path(root).exists():
        return None
    from cardvault.serve.client import run

    env = {name: os.environ[name] for name in CLIENT_ENV if name in os.environ}
    stdout_tty = sys.stdout.isatty()
    if stdout_tty and "COLUMNS" not in env:
        size = os.get_terminal_size(sys.stdout.fileno())
        env.update(COLUMNS=str(size.columns), LINES=str(size.lines))
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    request = RunRequest(split[1], env, stdout_tty, sys.stderr.isatty(), encoding, program_name())
    result = run(root, request)
    if result is None:
        return None
    for stream, text in result.output:
        target = sys.stdout if stream == 1 else sys.stderr
        target.write(text)
        target.flush()
    return result.code


def program_name() -> str:
    """The name click shows in usage lines (click's `_detect_program_name`), so an answered
    usage error reads the same."""
    package = getattr(sys.modules.get("__main__"), "__package__", None)
    path = sys.argv[0]
    if not package:
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    module = package if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"


def split_global_options(argv: list[str]) -> tuple[str | None, list[str]] | None:
    """(the --vault value, the command and its arguments), or None for anything the fast path
    leaves to typer (--help, --version, an option it does not know)."""
    vault: str | None = None
    position = 0
    while position < len(argv):
        arg = argv[position]
        if arg in ("--vault", "-V") and position + 1 < len(argv):
            vault, position = argv[position + 1], position + 2
        elif arg.startswith("--vault="):
            vault, position = arg.removeprefix("--vault="), position + 1
        elif arg.startswith("-"):
            return None
        else:
            break
    if vault == "":
        return None
    return vault, argv[position:]


def _vault_root(explicit: str | None) -> Path | None:
    """The vault's resolved root, found as the full CLI finds it, or None."""
    from cardvault.vault.root import CONFIG_FILE, locate_root

    try:
        root = locate_root(Path(explicit) if explicit is not None else None)
        if root is None:
            return None
        root = root.resolve()
    except (OSError, RuntimeError):
        return None
    return root if (root / CONFIG_FILE).is_file() else None
