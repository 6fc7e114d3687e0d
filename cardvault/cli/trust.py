"""`cardvault trust`: approve, list or revoke what a vault's own settings may run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import now, session_of, vault_of

if TYPE_CHECKING:
    from cardvault.trust.settings import Asked
    from cardvault.trust.store import Approval


def trust(
    ctx: typer.Context,
    list_all: Annotated[
        bool, typer.Option("--list", help="Show every approval you made, for every vault.")
    ] = False,
    revoke: Annotated[
        bool,
        typer.Option("--revoke", help="Forget this vault's approvals (it may be gone already)."),
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Approve without asking (a script of your own).")
    ] = False,
    json_out: Annotated[
        bool,
        typer.Option(
            "--json", help="Print JSON: what was approved or revoked (--list: also when piped)."
        ),
    ] = False,
) -> None:
    """Approve the settings of this vault that run code: its `[maintain] judge` command and its
    `[search] model` (a package cardvault imports, or a model folder whose code it loads).

    A vault arrives through git from other people, so cardvault runs nothing its cardvault.toml
    names until you approve that exact value for this vault, the way `direnv allow` and `mise
    trust` work (docs/security.md). Until then each command that would use it says so in one
    line and goes on without it. This shows each value and asks; --yes approves without asking.
    A changed value is asked about again. The approval is kept in your own configuration folder
    ($CARDVAULT_CONFIG_DIR, else ~/.config/cardvault), never in the vault; settings there, in
    config.toml, apply to every vault without approval.
    Example: cardvault trust --list
    """
    from cardvault.trust import store

    if list_all:
        _show_approvals(store.read_approvals(strict=True), render.wants_json(json_out))
    elif revoke:
        root = _root_to_revoke(ctx)
        gone = store.revoke(root)
        if json_out:
            from dataclasses import asdict

            render.print_json({"vault": str(root), "revoked": [asdict(a) for a in gone]})
            return
        render.success(
            f"revoked {len(gone)} approval{'s' if len(gone) != 1 else ''} for {root}"
            if gone
            else f"nothing to revoke: no approval for {root}"
        )
    else:
        _approve(ctx, yes, json_out)


def _approve(ctx: typer.Context, yes: bool, json_out: bool) -> None:
    from cardvault.errors import CardvaultError
    from cardvault.trust.settings import asked
    from cardvault.trust.store import approve
    from cardvault.vault.config import CONFIG_FILE, load_config

    vault = vault_of(ctx)
    found = asked(vault.root, load_config(vault.root / CONFIG_FILE))  # as the file says
    waiting = [item for item in found if not item.trusted]
    already = [item.setting.key for item in found if item.trusted]
    if not waiting:
        if json_out:
            render.print_json({"vault": str(vault.root), "approved": [], "already": already})
            return
        render.success(
            f"already approved for {vault.root}: {', '.join(already)}"
            if found
            else f"nothing to approve: {vault.root}'s settings run nothing"
        )
        return
    for item in waiting:
        _describe(item)
    if not yes:
        if not sys.stdin.isatty():
            raise CardvaultError(
                "not approved: confirm at a terminal, or pass --yes if you read the values above"
            )
        if not typer.confirm(f"Let {vault.root} run this?", err=True):
            raise CardvaultError("not approved: nothing recorded")
    approve(vault.root, [(item.setting.key, item.value) for item in waiting], now())
    if json_out:
        approved = [item.setting.key for item in waiting]
        render.print_json({"vault": str(vault.root), "approved": approved, "already": already})
        return
    names = ", ".join(item.setting.key for item in waiting)
    render.success(f"approved {names} for {vault.root}; `cardvault trust --revoke` undoes it")


def _describe(item: Asked) -> None:
    """What the vault asks to run, on stderr, with the files of the vault it names."""
    from cardvault.trust.settings import shown

    render.warning(
        f"cardvault.toml: {item.setting.shown_key} = {shown(item.value, 400)} is "
        f"{item.setting.runs}"
    )
    for word in item.vault_files:
        render.warning(
            f"it names {word}, a file of the vault: approving it approves whatever that file "
            "holds each time it runs (a pull may change it)"
        )


def _root_to_revoke(ctx: typer.Context) -> Path:
    """The vault named by --vault (even if it is gone), else the one found here."""
    import os

    explicit = session_of(ctx).explicit
    if explicit is not None:
        return Path(os.path.realpath(explicit))
    return vault_of(ctx).root


def _show_approvals(approvals: list[Approval], as_json: bool) -> None:
    from dataclasses import asdict

    from cardvault.trust.settings import shown

    if as_json:
        render.print_json([asdict(a) for a in approvals])
        return
    if not approvals:
        render.note("no approvals: no vault's settings may run anything")
        return
    for a in approvals:
        render.success(f"{a.root}: {a.setting} = {shown(a.value)} (approved {a.approved[:16]})")
