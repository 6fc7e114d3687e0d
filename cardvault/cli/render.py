"""Everything the CLI shows a person: the only module that imports rich (lazily).

Commands build plain data and hand it here. In a terminal it becomes rich tables and colour;
when stdout is piped, or `--json` is given, commands print JSON instead (see `wants_json`).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from cardvault.app.services import LINE_EVERY, ProgressLines, shown
from cardvault.cli.output import collected, silenced

if TYPE_CHECKING:
    from rich.console import Console


#: The environment the consoles read (TERM, NO_COLOR, COLUMNS...): this process's, or the
#: caller's while `cardvault serve` answers a request (`environment`).
_environ: ContextVar[Mapping[str, str]] = ContextVar("cardvault_render_env", default=os.environ)
#: The (stdout, stderr) consoles, made on first use for `_environ` and the streams of the moment.
_made: ContextVar[tuple[Console, Console] | None] = ContextVar("cardvault_consoles", default=None)


def _consoles() -> tuple[Console, Console]:
    made = _made.get()
    if made is None:
        from rich.console import Console

        env = sized(_environ.get())
        made = (
            Console(highlight=False, soft_wrap=True, _environ=env),
            Console(stderr=True, highlight=False, soft_wrap=True, _environ=env),
        )
        _made.set(made)
    return made


def sized(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` without a terminal size of 0 (COLUMNS, LINES): a pseudo-terminal may report
    0 x 0, and a console 0 columns wide prints nothing; without them, the default (80)."""
    return {
        name: value
        for name, value in environ.items()
        if name not in ("COLUMNS", "LINES") or value.strip() not in ("0", "")
    }


def console() -> Console:
    """The stdout console, made on first use (`--help` never imports rich)."""
    return _consoles()[0]


def err_console() -> Console:
    """The stderr console, for errors, warnings and progress."""
    return _consoles()[1]


@contextlib.contextmanager
def environment(environ: Mapping[str, str]) -> Iterator[None]:
    """Consoles made for `environ` and the streams of the moment (a resident request's
    captured ones) while the block runs, dropped afterwards."""
    tokens = _environ.set(environ), _made.set(None)
    try:
        yield
    finally:
        _environ.reset(tokens[0])
        _made.reset(tokens[1])


def wants_json(flag: bool) -> bool:
    """JSON when asked, or when a script reads stdout (not a terminal)."""
    return flag or not sys.stdout.isatty()


def print_json(data: Any) -> None:
    """Write `data` as JSON to stdout (dates as ISO strings): indented for a person at a
    terminal, compact for a program (json's fast C encoder; indenting costs 5x)."""
    indent = 2 if sys.stdout.isatty() else None
    sys.stdout.write(json.dumps(data, indent=indent, ensure_ascii=False, default=str) + "\n")


def print_json_items(items: Iterable[Any]) -> None:
    """Write `items` as one JSON array, as `print_json` writes a list, each item as it comes:
    a long list is never held whole."""
    indent = 2 if sys.stdout.isatty() else None
    opening, between = ("[\n  ", ",\n  ") if indent else ("[", ", ")
    lead = opening
    for item in items:
        text = json.dumps(item, indent=indent, ensure_ascii=False, default=str)
        sys.stdout.write(lead + (text.replace("\n", "\n  ") if indent else text))
        lead = between
    if lead == opening:
        sys.stdout.write("[]\n")
    else:
        sys.stdout.write("\n]\n" if indent else "]\n")


def error(message: str) -> None:
    """An error line on stderr, any secret in it redacted (errors quote what the user typed)."""
    text = _redacted(message)
    collected("error", text)
    err_console().print(f"[bold red]error:[/] {escape(text)}")


def warning(message: str) -> None:
    """A warning line on stderr, any secret in it redacted."""
    text = _redacted(message)
    if not silenced("warning", text):
        err_console().print(f"[yellow]warning:[/] {escape(text)}")


def warnings(messages: Iterable[str]) -> None:
    """A warning line for each message."""
    for message in messages:
        warning(message)


def _redacted(message: str) -> str:
    from cardvault.guard import redact_text

    return redact_text(message)


