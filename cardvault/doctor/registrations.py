"""Each agent host's registration: are cardvault's MCP server and hooks in its files, and
would `cardvault install` change them (another install's program, another vault, an older
entry)? Read only: the same plans `install --dry-run` shows."""

from __future__ import annotations

from pathlib import Path

from cardvault.doctor.checks import Check
from cardvault.errors import CardvaultError
from cardvault.hosts.hosts import HOSTS
from cardvault.hosts.install import plan
from cardvault.vault.layout import Vault


def check_registrations(vault: Vault | None, project: Path | None) -> list[Check]:
    """One check per host at user level, and at project level for `project`."""
    checks = []
    for host in HOSTS:
        checks.append(_registration(host, None, vault.root if vault else None))
        if project is not None:
            checks.append(_registration(host, project, None))
    return checks


def _registration(host: str, project: Path | None, vault: Path | None) -> Check:
    level = "project" if project else "user"
    name = f"{host} ({level})"
    command = f"cardvault install {host}" + (" --project" if project else "")
    try:
        present = plan(host, project, vault, uninstall=True)
        if not present.changed:
            return Check(name, "info", "not installed", command)
        files = ", ".join(present.shown(c.path) for c in present.changed)
        if project is None and vault is None:
            return Check(name, "info", f"installed in {files} (no vault here to compare)")
        wanted = plan(host, project, vault)
    except CardvaultError as exc:
        return Check(name, "warn", str(exc), "fix the file, or edit cardvault's entries by hand")
    if not wanted.changed:
        return Check(name, "ok", f"installed and current in {files}")
    stale = ", ".join(wanted.shown(c.path) for c in wanted.changed)
    summary = f"installed, but `{command}` here would change {stale} (another program or vault)"
    return Check(name, "warn", summary, f"{command} --dry-run shows the difference")
