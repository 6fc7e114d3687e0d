"""All of doctor's checks in order, and the fix it may make unasked."""

from __future__ import annotations

from pathlib import Path

from cardvault.doctor.checks import (
    Check,
    check_caches,
    check_global,
    check_install,
    check_languages,
    check_model,
    check_server,
)
from cardvault.doctor.gitcheck import check_identity, check_merge_drivers
from cardvault.doctor.registrations import check_registrations
from cardvault.vault.layout import Vault


def run_checks(
    vault: Vault | None, project: Path | None, model: bool = True, opened: Check | None = None
) -> list[Check]:
    """Every check (`model` False: the model is found, not loaded); `opened` says how opening
    the vault went, when it did not."""
    checks = [check_install(), opened or check_vault(vault), check_model(vault, load=model)]
    checks.append(check_languages(vault))
    checks += [check_caches(vault), check_global(), check_server(vault)]
    checks += check_registrations(vault, project)
    checks += [check_merge_drivers(vault), check_identity(vault)]
    return checks


def check_vault(vault: Vault | None) -> Check:
    """Which vault the checks are about."""
    if vault is None:
        return Check("vault", "info", "no vault here (pass --vault PATH): its checks are skipped")
    return Check("vault", "ok", f"at {vault.root}", None, {"path": str(vault.root)})


def fix_safe(vault: Vault | None, checks: list[Check]) -> list[str]:
    """Make the safe fixes the checks call for; what was done."""
    from cardvault import history

    done = []
    broken = {check.name for check in checks if check.status in ("warn", "error")}
    if vault is not None and "merge drivers" in broken and history.configure_drivers(vault.root):
        done.append("configured cardvault's merge drivers in this clone's git config")
    return done
