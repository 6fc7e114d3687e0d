"""What `forget` removed, kept so that it stays removed on every clone: `memory/forgotten/`.

A clone that has not synced may meanwhile have distilled a forgotten entry into a card, and the
merge brings its text back. So a forget records the removed entries' citations by id (never
their text) in a file of its own, `memory/forgotten/<day>-<id>.txt`, one a line: two clones'
forgets never write the same file, and `git revert` of the forget removes it with the rest.
forget/tombstone.py removes again whatever a merge or an import brings back."""

from __future__ import annotations

import datetime as dt
import re
import secrets
from collections.abc import Iterable
from pathlib import Path

from cardvault.errors import CardFormatError
from cardvault.vault.confine import is_real_folder
from cardvault.vault.files import FileText, read_if_present

FOLDER = "memory/forgotten"
#: The one citation form a forget records: by id (a position like `#14:30` names another entry
#: once the one it named is gone, so it is never recorded).
_REF = re.compile(r"memory/(?:archive/(?:[^#\s/]+/)*)?[^#\s/]+\.md#[0-9a-f]{6,16}")
_HEADER = (
    "# cardvault forget: the log entries it removed (their ids, not their text). sync keeps\n"
    "# them removed on every clone, with the cards made only of them: docs/insight.md.\n"
)


def recordable(refs: Iterable[str]) -> list[str]:
    """Those of `refs` that are citations by id, sorted, once each."""
    return sorted({ref for ref in refs if _REF.fullmatch(ref)})


def record_files(root: Path) -> list[Path]:
    """The vault's forget records, sorted (none when memory/forgotten is no real folder: a
    symlink is never followed; `check` names it)."""
    folder = root / FOLDER
    if not is_real_folder(folder):
        return []
    return sorted(folder.glob("*.txt"))


def forgotten_refs(root: Path) -> frozenset[str]:
    """Every entry citation the vault's forgets recorded; a record that cannot be read, or a
    line of one that is no citation, stops the read with its `path:line` (a record half read
    would let forgotten text come back). `check` names the same problems (`record_refs`)."""
    found: set[str] = set()
    for path in record_files(root):
        text = read_if_present(path, root)
        if text is not None:
            found |= record_refs(text)
    return frozenset(found)


def record_refs(record: FileText) -> set[str]:
    """The citations of one record; CardFormatError at the first line that is no citation."""
    found: set[str] = set()
    for number, line in enumerate(record.text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if not _REF.fullmatch(line):
            raise CardFormatError(
                "not a forgotten entry's citation (memory/YYYY-MM-DD.md#id)", record.path, number
            )
        found.add(line)
    return found


def record_path(root: Path, day: dt.date) -> Path:
    """A new record's path: the forget's day and a random id no record has."""
    while True:
        path = root / FOLDER / f"{day.isoformat()}-{secrets.token_hex(3)}.txt"
        if not path.exists():
            return path


def record_text(refs: Iterable[str]) -> str:
    """A record's text: the header, then one citation a line."""
    return _HEADER + "".join(f"{ref}\n" for ref in recordable(refs))
