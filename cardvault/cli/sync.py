"""`cardvault sync`: commit, fetch, merge with cardvault's drivers, push."""

from __future__ import annotations

from typing import Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import reading, report_subject, waiting_note


def sync(
    ctx: typer.Context,
    remote: Annotated[
        str | None,
        typer.Option("--remote", "-r", help="The git remote (default: the branch's, else origin)."),
    ] = None,
) -> None:
    """Share the vault through a git remote: commit pending edits, fetch, merge (daily logs entry
    by entry, cards key by key, managed sections regenerated), refresh the index, push; a push
    rejected because another machine pushed first is retried.

    A conflict cardvault cannot resolve (both sides rewrote the same lines) stops the sync with
    `path:line` for each, and the repository as it was before the sync; exit 1.
    """
    session = reading(ctx)
    result = session.sync(remote, on_wait=waiting_note)
    render.notes(result.notes)
    report_subject(result.pending)
    if result.conflicts:
        for conflict in result.conflicts:
            for line in conflict.describe():
                render.error(line)
        target = f"{result.remote}/{result.branch}"
        render.note(
            "the merge was undone: the branch is as it was before the sync. To resolve by hand: "
            f"`git merge {target}`, fix the marked lines, `git add` the files, `git commit`, "
            "then `cardvault sync` again"
        )
        raise typer.Exit(1)
    report_subject(result.forgotten)
    if result.refused is not None:
        render.error(result.refused)
        raise typer.Exit(1)
    render.success(
        f"synced with {result.remote}/{result.branch}: {result.merged}, pushed"
        + (f" (after {result.attempts} tries)" if result.attempts > 1 else "")
    )
