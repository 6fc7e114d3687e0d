"""`cardvault history` and `cardvault diff`: what the memory learned, commit by commit, in words."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import JsonOption, reading

if TYPE_CHECKING:
    from cardvault.insight.changes import MemoryCommit


def history(
    ctx: typer.Context,
    slug: Annotated[
        str | None, typer.Argument(help="Only commits that changed this card.", show_default=False)
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since", metavar="DATE", help="Only commits on or after this day (YYYY-MM-DD)."
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option("--limit", metavar="N", min=1, help="At most this many commits, the newest."),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """What the memory learned, commit by commit, newest first, read from git.

    Cards created, merged (and from which), facts added or removed, rules promoted or demoted,
    cards archived or forgotten, log entries written: each commit's changes under memory/ and
    MEMORY.md, in words. `cardvault diff REV` shows one commit the same way. Each commit is
    shown as it is read; of its files, 1,000 and 4 MB of texts at most are read, the rest
    counted.
    """
    day = _day(since)
    found = reading(ctx).history(slug, day, limit)
    if render.wants_json(json_out):
        render.print_json_items(commit.to_dict() for commit in found)
        return
    shown = 0
    for commit in found:
        _show(commit)
        shown += 1
    if not shown:
        render.note(
            "no memory changes" + (f" to {slug}" if slug else "") + (f" since {day}" if day else "")
        )


def diff(
    ctx: typer.Context,
    rev: Annotated[
        str, typer.Argument(help="The commit to describe (a sha, HEAD~1, a tag).")
    ] = "HEAD",
    json_out: JsonOption = False,
) -> None:
    """One commit's change to the memory, in words (default: the last commit).

    `git show REV` gives the raw YAML and Markdown; this says what it meant: which cards were
    created, merged, promoted, archived or forgotten, which facts and log entries came in.
    """
    found = reading(ctx).diff(rev)
    if found is None:
        render.error("the vault has no commit yet")
        raise typer.Exit(1)
    if render.wants_json(json_out):
        render.print_json(found.to_dict())
        return
    _show(found)
    if not found.events:
        render.note("this commit changed no memory file")


def _day(text: str | None) -> dt.date | None:
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(
            f"{text!r} is not a day (YYYY-MM-DD)", param_hint="--since"
        ) from None


def _show(commit: MemoryCommit) -> None:
    """The commit's header, then what it did, a line each."""
    out, escape = render.console(), render.escape
    when = commit.date.strftime("%Y-%m-%d %H:%M")
    out.print(
        f"[bold yellow]{commit.sha[:10]}[/] {when} [dim]{escape(commit.author)}[/]  "
        f"{escape(commit.message)}"
    )
    for event in commit.events:
        out.print(f"  • {escape(event.text)}")
