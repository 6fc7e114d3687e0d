"""The public Python API: `open_vault(path)` gives a `Session` that does what the CLI does.

    from cardvault import open_vault
    with open_vault("~/notes") as vault:
        for hit in vault.search("why does the login POST fail", k=5):
            print(hit.score, hit.path, hit.topic)

The session is `cardvault.app.Session` (search, context, log, remember, new, maintain, review,
...); `VaultHandle`, `LiveVault` and `WarmHandles` are the warm search handles it holds
(`cardvault.search.warm`), named here for programs that keep one themselves.
"""

from __future__ import annotations

from cardvault.app import Session, open_vault
from cardvault.search.warm import LiveVault, VaultHandle, WarmHandles

__all__ = ["LiveVault", "Session", "VaultHandle", "WarmHandles", "open_vault"]
