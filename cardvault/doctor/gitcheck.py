"""The vault's git: its merge drivers in this clone, and the identity commits are signed with."""

from __future__ import annotations

import os

from cardvault import history
from cardvault.doctor.checks import Check
from cardvault.vault.layout import Vault

DRIVERS_FIX = "cardvault doctor --fix (or any cardvault write) sets them in this clone's git config"


def check_merge_drivers(vault: Vault | None) -> Check:
    """Whether git merges this clone's logs, cards and managed sections with cardvault's
    drivers: the commands in `.git/config` and the vault's `.gitattributes` block."""
    if vault is None:
        return Check("merge drivers", "info", "no vault here")
    if history.work_tree_of(vault.root) is None:
        return Check("merge drivers", "info", "the vault is not in a git repository")
    if not history.drivers_configured(vault.root):
        summary = "not configured in this clone: a `git pull` merges logs and cards line by line"
        return Check("merge drivers", "error", summary, DRIVERS_FIX)
    if history.needs_attributes(vault.root):
        summary = "configured, but the vault's .gitattributes lacks cardvault's block"
        return Check("merge drivers", "warn", summary, "the next cardvault write commits it")
    return Check("merge drivers", "ok", "configured in this clone (.git/config, .gitattributes)")


def check_identity(vault: Vault | None) -> Check:
    """The git name and email the vault's commits are made with."""
    if vault is None:
        return Check("git identity", "info", "no vault here")
    top = history.work_tree_of(vault.root)
    if top is None:
        fix = "git init in the vault (cardvault init does), so every change is a commit"
        return Check("git identity", "warn", "the vault is not in a git repository", fix)
    configured = history.configured_identity(top)
    # GIT_AUTHOR_* win over git config in cardvault's commits (history.identity_env), as in git
    name = os.environ.get("GIT_AUTHOR_NAME") or configured.get("user.name") or None
    email = os.environ.get("GIT_AUTHOR_EMAIL") or configured.get("user.email") or None
    detail = {"name": name, "email": email}
    if not name or not email:
        missing = " and ".join(k for k, v in (("user.name", name), ("user.email", email)) if not v)
        summary = f"no {missing}: commits are signed with cardvault's own identity"
        fix = 'git config --global user.name "Your Name" && git config --global user.email you@...'
        return Check("git identity", "warn", summary, fix, detail)
    return Check("git identity", "ok", f"commits as {name} <{email}>", None, detail)
