"""The app's commands on a vault's files as a whole: `init`, `capture`, `rename`, `forget`,
`check`, `sync`, `import`, `export`."""

from __future__ import annotations

from cardvault.wiring import Wiring


class VaultCommands(Wiring):
    """Commands on a vault's files as a whole."""
