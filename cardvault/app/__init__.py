"""The app: one `Session` wires a cardvault session, and has one method per command.

The CLI, the MCP server, the resident `cardvault serve` and the Python API all make a session
and call it; none of them wires services on its own:

    from cardvault import open_vault
    with open_vault("~/notes") as vault:
        for hit in vault.search("why does the login POST fail", k=5, scope="all"):
            print(hit.score, hit.path, hit.topic)

The wiring (vaults, agent, clock, scope, warm searchers, all read from the session's `env`,
never from `os.environ` behind its back) is `app/wiring.py`'s `Wiring`; the modules here add the
commands, grouped by what they touch. Methods return the services' typed results and never
print. Importing this module is cheap: services load when a method first needs them.
"""

from __future__ import annotations

from pathlib import Path

from cardvault.app.forgetting import ForgetCommands
from cardvault.app.insight import InsightCommands
from cardvault.app.maintenance import MaintainCommands
from cardvault.app.resident import ResidentCommands
from cardvault.app.review import ReviewCommands
from cardvault.app.search import Query, SearchCommands, SearchOptions
from cardvault.app.served import ServedCommands
from cardvault.app.services import ServiceCommands
from cardvault.app.vaults import VaultCommands
from cardvault.app.writes import WriteCommands
from cardvault.search.filters import Filters

__all__ = ["Filters", "Query", "SearchOptions", "Session", "open_vault"]


class Session(
    ServiceCommands,
    ResidentCommands,
    SearchCommands,
    MaintainCommands,
    InsightCommands,
    VaultCommands,
    ForgetCommands,
    WriteCommands,
    ReviewCommands,
    ServedCommands,
):
    """One session of cardvault (see the module docstring). Close it, or use it as a context
    manager, to release the warm search services it made."""


def open_vault(path: str | Path | None = None, watch: bool = False) -> Session:
    """A session on the vault at `path`, or found like the CLI finds it; VaultNotFoundError when
    there is none. `watch` keeps a file watcher on each vault searched, for long-lived programs
    (a search on an unchanged vault then skips the sync)."""
    session = Session(path, watch=watch)
    _ = session.root  # fail now, not at the first call
    return session
