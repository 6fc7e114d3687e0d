"""`cardvault verify`: cards checked against the project they describe (`project_of`), stale
ones marked.

Each name a card holds (verify/names.py) is checked: a path that no longer exists, a make
target, package script or program that is gone, a pin its lock files no longer lock, a code
symbol no tracked source file holds. A stale card gets `stale: {reason, date}` (reasons joined
by "; ", the date first found); nothing is run. Which marks clear is `clears`: a program on one
machine's PATH must not undo, run after run, the mark a clone without it made.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardvault.edits.changes import Change, WriteFile
from cardvault.vault.card import update_card_text
from cardvault.vault.fields import CHECKED, STALE
from cardvault.vault.layout import Vault
from cardvault.vault.read import CardFile
from cardvault.verify.checked import line_verdict
from cardvault.verify.names import EXTENSIONS, ROOT_FILES, Named, named_in, pin_parts
from cardvault.verify.project import Project, normal_name
from cardvault.verify.symbols import symbol_of

STEP = "verify"
#: Shell builtins and keywords: a command line starting with one names no program. (The
#: prefixes `_command_stale` skips, and words not starting with a letter, never get here.)
SHELL_WORDS = frozenset({"cd", "export", "echo", "source", "set", "unset", "if", "then", "else",
                         "fi", "for", "do", "done", "while", "case", "esac", "alias", "exit",
                         "true", "false", "test", "read", "eval"})  # fmt: skip
SCRIPT_RUNNERS = {("npm", "run"), ("npm", "run-script"), ("pnpm", "run"), ("yarn", "run")}


@dataclass(frozen=True)
class CardCheck:
    """One card's verdict: how many names were checked, and why it is stale (empty: fresh)."""

    slug: str
    path: Path
    checked: int
    reasons: tuple[str, ...]
    record: Mapping[str, object] | None = None  # the `checked:` to write (verify/checked.py)


#: Which fresh cards lose their mark: every one (`verify`), or only those edited out of what
#: their mark cites (maintain's step): `clears`.
EVERY, EDITED = "every", "edited"
#: Between the reasons of one mark (`stale: {reason: "A; B"}`).
SEPARATOR = "; "
#: The name a reason cites: every reason starts with it in backticks.
_CITED = re.compile(r"`([^`]+)`")
#: How the reasons that depend on the machine end (what is installed here, not what the
#: project holds): `_command_stale`'s.
LOCAL = ("is not on PATH", "nor installed here")


def clears(check: CardCheck, card: CardFile, policy: str = EVERY) -> bool:
    """Whether `card`'s stale mark goes now: never while the check finds it stale. Under EDITED
    (maintain) only when the card no longer names anything its mark cites; under EVERY (verify)
    unless every reason is about what is installed and the card still names it (this machine
    having the program says nothing of the clone that lacks it). A hand-written `stale:` with no
    cited name stays until `verify`."""
    before = card.card.meta.get(STALE)
    if check.reasons or before is None or before is False:
        return False
    parts = [part.strip() for part in mark_reasons(before)]
    cited = [m.group(1) for part in parts if (m := _CITED.match(part))]
    named = any(name in card.card.body for name in cited)
    if policy == EVERY:
        return not (named and parts and all(part.endswith(LOCAL) for part in parts))
    return bool(cited) and not named


def mark_reasons(value: Any) -> tuple[str, ...]:
    """The reasons of a card's `stale:` value (`{reason, date}`; a hand-written `stale: why`)."""
    reason = value.get("reason") if isinstance(value, dict) else value
    if reason is None or reason is False:
        return ()
    if reason is True:
        return ("marked stale by hand",)
    return tuple(part for part in str(reason).split(SEPARATOR) if part.strip())


def project_of(vault: Vault, named: Path | None = None) -> Path | None:
    """The project to check `vault` against: `named`, else the git work tree holding the vault
    (a vault in a sub-folder of a repository, or `cardvault init .` in one), unless that tree
    holds nothing but the vault's own files (a vault of its own: None)."""
    if named is not None:
        return named.resolve()
    from cardvault.history import work_tree_of

    top = work_tree_of(vault.root)
    if top is None:
        return None
    if top.resolve() == vault.root.resolve() and not _beside_the_vault(top):
        return None
    return top.resolve()


