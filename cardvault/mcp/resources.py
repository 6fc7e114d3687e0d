"""The MCP resources: MEMORY.md, the learned rules, every card and every day's log.

`cardvault://memory` and `cardvault://rules` are fixed; cards (by slug or alias, archived too)
and logs (by date) are templates, and each live card is also listed by `resources/list`. Each
is returned as the tools return memory: the file's exact text quoted with its source after the
preamble saying it is stored memory to weigh, not instructions to follow (a shared vault's
card may be written to steer the agent that reads it).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.types import Resource

from cardvault.app.served import PREAMBLE, quoted
from cardvault.errors import CardvaultError, NotFoundError
from cardvault.mcp.turns import Turns

MARKDOWN = "text/markdown"
CARD_URI = "cardvault://cards/{slug}"


def register_resources(server: MCPServer, turns: Turns) -> None:
    """Add the fixed resources and the card and log templates to `server`."""
    app = turns.app

    @server.resource(
        "cardvault://memory",
        name="MEMORY.md",
        mime_type=MARKDOWN,
        description="The vault's index, read at the start of every session.",
    )
    @_resource_errors()
    def memory() -> str:
        return _stored("MEMORY.md", app.read_memory_index().text)

    @server.resource(
        "cardvault://rules",
        name="Learned rules",
        mime_type=MARKDOWN,
        description="Rules learned from recurring lessons (AGENTS.md's learned rules).",
    )
    @_resource_errors()
    def rules() -> str:
        learned = app.learned_rules()
        if not learned:
            return "# Learned rules\n\n(no learned rules yet)\n"
        lines = "\n".join(learned)
        return f"# Learned rules\n\n{PREAMBLE}\n\n{quoted('AGENTS.md', lines)}\n"

    @server.resource(
        CARD_URI,
        name="card",
        mime_type=MARKDOWN,
        description="A knowledge card as written (frontmatter and body), by slug or alias, "
        "quoted as stored memory.",
    )
    @_resource_errors()
    def card(slug: str) -> str:
        found = app.read_card(slug, used=False)
        return _stored(found.path, found.text)

    @server.resource(
        "cardvault://logs/{date}",
        name="daily log",
        mime_type=MARKDOWN,
        description="One day's raw log (date as YYYY-MM-DD).",
    )
    @_resource_errors()
    def log(date: str) -> str:
        found = app.read_log(log_date(date))
        return _stored(found.path, found.text)


def log_date(text: str) -> dt.date:
    """The day `text` names as YYYY-MM-DD (NotFoundError when it names none)."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise NotFoundError(f"not a date: {text} ({exc}); use YYYY-MM-DD") from exc


def _stored(source: str, text: str) -> str:
    """A file's text as stored memory, quoted with its source (the module docstring)."""
    return f"{PREAMBLE}\n\n{quoted(source, text)}\n"


def card_listing(turns: Turns) -> list[Resource]:
    """One resource per live card, named by its slug."""
    return [
        Resource(uri=CARD_URI.format(slug=slug), name=slug, mime_type=MARKDOWN)
        for slug in turns.app.card_slugs()
    ]


@contextlib.contextmanager
def _resource_errors() -> Iterator[None]:
    """A CardvaultError reaches the client as a resource error with the CLI's message."""
    try:
        yield
    except NotFoundError as exc:
        raise ResourceNotFoundError(str(exc)) from exc
    except CardvaultError as exc:
        raise ResourceError(str(exc)) from exc
