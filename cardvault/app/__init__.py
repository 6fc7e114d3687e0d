"""The app: one `Session` wires a cardvault session, and has one method per command.

A session holds what every command needs: the project vault (`--vault`, $CARDVAULT_VAULT, or
found upwards) and the global vault, the agent (`--agent`, $CARDVAULT_AGENT), the clock
($CARDVAULT_NOW pins it), which vaults a scope covers, and the warm search services of the
vaults it has read. The CLI, the MCP server, the resident `cardvault serve` and the Python API
all make one and call it; none of them wires services on its own:

    from cardvault import open_vault
    with open_vault("~/notes") as vault:
        for hit in vault.search("why does the login POST fail", k=5, scope="all"):
            print(hit.score, hit.path, hit.topic)
        print(vault.context(task="fix the login form").text)
        vault.remember("The login POST needs the CSRF header from /token.")

The wiring (the vaults, agent, clock, scope, warm searchers, all read from the session's `env`,
never from `os.environ` behind its back) is `cardvault.wiring.Wiring`; this module adds the
commands. Methods return the services' typed results; they never print. Importing this module
is cheap: the services load when a method first needs them.
"""

from __future__ import annotations

from pathlib import Path

from cardvault.app.forgetting import ForgetCommands
from cardvault.app.insight import InsightCommands
from cardvault.app.maintenance import MaintainCommands, Maintained
from cardvault.app.resident import ResidentCommands
from cardvault.app.review import ReviewCommands
from cardvault.app.search import WARM_UP_QUERY, Query, SearchCommands, SearchOptions
from cardvault.app.served import ServedCommands
from cardvault.app.services import ServiceCommands
from cardvault.app.vaults import VaultCommands
from cardvault.app.writes import WriteCommands
from cardvault.search.filters import Filters
from cardvault.wiring import NOW_VAR, clock_of

__all__ = [
    "NOW_VAR", "WARM_UP_QUERY", "Filters", "Maintained", "Query", "SearchOptions", "Session",
    "clock_of", "open_vault",
]  # fmt: skip


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
    """One session of cardvault (see the module docstring): its wiring, and one method per
    command, gathered from the app's modules by what they touch. Close it, or use it as a
    context manager, to release the warm search services it made."""


def open_vault(path: str | Path | None = None, watch: bool = False) -> Session:
    """A session on the vault at `path`, or found like the CLI finds it ($CARDVAULT_VAULT,
    walking up); VaultNotFoundError when there is none.

    `watch` keeps a file watcher on each vault searched for the session's life (for long-lived
    programs: searches on an unchanged vault then skip the sync)."""
    session = Session(path, watch=watch)
    _ = session.root  # fail now, not at the first call
    return session
