"""The app's reads that show the vault: `show`, `list`, `stats`, `graph`, `history`, `diff`,
`view`, `verify`, `agents`, `scope`."""

from __future__ import annotations

from cardvault.wiring import Wiring


class InsightCommands(Wiring):
    """Reads that show the vault."""
