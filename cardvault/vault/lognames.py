"""Which files are daily logs: the one rule, for the vault's own walk and for `import`.

A daily log is named by its day, alone or beside a suffix or prefix (`2026-03-19.md`,
`2026-03-19_AUDIT.md`, `systems_synthesis_20260203.md`, `20260203.md`); a name so shaped whose
day is no real date (`2026-02-30.md`) is still a log, so that `check` names it. Logs sit directly
in `memory/` or anywhere under `memory/archive/`, where a dated file that starts with
frontmatter is an archived card (`memory/archive/2026-05-21-release.md`).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from cardvault.errors import CardvaultError
from cardvault.vault.confine import read_file

_DAY = r"\d{4}-\d{2}-\d{2}|\d{8}"
#: The day first (alone or before a suffix), else last (after a prefix); `-`, `_`, ` ` or `.`
#: between the day and the rest.
_LOG_NAME = re.compile(
    rf"^(?:(?P<head>{_DAY})(?:[-_ .][^/]*)?|[^/]*[-_ .](?P<tail>{_DAY}))\.md$", re.IGNORECASE
)
#: The folder (under `memory/`) whose dated files are old logs, and which holds archived cards.
ARCHIVE = "archive"
FRONTMATTER = "---"


def log_day(name: str) -> dt.date | None:
    """The day a file named `name` is the log of; None when the name is no log's or its day
    is no real date."""
    found = _LOG_NAME.match(name)
    if found is None:
        return None
    day = found.group("head") or found.group("tail")
    try:
        return dt.date.fromisoformat(day if "-" in day else f"{day[:4]}-{day[4:6]}-{day[6:]}")
    except ValueError:
        return None


def is_log_path(rel: str, head: str = "") -> bool:
    """Whether the file at `rel` (relative to the vault's or the workspace's root, with forward
    slashes) is a daily log; `head` is the start of its text (a file under memory/archive/
    that opens with frontmatter is an archived card)."""
    parts = rel.split("/")
    if len(parts) < 2 or parts[0] != "memory" or not _LOG_NAME.match(parts[-1]):
        return False
    if any(not part or part.startswith(".") for part in parts):
        return False  # `..`, an empty or a hidden part: never a path into the vault's logs
    if len(parts) == 2:
        return True
    return parts[1] == ARCHIVE and not starts_with_frontmatter(head)


def is_log_file(rel: str, path: str) -> bool:
    """`is_log_path` for the file at `path` (at `rel`): its first bytes are read only where
    they decide (a dated file under memory/archive/)."""
    if not is_log_path(rel):
        return False
    return rel.count("/") == 1 or is_log_path(rel, head_of(path))


def log_citation(path: Path) -> str:
    """How citations name the log at `path`: its place under the vault's memory/ folder
    (`memory/2026-03-19.md`, `memory/archive/2026-01-10.md`); `memory/<name>` for a file outside
    any memory/ folder."""
    for folder in path.parents:
        if folder.name == "memory":
            return "memory/" + path.relative_to(folder).as_posix()
    return f"memory/{path.name}"


def head_of(path: str) -> str:
    """The first bytes of the file at `path`, enough for `starts_with_frontmatter` ("" when it
    cannot be opened; a symlink is not followed, a FIFO not waited on)."""
    try:
        return read_file(path, 7).data.decode("utf-8", "replace")
    except (OSError, CardvaultError):
        return ""


def starts_with_frontmatter(head: str) -> bool:
    """Whether text starting with `head` opens with a `---` frontmatter line."""
    first = head.removeprefix("\ufeff").partition("\n")[0]
    return first.rstrip() == FRONTMATTER
