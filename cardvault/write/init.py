"""`cardvault init`: a ready vault from the bundled templates, a git repo and a first commit.

Files the folder already has (an existing MEMORY.md or AGENTS.md, say) are kept as they are;
only what is missing is written, and `.cardvault/` is added to `.gitignore`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from cardvault import history
from cardvault.edits.atomic import atomic_write
from cardvault.errors import CardvaultError
from cardvault.vault.config import CONFIG_FILE
from cardvault.vault.files import ABSENT, read_text
from cardvault.vault.layout import Vault, open_vault_at

# template file -> path in the vault
TEMPLATE_FILES = {
    "cardvault.toml": CONFIG_FILE,
    "MEMORY.md": "MEMORY.md",
    "AGENTS.md": "AGENTS.md",
    "memory/cards/.gitkeep": "memory/cards/.gitkeep",
    "memory/archive/.gitkeep": "memory/archive/.gitkeep",
}
IGNORE_LINE = ".cardvault/"


@dataclass(frozen=True)
class InitResult:
    """The new vault, what was written, what was kept, and the first commit."""

    vault: Vault
    written: list[str]
    kept: list[str]
    commit: history.CommitResult
    notes: list[str] = field(default_factory=list)


def init_vault(root: Path) -> InitResult:
    """Create a vault at `root` (created if missing); refuse if it already is one."""
    root = root.resolve()
    if (root / CONFIG_FILE).exists():
        raise CardvaultError(f"already a vault ({CONFIG_FILE} exists)", root)
    root.mkdir(parents=True, exist_ok=True)
    templates = resources.files("cardvault.templates")
    written, kept = [], []
    for source, target in TEMPLATE_FILES.items():
        dest = root / target
        if dest.exists():
            kept.append(target)
            continue
        text = templates.joinpath(source).read_text(encoding="utf-8")
        atomic_write(dest, text, ABSENT)
        written.append(target)
    written += _ensure_ignored(root, templates.joinpath("gitignore").read_text(encoding="utf-8"))
    notes = []
    if not history.is_repo(root):
        history.init_repo(root)
        notes.append("initialised a git repository")
    vault = open_vault_at(root)
    paths = [root / p for p in written]
    result = history.commit(vault, "vault: init", paths)
    return InitResult(vault, written, kept, result, notes)


def _ensure_ignored(root: Path, template: str) -> list[str]:
    path = root / ".gitignore"
    if not path.exists():
        atomic_write(path, template, ABSENT)
        return [".gitignore"]
    current = read_text(path)
    if any(
        line.strip() in (IGNORE_LINE, "/.cardvault/", ".cardvault")
        for line in current.text.splitlines()
    ):
        return []
    sep = "" if current.text.endswith("\n") or not current.text else "\n"
    atomic_write(path, current.text + sep + IGNORE_LINE + "\n", current.digest)
    return [".gitignore"]
