"""A project's stable context key: how the global vault names a project across machines.

The key is the host/owner/repo of the git remote the vault's repository pushes to
(`github.com/acme/web` for `git@github.com:acme/web.git` or `https://github.com/acme/web`), so
every clone of one project shares it. Without a remote it is `local/` and the vault's absolute
path, sanitised to lowercase letters, digits, `.`, `_`, `-` and `/`.
"""

from __future__ import annotations

import re
from pathlib import Path

from cardvault import history

_SCP = re.compile(r"^(?:[\w.+-]+@)?(?P<host>[\w.-]+):(?P<path>(?!/).+)$")  # git@host:owner/repo
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^@/]+@)?(?P<host>[^/:]+)(?::\d+)?/(?P<path>.+)$")
_UNSAFE = re.compile(r"[^a-z0-9._/-]+")


def context_key(root: Path) -> str:
    """The context key of the vault at `root` (see the module docstring)."""
    url = history.remote_url(root)
    key = remote_key(url) if url else None
    return key or path_key(root)


def remote_key(url: str) -> str | None:
    """`host/owner/repo` from a git remote URL; None for a local path or `file://` remote."""
    url = url.strip()
    if url.startswith("file://"):
        return None
    match = _URL.match(url) or _SCP.match(url)
    if match is None:
        return None
    path = match.group("path").strip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")]
    parts = [_clean(part) for part in path.split("/") if part]
    host = _clean(match.group("host"))
    if not parts or not host:
        return None
    return "/".join([host, *parts])


def path_key(root: Path) -> str:
    """`local/` and the sanitised absolute path of `root`."""
    text = root.resolve().as_posix().lower()
    cleaned = "/".join(p for p in (_clean(part) for part in text.split("/")) if p)
    return f"local/{cleaned}"


def _clean(part: str) -> str:
    return _UNSAFE.sub("-", part.lower()).strip("-.")
