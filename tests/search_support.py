"""Helpers shared by the search tests. The indexed fixture vault is built once per run by the
session fixture `search_vault_template` (tests/conftest.py); each test copies it."""

from __future__ import annotations

import shutil
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "search-vault"


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
