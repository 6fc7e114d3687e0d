"""`cardvault init`: a ready vault from the bundled templates, a git repo and a first commit.

Only what is missing is written: files the folder has are kept, and notes already there are
counted and their kind told (portable/kinds.py) so the command can offer to import them; init
never imports a note. `plan_init` makes the folder and repository and plans the files; the app
lands the plan in one commit (app/writes.py `init_vault`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from cardvault import history
from cardvault.edits.changes import Change, WriteFile
from cardvault.edits.derived import attributes_change
from cardvault.edits.proposal import Planned, Proposal, Written, propose
from cardvault.errors import CardvaultError
from cardvault.vault.config import CONFIG_FILE
from cardvault.vault.files import ABSENT, read_if_present
from cardvault.vault.layout import Vault, open_vault_at

if TYPE_CHECKING:
    from cardvault.portable.kinds import Survey

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
    found: Survey | None = None  # the Markdown the folder held before init


def plan_init(root: Path) -> Planned[tuple[list[str], list[str]], InitResult]:
    """Make the folder `root` (created if missing) a git repository with cardvault's merge
    drivers, and plan the vault's files in it; refuse if it already is a vault."""
    from cardvault.portable.kinds import survey

    root = root.resolve()
    if (root / CONFIG_FILE).exists():
        raise CardvaultError(f"already a vault ({CONFIG_FILE} exists)", root)
    found = survey(root, root) if root.is_dir() else None  # what `import .` would then take
    root.mkdir(parents=True, exist_ok=True)
    notes = []
    if not history.is_repo(root):
        history.init_repo(root)
        notes.append("initialised a git repository")
    vault = Vault(root)  # the default settings, until cardvault.toml is written
    history.configure_drivers(root)

    def plan() -> Proposal[tuple[list[str], list[str]]]:
        changes, written, kept = _template_changes(root)
        extra = [c for c in (_ignore_change(root), attributes_change(vault)) if c is not None]
        changes += extra
        written += [vault.rel(c.path) for c in extra]
        return propose(changes, "vault: init", (written, kept))

    def result(done: Written[tuple[list[str], list[str]]]) -> InitResult:
        written, kept = done.value
        commit = done.commit or history.CommitResult(None, "vault: init", "nothing to commit")
        return InitResult(open_vault_at(root), written, kept, commit, notes, found)

    return Planned(plan, result)


def _template_changes(root: Path) -> tuple[list[Change], list[str], list[str]]:
    """New files from the templates for what the folder lacks; the names written and kept."""
    templates = resources.files("cardvault.templates")
    changes: list[Change] = []
    written, kept = [], []
    for source, target in TEMPLATE_FILES.items():
        if (root / target).exists():
            kept.append(target)
            continue
        text = templates.joinpath(source).read_text(encoding="utf-8")
        changes.append(WriteFile(root / target, text, ABSENT, f"added {target}", "init"))
        written.append(target)
    return changes, written, kept


def _ignore_change(root: Path) -> WriteFile | None:
    """`.gitignore` with `.cardvault/` in it (None when it is already ignored)."""
    path = root / ".gitignore"
    current = read_if_present(path, root)
    if current is None:
        template = resources.files("cardvault.templates").joinpath("gitignore")
        return WriteFile(path, template.read_text(encoding="utf-8"), ABSENT, "ignore cache", "init")
    if any(
        line.strip() in (IGNORE_LINE, "/.cardvault/", ".cardvault")
        for line in current.text.splitlines()
    ):
        return None
    sep = "" if current.text.endswith("\n") or not current.text else "\n"
    text = current.text + sep + IGNORE_LINE + "\n"
    return WriteFile(path, text, current.digest, "ignore .cardvault/", "init")
