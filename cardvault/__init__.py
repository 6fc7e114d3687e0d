"""cardvault: a git-versioned Markdown memory vault for AI agents.

The package is a library first: `open_vault(path)` gives programs the same services the CLI
uses. Heavy parts (the embedding model, git) load only when a service needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from cardvault.app import Session


def open_vault(path: Any = None, watch: bool = False) -> Session:
    """A session on the vault at `path` (or found from the current directory) that does what
    the CLI does; `watch` keeps a file watcher for fast repeated searches (see cardvault.app)."""
    from cardvault.app import open_vault as _open

    return _open(path, watch)


__all__ = ["__version__", "open_vault"]
