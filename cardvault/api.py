"""The public Python API: `open_vault(path)` gives a `cardvault.app.Session` that does what the
CLI does (the example is in cardvault.app); `VaultHandle`, `LiveVault` and `WarmHandles` are
the warm search handles it holds, named here for programs that keep one themselves.
"""

from __future__ import annotations

from cardvault.app import Session, open_vault
from cardvault.app.warm import LiveVault, VaultHandle, WarmHandles

__all__ = ["LiveVault", "Session", "VaultHandle", "WarmHandles", "open_vault"]