def _beside_the_vault(root: Path) -> bool:
    """Whether the vault's root folder holds anything besides the vault's own files."""
    from cardvault.vault.owned import ROOT_FILES as OWN
    from cardvault.vault.owned import WRITTEN_ONCE

    ignored = {*OWN, *WRITTEN_ONCE, "memory", ".git", ".cardvault"}
    try:
        with os.scandir(root) as entries:
            return any(entry.name not in ignored for entry in entries)
    except OSError:
        return False


def check_cards(
    cards: Iterable[CardFile],
    vault: Vault,
    project: Project,
    today: dt.date,
    dismissed: Mapping[str, frozenset[str]] | None = None,
) -> list[CardCheck]:
    """The verdict on each card, in order, less the reasons a review answer dismissed (card path
    -> reasons). All cards' symbols are looked up in one pass over the project's source."""
    vault_files = Project(vault.root)
    named = [(card, named_in(card.card.body)) for card in cards]
    present = _source_names(project, [n for _, names in named for n in names])
    checks = []
    for card, names in named:
        reasons = [why for n in names if (why := _stale(n, project, vault_files, present))]
        cited = [n for n in names if n.kind == "path" and n.lines is not None]
        marked = mark_reasons(card.card.meta.get(STALE))
        more, record = line_verdict(card.card, cited, project, today, marked)
        settled = (dismissed or {}).get(vault.rel(card.path), frozenset())
        reasons = [why for why in dict.fromkeys(reasons + more) if why not in settled]
        record = record if not reasons else None
        checks.append(CardCheck(card.slug, card.path, len(names), tuple(reasons), record))
    return checks


def _source_names(project: Project, names: list[Named]) -> frozenset[str] | None:
    """The symbol names (and anchors) the project's source holds; None: not checked."""
    wanted = {
        word
        for n in names
        if n.kind == "symbol" and (symbol := symbol_of(n.text)) is not None
        for word in (symbol.name, symbol.anchor)
        if word
    }
    return project.source_names(frozenset(wanted)) if wanted else None


def _stale(
    named: Named, project: Project, vault_files: Project, present: frozenset[str] | None
) -> str | None:
    if named.kind == "path":
        return _path_stale(named.text, project, vault_files)
    if named.kind == "command":
        return _command_stale(named.text, project)
    if named.kind == "symbol":
        return _symbol_stale(named.text, present)
    return _pin_stale(named.text, project)


def _symbol_stale(text: str, present: frozenset[str] | None) -> str | None:
    symbol = symbol_of(text)
    if present is None or symbol is None or symbol.name in present:
        return None
    if symbol.anchor is not None and symbol.anchor not in present:
        return None  # `example.com`: its first part is nothing of this project's
    return f"`{text}`: no source file of the project defines or mentions `{symbol.name}`"


def _path_stale(rel: str, project: Project, vault_files: Project) -> str | None:
    found = [project.exists(rel), vault_files.exists(rel)]
    if True in found or found == [None, None]:
        return None
    last = rel.rsplit("/", 1)[-1]
    firm = last in ROOT_FILES or ("." in last[1:] and last.rsplit(".", 1)[1].lower() in EXTENSIONS)
    if not firm and "/" in rel and not project.exists(rel.split("/")[0]):
        return None  # `origin/main`: not a path of this project
    if "/" not in rel and last in project.file_names:  # somewhere in the project
        return None
    return f"`{rel}` no longer exists"