def counted(count: int, noun: str, plural: str = "") -> str:
    """`count` and `noun`, plural unless the count is 1 ("1 card", "3 cards", "2 entries")."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


#: How many files a command names when it could not use them; the rest are counted.
SKIPPED_LISTED = 5


def skipped(problems: Sequence[object]) -> None:
    """The files a command could not use, as warnings: the first few named, the rest counted."""
    for problem in problems[:SKIPPED_LISTED]:
        warning(f"skipped {problem}")
    more = len(problems) - SKIPPED_LISTED
    if more > 0:
        warning(f"skipped {counted(more, 'more file')}; `cardvault check` names each")


def note(message: str) -> None:
    """A dim line on stderr (stdout is kept for data)."""
    if silenced("note", message):
        return
    err_console().print(f"[dim]{escape(message)}[/]")


def notes(messages: Iterable[str]) -> None:
    """A note line for each message."""
    for message in messages:
        note(message)


def success(message: str) -> None:
    """A confirmation line on stdout."""
    if silenced("success", message):
        return
    console().print(f"[green]✓[/] {escape(message)}")


def diff(text: str) -> None:
    """A unified diff on stdout: coloured in a terminal, as it is when piped."""
    if not sys.stdout.isatty():
        sys.stdout.write(text)
        return
    styles = {"+": "green", "-": "red", "@": "cyan"}
    for line in text.splitlines():
        style = "bold" if line.startswith(("+++", "---")) else styles.get(line[:1])
        console().print(f"[{style}]{escape(line)}[/]" if style else escape(line))


def escape(text: str) -> str:
    """Escape rich markup in user text, and every control character but the line breaks a
    message is made of (a terminal escape in a name or a note is shown, never obeyed)."""
    from rich.markup import escape as _escape

    if not text.isprintable():
        text = "\n".join(shown(line) for line in text.split("\n"))
    return _escape(text)


def table(columns: Sequence[str], rows: Iterable[Sequence[Any]], title: str | None = None) -> None:
    """A rich table on stdout."""
    from rich.table import Table

    grid = Table(title=title, show_lines=False, header_style="bold")
    for name in columns:
        grid.add_column(name, overflow="fold")
    for row in rows:
        grid.add_row(*(escape(str(cell)) for cell in row))
    console().print(grid)


def plain_text(text: str) -> None:
    """Write vault text to stdout: as it is for a program (an agent reads exactly what the
    vault holds); at a terminal, every control character but line breaks and tabs shown
    escaped (`\\x1b`, `\\r`), because a card from a shared vault could otherwise set the
    clipboard (OSC 52), hide text (`ESC[8m`) or overwrite a line for the person reading it."""
    if sys.stdout.isatty() and not text.isprintable():
        lines = text.split("\n")
        text = "\n".join("\t".join(shown(part) for part in line.split("\t")) for line in lines)
    sys.stdout.write(text)


# --- search and index (owned by the search module's author) ----------------------------------


def search_results(
    results: Sequence[Any],
    title: str | None = None,
    vaults: Sequence[str] | None = None,
    ages: Sequence[Mapping[str, Any]] | None = None,
) -> None:
    """Search hits as a table: rank, score, a card's age (days since it was updated, `STALE`
    when `verify` marked it: `ages`, one per hit), topic, path (+ log entry, + the vault it
    came from when several were searched), snippet with matches lit."""
    from rich.table import Table
    from rich.text import Text

    grid = Table(title=title, header_style="bold", show_lines=False)
    grid.add_column("#", justify="right", style="dim")
    grid.add_column("score", justify="right")
    if ages is not None:
        grid.add_column("age", justify="right", no_wrap=True)
    grid.add_column("topic", style="bold", overflow="fold")
    grid.add_column("path", style="cyan", overflow="fold")
    grid.add_column("snippet", overflow="fold", ratio=1)
    for rank, hit in enumerate(results, start=1):
        where = hit.path if hit.entry is None else f"{hit.path}\n{hit.entry}"
        if vaults is not None:
            where = f"{vaults[rank - 1]}: {where}"
        snippet = Text(hit.snippet)
        _highlight(snippet, hit.matches)
        score = f"{hit.score:.3f}" + (" weak" if hit.weak else "")
        cells: list[Any] = [str(rank), score]
        if ages is not None:
            cells.append(_age_cell(ages[rank - 1]))
        grid.add_row(*cells, hit.topic, where, snippet)
    console().print(grid)


def _age_cell(about: Mapping[str, Any]) -> Any:
    """`40d`, with `STALE` under it for a card `verify` marked; empty for a log entry."""
    from rich.text import Text

    from cardvault.app.search import STALE

    days = about.get("age_days")
    cell = Text("" if days is None else f"{days}d", style="dim")
    if about.get(STALE):
        cell.append("\nSTALE", style="bold red")
    return cell


def search_explanation(outcome: Any, vault: str | None = None) -> None:
    """Why each hit ranked where it did: each side's rank and score, the matching passage, and
    the weights the fusion gave the two sides for this query (per vault when several)."""
    from rich.table import Table

    where = f" in {vault}" if vault else ""
    if outcome.weights is not None:
        note(
            f"fusion weights for this query{where}: keyword {outcome.weights.keyword:.2f}, "
            f"semantic {outcome.weights.semantic:.2f}"
        )
    grid = Table(title=f"why{where}", header_style="bold")
    for name in ("#", "score", "keyword rank", "BM25", "semantic rank", "cosine", "passage"):
        grid.add_column(name, justify="right")
    grid.add_column("path", style="cyan", overflow="fold")

    def cell(value: Any, form: str) -> str:
        return "-" if value is None else format(value, form)

    for rank, hit in enumerate(outcome.results, start=1):
        passage = "-" if hit.passage is None else f"{hit.passage + 1} of {hit.passages}"
        grid.add_row(
            str(rank), f"{hit.score:.3f}", cell(hit.keyword_rank, "d"),
            cell(hit.keyword_score, ".2f"), cell(hit.semantic_rank, "d"),
            cell(hit.semantic_score, ".3f"), passage, hit.path,
        )  # fmt: skip
    console().print(grid)


def _highlight(snippet: Any, matches: Sequence[str]) -> None:
    """Mark the matched words in a snippet: whole words only, so "in" never lights up "install"
    (CJK matches sit between other word characters, so they are marked wherever they occur)."""
    import re

    cjk = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
    words = sorted(matches, key=len, reverse=True)
    latin = "|".join(re.escape(w) for w in words if not cjk.search(w))
    ideographs = "|".join(re.escape(w) for w in words if cjk.search(w))
    parts = ([rf"(?<![^\W_])(?:{latin})(?![^\W_])"] if latin else []) + (
        [ideographs] if ideographs else []
    )
    if not parts:
        return
    for match in re.finditer("|".join(parts), snippet.plain, re.IGNORECASE):
        snippet.stylize("bold yellow", match.start(), match.end())


class IndexProgress:
    """A rich progress bar fed by the index service's progress(phase, done, total) callback."""

    def __init__(self) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("{task.description:<14}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=err_console(),
            transient=True,
            disable=not err_console().is_terminal,  # piped, it would leave a blank line
        )
        self._tasks: dict[str, Any] = {}
        self._piped = not err_console().is_terminal
        # piped (an agent reading stderr): plain lines now and then instead of a bar
        self._lines = ProgressLines(_plain_error_line, every=PIPED_EVERY)

    def __enter__(self) -> IndexProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def __call__(self, phase: str, done: int, total: int) -> None:
        if self._piped:
            self._lines(phase, done, total)
            return
        task = self._tasks.get(phase)
        if task is None:
            for earlier in self._tasks.values():
                self._progress.update(earlier, visible=False)
            task = self._progress.add_task(phase, total=total or None, rate="")
            self._tasks[phase] = task
        self._progress.update(task, completed=done, total=total or None)
        speed = self._progress.tasks[task].speed
        if speed:
            self._progress.update(task, rate=f"{speed:,.1f}/s")


def _plain_error_line(line: str) -> None:
    err_console().print(line, markup=False, highlight=False)


#: How often a piped progress line is written (none for work that ends sooner).
PIPED_EVERY = LINE_EVERY


# --- end of search and index ------------------------------------------------------------------
