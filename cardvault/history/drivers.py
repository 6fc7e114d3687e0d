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
`.gitattributes` is a tracked file of the vault (written once, in its own commit, by the write
door: `attributes_text` says what it should hold); the driver commands live in the clone's
`.git/config` (never shared by git), written there by `git config` through GitPython, and name
the Python and the cardvault installation that run here, in isolated mode
(`cardvault/launch.py`): git runs them inside the work tree, whose files come from the remote,
so nothing may be imported from there. Both are checked on every write (two small file reads,
no git and no library) and set up when missing or different (a clone set up by an older
cardvault is rewritten).
"""

from __future__ import annotations

from pathlib import Path

from cardvault.errors import CardvaultError
from cardvault.history.runner import git_dir, work_tree_of
from cardvault.launch import shell_command
from cardvault.vault.files import read_if_present

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
#: The subject of the commit that adds the block to a vault's `.gitattributes`.
SUBJECT = "vault: merge cardvault's files with its git merge drivers"


def driver_command(kind: str) -> str:
    """The shell command git runs for a driver (%O base, %A ours and result, %B theirs, %P the
    path, which git quotes): this cardvault's driver module in an isolated Python."""
    return shell_command("cardvault.sync.driver", kind, raw="%O %A %B %P")


def attributes_text(current: str | None) -> str | None:
    """`.gitattributes` with cardvault's block as this version writes it, from the file's
    `current` text (None: no such file); None when it is there already. The rest of the file
    is kept as it is; an older block is replaced where it is."""
    if current is None:
        return ATTRIBUTES
    if _has_block(current):
        return None
    start = current.find(BEGIN)
    end = current.find(END, start)
    if start >= 0 and end >= 0:
        return current[:start] + ATTRIBUTES + current[end + len(END) :].lstrip("\n")
    sep = "" if current.endswith("\n") or not current else "\n"
    return current + sep + ATTRIBUTES


def needs_attributes(root: Path) -> bool:
    """Whether the vault at `root` is in a repository and lacks cardvault's `.gitattributes`
    block."""
    if work_tree_of(root) is None:
        return False
    try:
        found = read_if_present(root / ".gitattributes", root)
    except (OSError, CardvaultError):
        return True  # the door's attributes change says what is wrong with it
    return found is None or not _has_block(found.text)


def _has_block(text: str) -> bool:
    """Whether `text` holds the block as this version writes it, whatever its line ends (a
    clone with `core.autocrlf=true` checks it out with CRLF; git stores it with LF)."""
    return ATTRIBUTES in text.replace("\r\n", "\n")


def drivers_configured(root: Path) -> bool:
    """Whether the clone's git config names each driver with exactly this cardvault's command
    (read from the file, no git started; git keeps a value without quotes or backslashes
    verbatim, so the command appears as it is)."""
    folder = git_dir(root)
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


def configure_drivers(root: Path) -> bool:
    """Write the drivers into the clone's git config when missing (`git config`, through
    GitPython's Git); True when it changed."""
    if work_tree_of(root) is None or drivers_configured(root):
        return False
    from cardvault.history.repo import open_repo, run

    repo = open_repo(root)
    assert repo is not None
    for name, (kind, label) in DRIVERS.items():
        run(repo, "config", f"merge.{name}.name", label)
        run(repo, "config", f"merge.{name}.driver", driver_command(kind))
    return True
