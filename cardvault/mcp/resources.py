"""The MCP resources: MEMORY.md, the learned rules, every card and every day's log.

`cardvault://memory` and `cardvault://rules` are fixed; cards (`cardvault://cards/{slug}`,
live and archived, aliases too) and logs (`cardvault://logs/{date}`) are templates, and each
live card is also listed by `resources/list` (`card_listing`). Reading goes through the same
vault readers as the CLI (`find_card`, the context pack's rule items). Each is returned as the
tools return memory: the file's exact text in one `<memory source="...">` block after the
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

from cardvault.context.build import read_sources, rule_items
from cardvault.context.pack import PREAMBLE, quoted
from cardvault.context.used import named_card as card_named
from cardvault.errors import CardvaultError, NotFoundError
from cardvault.mcp.session import VaultSession
from cardvault.vault.files import read_if_present
from cardvault.vault.layout import iter_card_paths

MARKDOWN = "text/markdown"
CARD_URI = "cardvault://cards/{slug}"


def register_resources(server: MCPServer, session: VaultSession) -> None:
    """Add the fixed resources and the card and log templates to `server`."""

    @server.resource(
        "cardvault://memory",
        name="MEMORY.md",
        mime_type=MARKDOWN,
        description="The vault's index, read at the start of every session.",
    )
    def memory() -> str:
        with _resource_errors():
            vault = session.vault
            found = read_if_present(vault.memory_md, vault.root)
            if found is None:
                raise NotFoundError("the vault has no MEMORY.md")
            return _stored("MEMORY.md", found.text)

    @server.resource(
        "cardvault://rules",
        name="Learned rules",
        mime_type=MARKDOWN,
        description="Rules learned from recurring lessons (AGENTS.md's learned rules).",
    )
    def rules() -> str:
        with _resource_errors():
            items = rule_items(read_sources(session.vault))
            if not items:
                return "# Learned rules\n\n(no learned rules yet)\n"
            lines = "\n".join(item.block for item in items)
            return f"# Learned rules\n\n{PREAMBLE}\n\n{quoted('AGENTS.md', lines)}\n"

    @server.resource(
        CARD_URI,
        name="card",
        mime_type=MARKDOWN,
        description="A knowledge card as written (frontmatter and body), by slug or alias, "
        "quoted as stored memory.",
    )
    def card(slug: str) -> str:
        with _resource_errors():
            found = card_named(session.vault, slug)
            return _stored(session.vault.rel(found.path), found.text)

    @server.resource(
        "cardvault://logs/{date}",
        name="daily log",
        mime_type=MARKDOWN,
        description="One day's raw log (date as YYYY-MM-DD).",
    )
    def log(date: str) -> str:
        with _resource_errors():
            vault = session.vault
            try:
                day = dt.date.fromisoformat(date).isoformat()
            except ValueError as exc:
                raise NotFoundError(f"not a date: {date!r} (use YYYY-MM-DD)") from exc
            found = read_if_present(vault.log_path(day), vault.root)
            if found is None:
                raise NotFoundError(f"no daily log for {day}")
            return _stored(vault.rel(found.path), found.text)


def _stored(source: str, text: str) -> str:
    """A file's text as stored memory, quoted with its source (the module docstring)."""
    return f"{PREAMBLE}\n\n{quoted(source, text)}\n"


def card_listing(session: VaultSession) -> list[Resource]:
    """One resource per live card, named by its slug."""
    return [
        Resource(uri=CARD_URI.format(slug=path.stem), name=path.stem, mime_type=MARKDOWN)
        for path in iter_card_paths(session.vault)
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
