"""`cardvault review`: the memory decisions maintenance left for a person (or a judge)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from cardvault.cli import render
from cardvault.cli.common import JsonOption, report_subject, session_of, vault_of
from cardvault.errors import CardvaultError

if TYPE_CHECKING:
    from cardvault.review.answer import ReviewResult
    from cardvault.vault.decisions import ReviewItem

review_app = typer.Typer(
    name="review",
    invoke_without_command=True,
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
)
IdsArgument = Annotated[list[str], typer.Argument(help="Review item ids (or unique prefixes).")]
ReasonOption = Annotated[
    str | None, typer.Option("--reason", help="Why (kept with the decision in the vault).")
]


GlobalReviewOption = Annotated[
    bool,
    typer.Option(
        "--global",
        help="The global vault's queue ($CARDVAULT_HOME): lessons found in several projects.",
    ),
]
GLOBAL_KEY = "cardvault.review.global"


def _to_global(ctx: typer.Context) -> bool:
    """Whether this invocation answers the global vault's queue (the callback's --global,
    shared with the subcommand through ctx.meta); the vault's notices are shown."""
    to_global = bool(ctx.meta.get(GLOBAL_KEY))
    vault_of(ctx, to_global=to_global)
    return to_global


@review_app.callback()
def review(
    ctx: typer.Context, json_out: JsonOption = False, to_global: GlobalReviewOption = False
) -> None:
    """List the pending memory decisions: possibly the same lesson in other words, possibly
    duplicate cards, contradictions to settle, overflow of a merged card, cards `verify` found
    stale.

    Answer with `cardvault review accept ID` or `reject ID`. With --json (or piped): an array
    of {id, kind, members: [{n, path, source, text, ...}], evidence, asked}. `review --global`
    (and `review --global accept ID`) works on the global vault's queue, where `maintain
    --global` asks whether cards of several projects tell one lesson.
    """
    ctx.meta[GLOBAL_KEY] = to_global
    if ctx.invoked_subcommand is not None:
        return
    from cardvault.app.review import listing

    items = session_of(ctx).review_pending(_to_global(ctx))
    if render.wants_json(json_out):
        render.print_json([listing(item) for item in items])
        return
    if not items:
        render.success("no memory decisions pending")
        return
    render.console().print(
        f"[bold]{render.counted(len(items), 'memory decision')} pending[/] "
        "(cardvault review accept|reject ID)\n"
    )
    for item in items:
        _show_item(item)


def _show_item(item: ReviewItem) -> None:
    from cardvault.app.review import in_words

    out = render.console()
    asks, evidence, hint = in_words(item)
    out.print(f"[bold cyan]{item.id}[/]  {asks}  [dim]asked {item.asked}[/]")
    for number, member in enumerate(item.members, start=1):
        where = member.source or member.path
        held = f" → {member.card}" if member.card and member.card != member.path else ""
        out.print(f"  {number}. [cyan]{render.escape(where)}[/]{render.escape(held)}")
        out.print(f"     {render.escape(_short(member.text))}")
    out.print(f"  [dim]why asked: {render.escape(evidence)}[/]")
    out.print(f"  [dim]{render.escape(hint)}[/]\n")


def _short(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@review_app.command("accept")
def accept(
    ctx: typer.Context,
    ids: IdsArgument,
    only: Annotated[
        str | None,
        typer.Option("--only", help="Same lesson: only these members (e.g. 1,3), not all."),
    ] = None,
    keep: Annotated[
        int | None,
        typer.Option(
            "--keep", help="Contradiction: the member that holds (the other is archived)."
        ),
    ] = None,
    reason: ReasonOption = None,
) -> None:
    """Accept decisions: make the members one card (same lesson, duplicate), keep one side of a
    contradiction, give a merged card's overflow a card of its own, archive a stale card. One
    commit."""
    _show_result(session_of(ctx).review_accept(ids, _numbers(only), keep, reason, _to_global(ctx)))


@review_app.command("reject")
def reject(ctx: typer.Context, ids: IdsArgument, reason: ReasonOption = None) -> None:
    """Reject decisions: not the same lesson (kept apart for good), both sides of a
    contradiction stand, a merged card's overflow is appended anyway, a stale card is still
    right (its mark goes, `checked:` records the day and commit, and `verify` does not mark it
    again for those reasons). One commit."""
    _show_result(session_of(ctx).review_reject(ids, reason, _to_global(ctx)))


@review_app.command("judge")
def judge(
    ctx: typer.Context,
    ids: Annotated[
        list[str] | None, typer.Argument(help="Items to ask about (default: all).")
    ] = None,
) -> None:
    """Ask the judge command set in cardvault.toml ([maintain] judge) about pending decisions;
    its answers are applied like a person's and recorded with its name."""
    outcome = session_of(ctx).review_judge(ids or None, _to_global(ctx))
    render.warnings(outcome.messages)
    if outcome.result is not None:
        _show_result(outcome.result)
    elif not outcome.messages:
        render.success("nothing for the judge to answer")


def _numbers(text: str | None) -> tuple[int, ...]:
    if not text:
        return ()
    try:
        return tuple(int(part) for part in text.replace(" ", "").split(",") if part)
    except ValueError as exc:
        raise CardvaultError(f"--only takes member numbers like 1,3, got {text!r}") from exc


def _show_result(result: ReviewResult) -> None:
    for item in result.settled:
        render.success(f"{item.id} {item.status}")
    for line in result.reasons:
        render.console().print(f"  {render.escape(line)}")
    report_subject(result.commit)
    render.note(f"{render.counted(result.pending, 'memory decision')} still pending")
