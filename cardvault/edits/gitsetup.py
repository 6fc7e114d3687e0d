"""What git needs to merge a vault well: `.gitattributes` lines and the merge drivers' commands.

Teammates share a vault through a git remote; when two clones changed the same file, git calls
the merge driver `.gitattributes` names for it (the drivers live in `cardvault/sync/`):
- `cardvault-log` for daily logs: entry by entry, both sides' entries kept once, in time order;
- `cardvault-card` for cards: frontmatter key by key, the body three-way;
- `cardvault-managed` for MEMORY.md and AGENTS.md: managed sections merged as sets of lines, the
  hand-written rest three-way;
- `cardvault-hot` for agents' hot memory: fragment by fragment, in time order;
- git's own `union` for the review queue (`memory/review.jsonl`): both sides' lines kept, and
  reading it prefers an answered line to a pending one (vault/decisions.py).
`.gitattributes` is a tracked file of the vault (written once, in its own commit); the driver
commands live in the clone's `.git/config` (never shared by git), written there by `git config`,
and name the Python and the cardvault installation that run here, in isolated mode
(`cardvault/launch.py`): git runs them inside the work tree, whose files come from the remote,
so nothing may be imported from there. Both are checked on every write (two small file reads)
and set up when missing or different (a clone set up by an older cardvault is rewritten).
"""

from __future__ import annotations

from cardvault import history
from cardvault.edits.changes import WriteFile
from cardvault.errors import CardvaultError
from cardvault.launch import shell_command
from cardvault.vault.files import ABSENT, read_if_present
from cardvault.vault.layout import Vault

BEGIN = "# cardvault:begin merge drivers"
END = "# cardvault:end merge drivers"
ATTRIBUTES = f"""{BEGIN} (docs/writers.md; set up by cardvault)
memory/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md merge=cardvault-log
memory/cards/**/*.md merge=cardvault-card
memory/archive/**/*.md merge=cardvault-card
memory/agents/*.md merge=cardvault-hot
MEMORY.md merge=cardvault-managed
AGENTS.md merge=cardvault-managed
memory/review.jsonl merge=union
{END}
"""
DRIVERS = {
    "cardvault-log": ("log", "cardvault: daily logs, entry by entry"),
    "cardvault-card": ("card", "cardvault: cards, frontmatter key by key, body three-way"),
    "cardvault-managed": ("managed", "cardvault: MEMORY.md / AGENTS.md managed sections"),
    "cardvault-hot": ("hot", "cardvault: agents' hot memory, fragment by fragment"),
}
SUBJECT = "vault: merge cardvault's files with its git merge drivers"


def driver_command(kind: str) -> str:
    """The shell command git runs for a driver (%O base, %A ours and result, %B theirs, %P the
    path, which git quotes): this cardvault's driver module in an isolated Python."""
    return shell_command("cardvault.sync.driver", kind, raw="%O %A %B %P")


def attributes_change(vault: Vault) -> WriteFile | None:
    """The change that puts cardvault's block, as this version writes it, into the vault's
    `.gitattributes` (None: it is there). The rest of the file is left as it is."""
    path = vault.root / ".gitattributes"
    current = read_if_present(path, vault.root)
    if current is None:
        return WriteFile(path, ATTRIBUTES, ABSENT, "added .gitattributes (merge drivers)", "git")
    if ATTRIBUTES in current.text:
        return None
    start = current.text.find(BEGIN)
    end = current.text.find(END, start)
    if start >= 0 and end >= 0:  # an older block: replaced where it is
        text = current.text[:start] + ATTRIBUTES + current.text[end + len(END) :].lstrip("\n")
    else:
        sep = "" if current.text.endswith("\n") or not current.text else "\n"
        text = current.text + sep + ATTRIBUTES
    return WriteFile(path, text, current.digest, "merge drivers in .gitattributes", "git")


def drivers_configured(vault: Vault) -> bool:
    """Whether the clone's git config names each driver with exactly this cardvault's command
    (read from the file, no git started; git keeps a value without quotes or backslashes
    verbatim, so the command appears as it is)."""
    folder = history.git_dir(vault.root)
    if folder is None:
        return True  # not a repository: nothing to configure
    try:
        config = (folder / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return all(
        f'[merge "{name}"]' in config and driver_command(kind) in config
        for name, (kind, _) in DRIVERS.items()
    )


def configure_drivers(vault: Vault) -> bool:
    """Write the drivers into the clone's git config when missing; True when it changed."""
    top = history.work_tree_of(vault.root)
    if top is None or drivers_configured(vault):
        return False
    for name, (kind, label) in DRIVERS.items():
        history.run_git(top, "config", f"merge.{name}.name", label)
        history.run_git(top, "config", f"merge.{name}.driver", driver_command(kind))
    return True


def needs_attributes(vault: Vault) -> bool:
    """Whether the vault's repository lacks cardvault's `.gitattributes` block."""
    if history.work_tree_of(vault.root) is None:
        return False
    try:
        found = read_if_present(vault.root / ".gitattributes", vault.root)
    except (OSError, CardvaultError):
        return True  # attributes_change says what is wrong with it
    return found is None or ATTRIBUTES not in found.text
