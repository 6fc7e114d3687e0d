"""cardvault: a git-versioned Markdown memory vault for AI agents.

The package is a library first: `open_vault(path)` gives programs the same services the CLI
uses. Heavy parts (the embedding model, git) load only when a service needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from cardvault.api import VaultHandle


def open_vault(path: Any = None, watch: bool = False) -> VaultHandle:
    """Open the vault at `path` (or found from the current directory) for programmatic use;
    `watch` keeps a file watcher for fast repeated searches (see cardvault.api)."""
    from cardvault.api import open_vault as _open

    return _open(path, watch)


__all__ = ["__version__", "open_vault"]
