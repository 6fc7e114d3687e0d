"""What `cardvault install` added to each host file, remembered so `--uninstall` gives the file
back exactly as it was: whether it made the file (and its folders), the containers it added,
and the text it put before a TOML table.

Kept in the user's state folder (platformdirs), outside every vault and project: it describes
this machine's files. Without a record (a teammate's clone, a lost state folder) uninstall
still removes exactly cardvault's entries and the hook lists they leave empty.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cardvault.edits.atomic import atomic_write
from cardvault.vault.files import current_digest

STATE_NAME = "installs.json"


@dataclass(frozen=True)
class FileRecord:
    """What install added to one file."""

    created_file: bool = False
    created: tuple[tuple[str, ...], ...] = ()  # JSON paths of the containers it added
    separator: str | None = None  # TOML: what it put before its table
    created_dirs: tuple[str, ...] = ()  # folders it made for the file, outermost first
    blank: str | None = None  # the file was only whitespace (an editor's new file): this

    @classmethod
    def from_json(cls, data: Any) -> FileRecord | None:
        """The record in `data`, or None when it is not one (a damaged state file)."""
        if not isinstance(data, dict):
            return None
        created = data.get("created", [])
        dirs = data.get("created_dirs", [])
        separator = data.get("separator")
        blank = data.get("blank")
        if not (isinstance(created, list) and all(isinstance(p, list) for p in created)):
            return None
        if not (isinstance(dirs, list) and all(isinstance(d, str) for d in dirs)):
            return None
        return cls(
            created_file=data.get("created_file") is True,
            created=tuple(tuple(str(step) for step in path) for path in created),
            separator=separator if isinstance(separator, str) else None,
            created_dirs=tuple(dirs),
            blank=blank if isinstance(blank, str) and not blank.strip() else None,
        )


def state_path() -> Path:
    """Where the records are kept."""
    from platformdirs import user_state_dir

    return Path(user_state_dir("cardvault", appauthor=False)) / STATE_NAME


def read_records() -> dict[str, FileRecord]:
    """Every file's record by absolute path; empty when there are none or the file is damaged
    (uninstall then works without them)."""
    try:
        data = json.loads(state_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return {}
    records = {}
    for path, raw in files.items():
        record = FileRecord.from_json(raw)
        if record is not None:
            records[path] = record
    return records


def write_records(records: dict[str, FileRecord]) -> None:
    """Replace the records (atomically); the file goes when none are left, and cardvault's
    state folder with it when nothing else is in it."""
    path = state_path()
    if not records:
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # not empty, or gone already
            path.parent.rmdir()
        return
    data = {"version": 1, "files": {k: asdict(v) for k, v in sorted(records.items())}}
    atomic_write(path, json.dumps(data, indent=2) + "\n", current_digest(path), mode=0o600)
