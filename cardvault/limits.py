"""Every bound on what cardvault reads from outside, in one table.

Each row is a `Limit`: an int that also says its unit, what it bounds and why it is that size.
Every read of an untrusted input takes its bound from here: a file through
`vault.confine.read_file`, a socket through that module's loop `read_upto`, stdin through
`read_stream`, the MCP server's lines through `mcp/transport.py`'s (each line bounded, the
next one still read). Each keeps at most the limit plus one byte (the one byte tells "too
big" from "exactly the limit") and names its input in its own error.
A bound that shapes output or tunes an algorithm is not an input limit and lives with its code.
"""

from __future__ import annotations

from typing import Any


class Limit(int):
    """One row of the table: an amount (this int), its unit, what it bounds and why."""

    unit: str
    bounds: str
    why: str

    def __new__(cls, amount: int, unit: str, bounds: str, why: str) -> Limit:
        row = super().__new__(cls, amount)
        row.unit, row.bounds, row.why = unit, bounds, why
        return row


VAULT_FILE = Limit(
    1_000_000, "bytes",
    "a card, a daily log, MEMORY.md, AGENTS.md, cardvault.toml, the user's config.toml, the "
    "clone's git config and info/attributes, a file git's merge driver is handed, a note "
    "imported as a card, a vault file's text at a commit (history), `[write] max_entry_bytes` "
    "at most",
    "a vault of notes has no larger file, and the applier writes none larger, so what is "
    "written always reads back",
)  # fmt: skip
IMPORT = Limit(
    128_000_000, "bytes",
    "an export file, device or pipe `import` reads; the notes of one folder import together",
    "about 50,000 cards; a 10,000-card export is 16-25 MB",
)  # fmt: skip
HOOK_INPUT = Limit(
    1 << 20, "bytes", "a hook's stdin (the host's JSON object)",
    "hosts send a few hundred bytes",
)  # fmt: skip
TRANSCRIPT = Limit(
    8 << 20, "bytes", "the newest part of a session transcript read by one capture",
    "a capture keeps a few signal lines; older text was read by the capture before",
)  # fmt: skip
SERVE_REQUEST = Limit(
    1 << 20, "bytes", "one request to the resident server (argv and environment)",
    "a command line and a few variables",
)  # fmt: skip
SERVE_ANSWER = Limit(
    64 << 20, "bytes", "one answer from the resident server (a command's output)",
    "a search or context pack of a large vault, with room to spare",
)  # fmt: skip
MCP_MESSAGE = Limit(
    8 << 20, "bytes", "one JSON-RPC line on the MCP server's stdin",
    "the largest write a vault takes (VAULT_FILE) even with every character escaped",
)  # fmt: skip
PROJECT_MANIFEST = Limit(
    4 << 20, "bytes",
    "a project file `verify` reads whole: a manifest, a lockfile, a file a card names",
    "lockfiles (package-lock.json) run to megabytes",
)  # fmt: skip
PROJECT_SOURCE = Limit(
    1 << 20, "bytes", "a project source file `verify` searches for the names cards mention",
    "hand-written source is far smaller; a bigger file is generated and skipped",
)  # fmt: skip
PROJECT_FILES = Limit(
    50_000, "files", "the project files `verify` walks and searches",
    "a large monorepo; past it the rest is not read and the finding says so",
)  # fmt: skip
COMMIT_READ = Limit(
    4 << 20, "bytes", "the texts (before and after) `history` reads of one commit's files",
    "a few vault files' worth per commit; the rest are counted",
)  # fmt: skip
COMMIT_FILES = Limit(
    1000, "files", "the files of one commit `history` looks at",
    "a maintenance commit touches tens of files; past it they are counted",
)  # fmt: skip
COMMIT_NAMES = Limit(
    256 << 10, "bytes", "the names of one commit's files handed to git's command line",
    "well inside the smallest ARG_MAX of the systems cardvault runs on",
)  # fmt: skip
USES_LEDGER = Limit(
    64 << 20, "bytes", "the uses ledger read by one fold",
    "the rest waits for the next fold",
)  # fmt: skip
CAPTURE_TAIL = Limit(
    64 << 10, "bytes", "the end of a captured command's output kept for its failure lines",
    "the error is in the last lines; the output itself streams through",
)  # fmt: skip
YAML_NODES = Limit(
    20_000, "values", "a card's frontmatter (any YAML cardvault reads) with aliases expanded",
    "a card holds tens of values; an alias bomb expands to billions",
)  # fmt: skip
YAML_DEPTH = Limit(
    32, "levels", "the nesting of that YAML",
    "frontmatter is flat; deep nesting only exhausts the parser's stack",
)  # fmt: skip
HOST_FILE = Limit(
    1 << 20, "bytes", "a host's settings file `install` reads and merges into",
    "settings files are a few KB; a bigger one is not a host's settings",
)  # fmt: skip


def read_stream(stream: Any, limit: int) -> bytes:
    """At most `limit` + 1 bytes of `stream` (stdin): through its binary buffer, or as UTF-8
    when it is a text stream with none under it (typer's test runner). One buffered read: it
    returns at the end of input, and a terminal's Ctrl-D ends input once, so reading again
    after it would wait for more typing."""
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        return bytes(buffer.read(limit + 1))
    return str(stream.read(limit + 1)).encode("utf-8", "surrogatepass")
