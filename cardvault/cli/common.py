"""What every command shares: its session (`cardvault.app.Session`: the vault, the agent, the
clock, the scope), the options several commands take, and turning errors into exits."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption

from cardvault.app.services import Scope
from cardvault.cli import output, render
from cardvault.errors import CardFormatError, CardvaultError
from cardvault.limits import read_stream

if TYPE_CHECKING:
    from cardvault.app import Session
    from cardvault.app.search import Indexing
    from cardvault.scopes.scope import InScope
    from cardvault.vault.layout import Vault

#: The card filters shared by `list` and `search`.
CategoryOption = Annotated[str | None, typer.Option("--category", "-c", help="Only this category.")]
TagOption = Annotated[str | None, typer.Option("--tag", "-t", help="Only cards with this tag.")]
StatusOption = Annotated[
    str | None, typer.Option("--status", "-s", help="active, promoted or archived.")
]
ArchivedOption = Annotated[bool, typer.Option("--archived", help="Include memory/archive/.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON (also when piped).")]
#: The secret guard's escape hatch on the writing commands.
RedactOption = Annotated[
    bool, typer.Option("--redact", help="Replace secrets instead of refusing.")
]

#: Scopes and agents (docs/scopes.md).
ScopeHelp = "project (this vault), global (the global vault) or all (both, project first)."
ScopeOption = Annotated[Scope, typer.Option("--scope", help=f"Vaults to read: {ScopeHelp}")]
GlobalOption = Annotated[
    bool,
    typer.Option("--global", help="Write to the global vault ($CARDVAULT_HOME), not the project."),
]
VaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        "-V",
        help="Vault folder. Default: $CARDVAULT_VAULT, else the nearest folder upwards "
        "holding cardvault.toml.",
        show_default=False,
    ),
]
AgentOption = Annotated[
    str | None,
    typer.Option(
        "--agent",
        help="Write (or read) as this agent: commits and log entries name it; default "
        "$CARDVAULT_AGENT.",
        show_default=False,
    ),
]


#: Where the group keeps the command line it parsed (`ctx.meta`), for a refused one's --json.
_ARGV = "cardvault.argv"


class CardvaultGroup(TyperGroup):
    """The command group: a known failure becomes a message and exit 1; each command gets
    `--json` and `--quiet` (cli/output.py) when it is resolved, so running one prepares only it."""

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            output.add_output_options(command)
        return command

    def format_commands(self, ctx: typer.Context, formatter: Any) -> None:  # type: ignore[override]
        """The commands under their `rich_help_panel`s, in the order they were added."""
        shown = [(n, c) for n in self.list_commands(ctx) if (c := self.get_command(ctx, n))]
        shown = [(name, command) for name, command in shown if not command.hidden]
        if not shown:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in shown)
        panels: dict[str, list[tuple[str, str]]] = {}
        for name, command in shown:
            panel = getattr(command, "rich_help_panel", None) or "Commands"
            panels.setdefault(panel, []).append((name, command.get_short_help_str(limit)))
        for panel, rows in panels.items():
            with formatter.section(panel):
                formatter.write_dl(rows)

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        with output.session():
            try:
                return super().invoke(ctx)
            except typer.TyperException as exc:  # click's usage errors: shown on stderr, exit 2
                output.usage_failed(ctx.meta.get(_ARGV, []), exc)
                raise
            except Exception as exc:
                said = failure_line(exc)
                if said is None:
                    raise
                render.error(said)
                raise typer.Exit(1) from exc

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # type: ignore[override]
        given = ctx.meta[_ARGV] = list(args)  # a copy: click's parser consumes `args`
        try:
            return super().parse_args(ctx, args)
        except typer.TyperException as exc:  # before any command: `cardvault --bogus list`
            output.usage_failed(given, exc, at_once=True)
            raise


#: Failures of the machine under a library (a full disk or a read-only folder under SQLite, git
#: failing to write its objects): (module, class, what failed). Looked up only once raised, so
#: no command imports a library to be able to name its errors.
ENVIRONMENT_ERRORS = (
    ("sqlite3", "Error", "a cache in .cardvault/ could not be read or written"),
    ("git.exc", "GitError", "git could not complete the command"),
)


def failure_line(exc: BaseException) -> str | None:
    """The one line a command's error is shown as, or None for a bug (its trace is shown)."""
    if isinstance(exc, CardvaultError):
        return str(exc)
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    for module, name, what in ENVIRONMENT_ERRORS:
        kind = getattr(sys.modules.get(module), name, None)
        if kind is not None and isinstance(exc, kind):
            detail = " ".join(str(exc).split())[:300]
            return f"{what}: {detail} (is the disk full or read-only?)"
    return None


