"""`cardvault trust`: approve, list or revoke what a vault's own settings may run."""

from __future__ import annotations

import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.app.services import quoted
from cardvault.cli import render
from cardvault.cli.common import session_of
from cardvault.errors import CardvaultError

if TYPE_CHECKING:
    from cardvault.app import Session
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
    session = session_of(ctx)
    if list_all:
        _show_approvals(session.trust_list(), render.wants_json(json_out))
    elif revoke:
        root, gone = session.trust_revoke()
        if json_out:
            render.print_json({"vault": str(root), "revoked": [asdict(a) for a in gone]})
            return
        render.success(
            f"revoked {render.counted(len(gone), 'approval')} for {root}"
            if gone
            else f"nothing to revoke: no approval for {root}"
        )
    else:
        _approve(session, yes, json_out)


def _approve(session: Session, yes: bool, json_out: bool) -> None:
    def ask(waiting: list[Asked]) -> bool:
        for item in waiting:
            _describe(item)
        if yes:
            return True
        if not sys.stdin.isatty():
            raise CardvaultError(
                "not approved: confirm at a terminal, or pass --yes if you read the values above"
            )
        return typer.confirm(f"Let {session.root} run this?", err=True)

    done = session.trust(ask)
    if json_out:
        data = {"vault": str(done.root), "approved": list(done.approved)}
        render.print_json(data | {"already": list(done.already)})
    elif done.approved:
        names = ", ".join(done.approved)
        render.success(f"approved {names} for {done.root}; `cardvault trust --revoke` undoes it")
    elif done.already:
        render.success(f"already approved for {done.root}: {', '.join(done.already)}")
    else:
        render.success(f"nothing to approve: {done.root}'s settings run nothing")


def _describe(item: Asked) -> None:
    """What the vault asks to run, on stderr, with the files of the vault it names."""
    render.warning(
        f"cardvault.toml: {item.setting.shown_key} = {quoted(item.value, 400)} is "
        f"{item.setting.runs}"
    )
    for word in item.vault_files:
        render.warning(
            f"it names {word}, a file of the vault: approving it approves whatever that file "
            "holds each time it runs (a pull may change it)"
        )


def _show_approvals(approvals: list[Approval], as_json: bool) -> None:
    if as_json:
        render.print_json([asdict(a) for a in approvals])
        return
    if not approvals:
        render.note("no approvals: no vault's settings may run anything")
        return
    for a in approvals:
        render.success(f"{a.root}: {a.setting} = {quoted(a.value)} (approved {a.approved[:16]})")
