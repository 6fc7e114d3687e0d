"""`cardvault verify`: check what cards name against the project; mark the stale ones."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import reading, report_subject

if TYPE_CHECKING:
    from cardvault.verify.run import VerifyResult


def verify(
    ctx: typer.Context,
    project: Annotated[
        Path | None,
        typer.Option(
            "--project",
            help="The project folder to check against (default: the git repository the vault "
            "lives in).",
            show_default=False,
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Report what is stale; mark nothing.")
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="The verdict as JSON.")] = False,
) -> None:
    """Check what each card names against the project it describes; mark the stale ones.

    A card is stale when a file it names (`src/app.py` in backticks, a relative link) no
    longer exists, a command it gives (`make deploy`, `npm run build`, a line of a shell
    block) is no longer a Makefile target, a package.json or pyproject script, or a program
    on PATH, a version it pins (`requests==2.31.0`, `react@18.2.0`) differs from the lock
    files (requirements*.txt, package-lock.json, poetry.lock, uv.lock), a code symbol it names
    (`load_config()`, `VaultState`, `settings.DEBUG`) is in no tracked source file, or lines it
    cites (`src/app.py:12-30`) changed since the commit its `checked:` record names (recorded
    the first time). Nothing is run: files are only read, inside the project. A stale card
    gets `stale: {reason, date}` in its frontmatter and a question in `cardvault review` (one
    commit); `context` and `search` show it with the card's age. Answer the question (still
    right, or archive it), or fix the card and run verify again: the mark goes (a mark saying
    only that a program was not on PATH where it was marked stays until answered). `maintain`
    runs the same check. Exit 1 when a card is stale.
    """
    session = reading(ctx)
    result = session.verify(project, dry_run)
    if json_out:
        render.print_json(result.to_dict())
    else:
        _show(result, session.project().rel)
    if result.stale:
        raise typer.Exit(1)


def _show(result: VerifyResult, rel: Callable[[Path], str]) -> None:
    """The verdict as lines: `path: reason` per stale name, then a summary."""
    for problem in result.problems:
        render.warning(str(problem))
    for check in result.stale:
        for reason in check.reasons:
            render.console().print(render.escape(f"{rel(check.path)}: {reason}"))
    if result.project is not None:
        where = render.escape(str(result.project))
        summary = f"{len(result.checks)} card(s) checked against {where}: {len(result.stale)} stale"
        render.console().print(summary)
    if result.asked:
        render.note(f"{render.counted(len(result.asked), 'question')} asked: cardvault review")
    report_subject(result.commit)
