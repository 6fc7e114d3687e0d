"""`cardvault search` and `cardvault index`: thin wrappers over the search service."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from cardvault.app.search import Filters, Query, Scope
from cardvault.cli import render
from cardvault.cli.common import (
    CategoryOption,
    JsonOption,
    ScopeOption,
    StatusOption,
    TagOption,
    indexing,
    open_scope,
    session_of,
    vault_of,
)


class Mode(StrEnum):
    """Ranking modes of `search`."""

    hybrid = "hybrid"
    semantic = "semantic"
    keyword = "keyword"


def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="Words, a question, or an exact error message.")],
    k: Annotated[int, typer.Option("-k", "--limit", min=1, help="How many results.")] = 10,
    mode: Annotated[Mode, typer.Option("--mode", "-m", help="How to rank.")] = Mode.hybrid,
    category: CategoryOption = None,
    tag: TagOption = None,
    status: StatusOption = None,
    logs: Annotated[bool, typer.Option("--logs", help="Also search daily-log entries.")] = False,
    archived: Annotated[
        bool, typer.Option("--archived", help="Also search memory/archive/.")
    ] = False,
    json_out: JsonOption = False,
    scope: ScopeOption = Scope.all,
    explain: Annotated[
        bool,
        typer.Option("--explain", help="Show each side's rank and score and the fusion's weights."),
    ] = False,
    show_all: Annotated[
        bool, typer.Option("--all", hidden=True, help="No longer needed: weak hits are shown.")
    ] = False,
    rerank: Annotated[
        bool | None,
        typer.Option(
            "--rerank/--no-rerank",
            help="Let a cross-encoder reread the first 20 hybrid hits: better results, about "
            "0.7 s more a query (default: the vault's [search] rerank; needs cardvault[rerank]).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Find cards by meaning and by exact words (BM25 + embeddings); syncs the index first.

    Log entries not yet distilled into a card (what was just remembered) are found too. Scores
    estimate how likely a hit is what you look for (0-1, the same scale for every query and
    mode). The best hits are always shown; one unlikely to be what you look for is marked weak
    ("no strong match" when all are), and only a query sharing no word with memory and near
    nothing in meaning gets "no match". When no card is a strong hit but a log entry is, it
    says so: search again with --logs.
    By default this project's vault and the global vault are searched (--scope all); each hit
    names the vault it came from. A card's age is shown in days since it was updated, with
    STALE under it when `cardvault verify` marked it (--json: `age`, `age_days`, `stale`).
    Example: cardvault search "why does the login POST get rejected" -k 5 --json
    """
    in_scope = open_scope(ctx, scope, searching=True)
    filters = Filters(category=category, tag=tag, status=status, logs=logs, archived=archived)
    asked = Query(query, k=k, mode=mode.value, filters=filters, scope=in_scope, rerank=rerank)
    session = session_of(ctx)
    found = session.search_hits(asked, indexing(ctx))
    if in_scope.vaults:  # warm by default: the next search is answered by the vault's server
        session.start_resident(in_scope.vaults[0].vault)
    render.warnings(found.notices)
    if show_all:
        render.note("--all is no longer needed: weak hits are always shown, marked weak")
    said = [line for line in (found.verdict, found.logs_hint("--logs")) if line]
    if render.wants_json(json_out):
        render.notes(said)  # on stderr
        render.print_json(list(found.rows(weights=True)))
        return
    if not found.hits:
        render.notes(said)
        return
    vaults = [name for name, _ in found.hits] if found.vaults > 1 else None
    ages = found.about if found.today is not None else None
    title = f"{'/'.join(found.modes)} search: {query}"
    render.search_results(found.results, title, vaults, ages)
    render.notes(said)
    if explain:
        for name, outcome in found.outcomes:
            render.search_explanation(outcome, name if found.vaults > 1 else None)


def index(
    ctx: typer.Context,
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="Drop the index and build it anew.")
    ] = False,
) -> None:
    """Bring the search index (.cardvault/) up to date; only changed files are re-embedded."""
    session = session_of(ctx)
    vault = vault_of(ctx)  # its notices
    with render.IndexProgress() as progress:
        report = session.index(rebuild=rebuild, progress=progress)
    session.start_resident(vault)
    render.warnings(report.notices)
    render.skipped(report.errors)
    said = (
        f"{report.documents} documents ({report.passages} passages) from {report.files} files: "
        f"{report.parsed} files read, {report.embedded} passages embedded"
        f"{f' ({report.resumed} more kept from an interrupted run)' if report.resumed else ''}, "
        f"{report.removed_files} files removed"
    )
    if report.documents:
        render.success(said)
    elif report.errors:  # nothing to search: no tick for it
        render.warning(f"nothing indexed: {len(report.errors)} files could not be used ({said})")
    else:
        render.note(f"nothing to index yet ({said})")