class TextCommand(TyperCommand):
    """A command whose argument is free text (`search`'s query, what `log` writes): an argument
    that starts with '-' yet holds whitespace before any '=' (a pasted `--- FAIL: TestX`, a
    Markdown bullet `- deployed 2.3.1`) cannot be an option, so it is read as that text rather
    than refused as "No such option"."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        valued = {
            name
            for param in self.params
            if isinstance(param, TyperOption) and not param.is_flag and not param.count
            for name in param.opts
        }
        options: list[str] = []
        texts: list[str] = []
        for position, arg in enumerate(args):
            if arg == "--":
                options += args[position:]
                break
            after_option = position > 0 and args[position - 1] in valued
            (texts if _is_text(arg) and not after_option else options).append(arg)
        if texts and "--" not in options:
            options.append("--")
        return super().parse_args(ctx, options + texts)


def _is_text(arg: str) -> bool:
    name = arg.partition("=")[0]
    return arg.startswith("-") and any(char.isspace() for char in name)


def session_of(ctx: typer.Context, agent: str | None = None) -> Session:
    """The session the root callback made (or `cardvault serve` lent), acting as `agent`."""
    from cardvault.app import Session

    found = ctx.find_root().obj
    session = found if isinstance(found, Session) else Session()
    return session.with_options(agent=agent) if agent is not None else session


def vault_of(ctx: typer.Context, agent: str | None = None, to_global: bool = False) -> Vault:
    """The vault this invocation works on (the global one, made on first use, `to_global`)."""
    return opened(session_of(ctx, agent).vault_for(to_global))


def reading(ctx: typer.Context, from_global: bool = False) -> Session:
    """The session of a command reading one vault (the global one only when it exists),
    after telling the user what opening it healed."""
    session = session_of(ctx)
    vault = session.global_vault() if from_global else session.project()
    if vault is not None:
        opened(vault)
    return session


def opened(vault: Vault) -> Vault:
    """`vault`, after telling the user what opening it healed (a `.cardvault` that was a file)."""
    render.warnings(vault.notices)
    return vault


def indexing(ctx: typer.Context) -> Indexing | None:
    """How a ranked read shows a first index: the progress bar `cardvault index` shows, none
    inside the resident process (it indexed when it started)."""
    return None if session_of(ctx).served else render.IndexProgress


def open_scope(
    ctx: typer.Context, scope: Scope, agent: str | None = None, searching: bool = False
) -> InScope:
    """The vaults `--scope` covers (`searching`: as a search takes them), resolved once for the
    command, after telling the user what opening them healed."""
    found = session_of(ctx, agent).scope(scope, searching)
    for scoped in found.vaults:
        opened(scoped.vault)
    return found


def print_each_json(found: Any, scope: Scope) -> None:
    """Each vault's result as JSON, named by "vault": a list with --scope all, else one object."""
    data = [{**each.result.to_dict(), "vault": each.name} for each in found.each]
    render.print_json(data if scope is Scope.all else (data[0] if data else {}))


def report_registration(done: Any) -> None:
    """Say that the project registered with the global vault, or why it did not."""
    if done.unregistered is not None:
        render.warning(f"not registered with the global vault: {done.unregistered}")
    elif done.registered is not None and done.registered.commit is not None:
        render.note(f"registered with the global vault as {done.registered.key}")


def read_stdin(vault: Vault, what: str) -> str:
    """Standard input as text; past `[write] max_entry_bytes` it is refused at once rather than
    read into memory (`log - < /dev/zero`)."""
    limit = vault.config.max_entry_bytes
    data = read_stream(sys.stdin, limit)
    if len(data) > limit:
        raise CardFormatError(
            f"{what} on stdin is over the limit of {limit:,} bytes per write; nothing written "
            "(the limit is [write] max_entry_bytes in cardvault.toml)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CardFormatError(f"{what} on stdin is not UTF-8 text") from exc


def report_commit(result: Any) -> None:
    """Tell the user which commit recorded the change (or why none did); nothing for None."""
    if result is None:
        return
    if result.recorded:
        render.note(f"committed {result.sha[:10]}: {result.message}")
    if result.note:  # with a commit: what it left out (files git ignores)
        render.warning(result.note)


def report_subject(result: Any) -> None:
    """Like report_commit, with the subject line only (for commits with long bodies)."""
    if result is not None:
        report_commit(replace(result, message=result.message.split("\n", 1)[0]))


def waiting_note(holder: Any) -> None:
    """The write door's `on_wait`: the write waits for another writer."""
    render.note(f"waiting for another cardvault writer ({holder.describe()})…")
