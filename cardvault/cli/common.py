"""What every command shares: the vault from `--vault`, the clock, turning errors into exits."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from cardvault.errors import CardvaultError
from cardvault.vault.layout import Vault, find_vault

#: The card filters shared by `list` and `search`.
CategoryOption = Annotated[str | None, typer.Option("--category", "-c", help="Only this category.")]
TagOption = Annotated[str | None, typer.Option("--tag", "-t", help="Only cards with this tag.")]
StatusOption = Annotated[
    str | None, typer.Option("--status", "-s", help="active, promoted or archived.")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON (also when piped).")]
#: The secret guard's escape hatch on the writing commands.
RedactOption = Annotated[
    bool, typer.Option("--redact", help="Replace secrets instead of refusing.")
]

#: Tests and reproducible demos may pin the clock: CARDVAULT_NOW=2026-11-30T09:15
NOW_VAR = "CARDVAULT_NOW"


class CardvaultGroup(TyperGroup):
    """The command group: a CardvaultError from any command becomes a message and exit 1."""

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        from cardvault.cli import render

        try:
            return super().invoke(ctx)
        except CardvaultError as exc:
            render.error(str(exc))
            raise typer.Exit(1) from exc
        except OSError as exc:  # the disk, permissions, a name too long: one line, not a trace
            where = f"{exc.filename}: " if exc.filename else ""
            render.error(f"{where}{exc.strerror or exc}")
            raise typer.Exit(1) from exc


def vault_of(ctx: typer.Context) -> Vault:
    """The vault this invocation works on (`--vault`, $CARDVAULT_VAULT, or found upwards)."""
    from cardvault.cli import render

    root = ctx.find_root()
    explicit: Path | None = (root.obj or {}).get("vault")
    vault = find_vault(explicit)
    for notice in vault.notices:
        render.warning(notice)
    return vault


def now() -> dt.datetime:
    """The current local time, or $CARDVAULT_NOW when set."""
    pinned = os.environ.get(NOW_VAR)
    if pinned:
        return dt.datetime.fromisoformat(pinned)
    return dt.datetime.now().replace(second=0, microsecond=0)


def report_commit(result: Any) -> None:
    """Tell the user which commit recorded the change (or why none did)."""
    from cardvault.cli import render

    if result.recorded:
        render.note(f"committed {result.sha[:10]}: {result.message}")
    elif result.note:
        render.warning(result.note)


def report_subject(result: Any) -> None:
    """Like report_commit, with the subject line only (for commits with long bodies)."""
    from dataclasses import replace

    report_commit(replace(result, message=result.message.split("\n", 1)[0]))