def _command_stale(command: str, project: Project) -> str | None:
    words = [w for w in command.split() if "=" not in w or w.startswith("-")]
    while words and words[0] in ("sudo", "env", "nohup", "time", "exec"):
        words = words[1:]
    if not words or words[0] in SHELL_WORDS or (not words[0][0].isalnum() and "/" not in words[0]):
        return None
    program, rest = words[0], words[1:]
    if "/" in program:  # a path: `has_command` looks it up inside the project
        gone = not project.has_command(program)
        return f"`{program}` (in `{command}`) no longer exists" if gone else None
    if program == "make" and rest and not rest[0].startswith("-"):
        targets = project.make_targets
        if targets is None:
            return f"`{command}`: the project has no Makefile"
        missing = [t for t in rest if not t.startswith("-") and "=" not in t and t not in targets]
        return f"`{command}`: no make target {', '.join(missing)}" if missing else None
    script = _npm_script(program, rest)
    if script is not None:
        scripts = project.npm_scripts
        if scripts is None:
            return f"`{command}`: the project has no package.json"
        return None if script in scripts else f"`{command}`: no script `{script}` in package.json"
    if program in ("uv", "poetry") and rest[:1] == ["run"] and len(rest) > 1:
        tool = rest[1]
        if tool in project.python_scripts or project.has_command(tool):
            return None
        return f"`{command}`: `{tool}` is neither a pyproject script nor installed here"
    if not project.has_command(program):
        return f"`{command}`: `{program}` is not on PATH"
    return None


def _npm_script(program: str, rest: list[str]) -> str | None:
    """The package.json script `program rest...` runs, or None when it runs no script."""
    if (program, rest[0] if rest else "") in SCRIPT_RUNNERS and len(rest) > 1:
        return rest[1]
    if program == "npm" and rest[:1] in (["test"], ["start"]):
        return rest[0]
    return None


def _pin_stale(text: str, project: Project) -> str | None:
    parts = pin_parts(text)
    if parts is None:
        return None
    name, _, version = parts
    locked = project.locked.get(normal_name(name))
    if locked is None or version in locked[0]:
        return None
    now = ", ".join(sorted(locked[0]))
    return f"`{text}`: {locked[1]} locks {name} at {now}"


@dataclass(frozen=True)
class StaleMark:
    """A card's stale mark as a review question needs it (verify/questions.py): its path
    relative to the vault, its topic, why, since when (ISO date); screened by the secret guard."""

    key: str
    text: str
    reasons: tuple[str, ...]
    since: str


@dataclass(frozen=True)
class Marking:
    """What writing the checks does: the card writes, each card's stale mark once they are
    written (by `StaleMark.key`), and the cards found fresh that keep their mark (`clears`)."""

    changes: list[Change]
    marks: dict[str, StaleMark]
    held: list[CardCheck]


def mark_cards(
    checks: Iterable[CardCheck],
    cards: Mapping[Path, CardFile],
    vault: Vault,
    today: dt.date,
    clear: str = EVERY,
) -> Marking:
    """The frontmatter writes that mark stale cards, record the commit a card's cited lines
    were checked at, and clear the marks `clear` lets go (`clears`); with each card's mark after:
    the reasons found now, else the mark it has unless cleared."""
    from cardvault.guard import redact_text

    marking = Marking([], {}, [])
    for check in checks:
        card = cards[check.path]
        before = card.card.meta.get(STALE)
        cleared = clears(check, card, clear)
        reason = SEPARATOR.join(check.reasons)
        updates: dict[str, object] = {}
        removed: list[str] = []
        whys: list[str] = []
        if check.reasons and not (isinstance(before, dict) and before.get("reason") == reason):
            updates[STALE] = {"reason": reason, "date": today}
            whys.append(f"stale ({reason})")
        elif cleared:
            removed.append(STALE)
            whys.append("no longer stale")
        elif before and not check.reasons:
            marking.held.append(check)
        if check.record is not None:
            updates[CHECKED] = dict(check.record)
            whys.append(f"lines checked at {check.record.get('commit')}")
        text = update_card_text(card.file.text, updates, removed, card.path)
        if text != card.file.text:
            why = f"{check.slug}: {', '.join(whys)}"
            marking.changes.append(WriteFile(card.path, text, card.file.digest, why, STEP, 1))
        after = check.reasons or (() if cleared else mark_reasons(before))
        if after:
            kept = mark_reasons(before) == after
            since = mark_since(before, today) if kept else today.isoformat()
            key = vault.rel(card.path)
            screened = tuple(redact_text(r) for r in after)
            marking.marks[key] = StaleMark(key, redact_text(card.card.topic), screened, since)
    return marking


def mark_since(value: Any, today: dt.date) -> str:
    """The day a `stale:` value says the card was found stale (today when it says none)."""
    date = value.get("date") if isinstance(value, dict) else None
    return date.isoformat() if isinstance(date, dt.date) else str(date or today.isoformat())
