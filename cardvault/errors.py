"""The exceptions cardvault raises; the CLI alone turns them into messages and exit codes.

Every error that comes from a file carries the path (and the line, where one is known), so the
user sees `path:line: message`, the form editors and terminals link to.
"""

from __future__ import annotations

from pathlib import Path


class CardvaultError(Exception):
    """Base of every error cardvault reports to a user."""

    def __init__(self, message: str, path: Path | str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = Path(path) if path is not None else None
        self.line = line

    def __str__(self) -> str:
        if self.path is None:
            return self.message
        where = f"{self.path}:{self.line}" if self.line else f"{self.path}"
        return f"{where}: {self.message}"


class VaultNotFoundError(CardvaultError):
    """No vault at the given path, nor in any parent folder."""


class ConfigError(CardvaultError):
    """cardvault.toml is unreadable or holds a bad value."""


class CardFormatError(CardvaultError):
    """A card or log file cannot be parsed or breaks the vault format."""


class UnsafePathError(CardvaultError):
    """A path escapes the vault (`../`, a symlink pointing outside) or is not a valid slug."""


class ConcurrentEditError(CardvaultError):
    """A file changed on disk between the moment cardvault read it and the moment it wrote."""


class NotFoundError(CardvaultError):
    """A card, entry or file the user named does not exist."""


class DirtyVaultError(CardvaultError):
    """The vault has uncommitted edits and the operation needs a clean tree."""


class LockedError(CardvaultError):
    """Another cardvault process holds the vault's lock."""


class SecretFoundError(CardvaultError):
    """Text about to be written to memory contains something that looks like a secret."""


class NotWritableError(CardvaultError):
    """A vault file is read-only, or its folder cannot take a new file, for this user: refused
    before anything is written."""


class UnfinishedGitError(CardvaultError):
    """git is in the middle of a rebase, merge, cherry-pick, revert or bisect, or HEAD is
    detached: a commit now would be lost or misplaced, so a writer refuses."""
