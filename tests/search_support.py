"""Helpers shared by the search tests: one model cache and one indexed fixture vault per run.

Exporting the ONNX model and embedding the fixture vault take seconds, so both happen once per
test process (cached here) and every test gets a copy of the indexed vault in its own tmp_path.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "search-vault"


@functools.cache
def indexed_template() -> Path:
    """The fixture vault, indexed with the real model once (set CARDVAULT_CACHE first)."""
    from cardvault import open_vault

    root = Path(tempfile.mkdtemp(prefix="cardvault-search-vault-")) / "vault"
    shutil.copytree(FIXTURE, root)
    with open_vault(root) as handle:
        handle.index()
    return root


def copy_vault(source: Path, target: Path) -> Path:
    """A copy of a vault (with its .cardvault index) at `target`; mtimes are kept."""
    shutil.copytree(source, target)
    return target


def write_card(root: Path, slug: str, topic: str, body: str, category: str = "tools") -> Path:
    """Write a valid card `memory/cards/<slug>.md`."""
    path = root / "memory" / "cards" / f"{slug}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\ntopic: {topic}\ncategory: {category}\ntags: [test]\n"
        f"created: 2026-03-19\nupdated: 2026-03-19\n---\n{body}\n",
        encoding="utf-8",
    )
    return path
