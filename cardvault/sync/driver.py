"""The git merge driver: `python -m cardvault.sync.driver KIND BASE OURS THEIRS PATH`.

git runs it (history/drivers.py registers it) for a file `.gitattributes` gives to a cardvault
driver (KIND `log`, `card`, `managed` or `hot`; `%O %A %B %P`) and writes the merged text to
OURS; the exit status is 0 for a clean merge, 1 for conflict markers. Anything unexpected falls
back to a plain three-way merge, so a driver problem never loses a side; so does a file not of
the driver's kind (a committed `.gitattributes` may name any file: docs/security.md) and one
over the size a vault file may hold (never three copies of a huge blob parsed in Python).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

from cardvault.errors import CardvaultError
from cardvault.limits import VAULT_FILE
from cardvault.sync.merge_card import merge_card
from cardvault.sync.merge_lines import merge_lines
from cardvault.sync.merge_log import merge_log
from cardvault.sync.merge_managed import merge_managed
from cardvault.sync.merge_text import Merged, merge3
from cardvault.vault.confine import read_file

_LOG_NAME = re.compile(r"\d{4}-\d{2}-\d{2}\.md")
MERGERS: dict[str, Callable[[str, str, str, Path], Merged]] = {
    "log": merge_log,
    "card": merge_card,
    "managed": merge_managed,
    "hot": merge_lines,
}


def is_of_kind(kind: str, path: Path) -> bool:
    """Whether `path` (the repository's `%P`) is a file the `kind` driver was written for, as
    edits/gitsetup.py's `.gitattributes` lines give them: a committed `.gitattributes` may give
    any file to a driver (`src/*.py merge=cardvault-hot` would move and union code lines)."""
    parts, name = path.parts, path.name
    pairs = list(pairwise(parts))
    if kind == "log":
        return parts[-2:-1] == ("memory",) and _LOG_NAME.fullmatch(name) is not None
    if kind == "card":
        return name.endswith(".md") and any(
            a == "memory" and b in ("cards", "archive") for a, b in pairs[:-1]
        )
    if kind == "hot":
        return parts[-3:-1] == ("memory", "agents") and name.endswith(".md")
    return kind == "managed" and name in ("MEMORY.md", "AGENTS.md")


def merge_file(kind: str, base: str, ours: str, theirs: str, path: Path) -> Merged:
    """Merge with the driver for `kind`; a plain three-way merge for a file not of that kind,
    and on any failure of the driver."""
    merger = MERGERS.get(kind)
    if merger is None or not is_of_kind(kind, path):
        return merge3(base, ours, theirs)
    try:
        return merger(base, ours, theirs, path)
    except Exception:  # a driver bug must not lose a side: fall back to git's line merge
        return merge3(base, ours, theirs)


def main(argv: list[str]) -> int:
    """Run as git's merge driver; the exit status git reads (0 clean, 1 conflicts)."""
    if len(argv) != 5:
        sys.stderr.write("usage: python -m cardvault.sync.driver KIND BASE OURS THEIRS PATH\n")
        return 2
    kind, base_file, ours_file, theirs_file, path = argv
    try:
        texts = [read_file(name, VAULT_FILE).data for name in argv[1:4]]
        if any(len(text) > VAULT_FILE for text in texts):
            return _git_fallback(base_file, ours_file, theirs_file)  # no vault file is this big
        base, ours, theirs = (text.decode("utf-8") for text in texts)
    except (OSError, CardvaultError, UnicodeDecodeError):
        return _git_fallback(base_file, ours_file, theirs_file)
    merged = merge_file(kind, base, ours, theirs, Path(path))
    Path(ours_file).write_bytes(merged.text.encode("utf-8"))
    return 1 if merged.conflicts else 0


def _git_fallback(base_file: str, ours_file: str, theirs_file: str) -> int:
    """git's own merge of files that are not UTF-8 text, in place."""
    from cardvault.history import merge_files_in_place

    return 0 if merge_files_in_place(ours_file, base_file, theirs_file) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
