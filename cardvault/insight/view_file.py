"""Where `cardvault view` writes its page, and the writing.

The page is derived data: refused inside the vault's `memory/` (it would be committed) and
`.git/`; by default in the vault's cache folder. The write is atomic, and an existing file is
replaced only when it is a page this command wrote, so a mistyped `--out ~/.bashrc` costs
nothing.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from cardvault.errors import CardvaultError
from cardvault.insight.view import vault_view
from cardvault.insight.view_html import GENERATOR, render_page
from cardvault.vault.confine import read_file
from cardvault.vault.files import ABSENT, current_digest
from cardvault.vault.layout import Vault

DEFAULT_NAME = "view.html"
#: How much of an existing file is read to tell whether it is an earlier page.
MARKER_WINDOW = 4096


@dataclass(frozen=True)
class ViewWritten:
    """Where the page went, its size, and what it shows."""

    path: Path
    bytes: int
    cards: int
    archived: int
    links: int
    review_pending: int
    problems: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "path": str(self.path), "problems": list(self.problems)}


def write_view(
    vault: Vault, today: dt.date, out: Path | None = None, temporary: bool = False
) -> ViewWritten:
    """Build the page of `vault` and write it (see `Session.view`)."""
    from cardvault.edits.atomic import atomic_write

    view = vault_view(vault, today)
    text = render_page(view)
    if temporary:
        path = _temporary_file(text)
    else:
        path = destination(vault, out)
        atomic_write(path, text, _replaceable(path))
    summary = view.summary()
    return ViewWritten(
        path=path,
        bytes=len(text.encode("utf-8")),
        cards=int(summary["cards"]),
        archived=int(summary["archived"]),
        links=int(summary["links"]),
        review_pending=int(summary["review_pending"]),
        problems=view.problems,
    )


def destination(vault: Vault, out: Path | None) -> Path:
    """The file to write: `out` (made absolute), or the cache folder's view.html. Raises
    CardvaultError for a place inside the vault's memory/ or .git/, or a folder."""
    if out is None:
        return vault.cache_dir / DEFAULT_NAME
    path = Path(os.path.abspath(out.expanduser()))
    real = path.resolve()
    for inside in (vault.memory_dir, vault.root / ".git"):
        if real.is_relative_to(inside.resolve()):
            raise CardvaultError(
                f"not writing the page inside the vault's {inside.name}/ (it is not vault "
                "data); choose a file outside it",
                path,
            )
    if path.is_dir():
        raise CardvaultError("is a folder; give a file name for the page", path)
    return path


def _replaceable(path: Path) -> str:
    """The digest `atomic_write` may replace: ABSENT for a new file, the file's own digest when
    it is an earlier page; raises CardvaultError for any other existing file."""
    if not os.path.lexists(path):
        return ABSENT
    head = read_file(path, MARKER_WINDOW, named=True).data  # bounded: /dev/zero is no page
    if f'<meta name="generator" content="{GENERATOR}">'.encode() not in head:
        raise CardvaultError(
            "exists and is not a page `cardvault view` wrote; not overwriting it "
            "(remove it or choose another file)",
            path,
        )
    return current_digest(path)


def _temporary_file(text: str) -> Path:
    handle, name = tempfile.mkstemp(prefix="cardvault-view-", suffix=".html")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(text)
    return Path(name)
