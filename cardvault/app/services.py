"""The app's commands about this machine's hosts and processes: `install`, `doctor`, `trust`,
`mcp`, `serve`, `hook`."""

from __future__ import annotations

from cardvault.wiring import Wiring


class ServiceCommands(Wiring):
    """Commands about this machine's hosts and processes."""
