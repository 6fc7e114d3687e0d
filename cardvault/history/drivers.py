"""What git needs to merge a vault well: `.gitattributes` lines and the merge drivers' commands.

When two clones changed the same file, git calls the driver `.gitattributes` names for it
(sync/driver.py): `cardvault-log` (daily logs, entry by entry), `cardvault-card` (frontmatter
key by key, the body three-way), `cardvault-managed` (MEMORY.md and AGENTS.md), `cardvault-hot`
(agents' hot memory), and git's `union` for the review queue. `.gitattributes` is a tracked file,
written once in its own commit by the door; the driver commands live in the clone's
`.git/config`, naming this Python and installation in isolated mode (cardvault/launch.py), since
git runs them inside a work tree whose files came from the remote. Both are checked on every
write (two small file reads) and set up when missing or different. The same lines also go into
the clone's `info/attributes`, which git reads first and never takes from a remote, so a pushed
`* merge=union` cannot take the vault's files away from the drivers.
"""

from __future__ import annotations

import re
from pathlib import Path

from cardvault.edits.atomic import atomic_write
from cardvault.errors import CardvaultError
from cardvault.history.runner import common_dir, git_dir, run_git, work_tree_of
from cardvault.launch import shell_command
from cardvault.limits import VAULT_FILE
from cardvault.vault.confine import read_file
from cardvault.vault.files import ABSENT, decode, digest_text, read_if_present

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
#: A pattern git reads as it is; any other is C-quoted (`_C_ESCAPES`).
_UNQUOTED = re.compile(r'[^\s"\x00-\x1f\x7f]+')
_C_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}
#: The subject of the commit that adds the block to a vault's `.gitattributes`.
SUBJECT = "vault: merge cardvault's files with its git merge drivers"


def driver_command(kind: str) -> str:
    """The shell command git runs for a driver (%O base, %A ours and result, %B theirs, %P the
    path, which git quotes): this cardvault's driver module in an isolated Python."""
    return shell_command("cardvault.sync.driver", kind, raw="%O %A %B %P")


def attributes_text(current: str | None) -> str | None:
    """`.gitattributes` with cardvault's current block, from the file's `current` text (None: no
    such file); None when it is there already."""
    if current is None:
        return ATTRIBUTES
    return None if _has_block(current) else _with_block(current, ATTRIBUTES, BEGIN)


def _with_block(current: str, block: str, begin: str) -> str:
    """`current` with its block from `begin` to END replaced by `block` (an older block is
    replaced where it is), else `block` appended; the rest of the file kept as it is."""
    start = current.find(begin)
    end = current.find(END, start)
    if start >= 0 and end >= 0:
        return current[:start] + block + current[end + len(END) :].lstrip("\n")
    return current + ("" if current.endswith("\n") or not current else "\n") + block


def needs_attributes(root: Path) -> bool:
    """Whether the vault at `root` is in a repository and lacks cardvault's block."""
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


def info_block(root: Path, top: Path) -> str:
    """cardvault's lines for the clone's `info/attributes`: the block's patterns, below the
    vault's folder in the work tree `top`."""
    folder = root.resolve().relative_to(top.resolve()).as_posix()
    prefix = "" if folder == "." else f"{folder}/"
    lines = ATTRIBUTES.splitlines()[1:-1]
    body = "\n".join(_pattern(prefix, line) for line in lines)
    return f"{BEGIN} for /{prefix} (set up by cardvault)\n{body}\n{END}\n"


def _pattern(prefix: str, line: str) -> str:
    """`line` (PATTERN ATTRIBUTE) with its pattern below `prefix`: the prefix's glob characters
    escaped, the whole C-quoted when it holds a space, a quote or a control character."""
    pattern, attribute = line.split(" ")
    whole = re.sub(r"([*?\[\]\\])", r"\\\1", prefix) + pattern
    if _UNQUOTED.fullmatch(whole):
        return f"{whole} {attribute}"
    quoted = "".join(_C_ESCAPES.get(char, char) for char in whole)
    return f'"{quoted}" {attribute}'


def _info_text(root: Path) -> tuple[Path, str, str] | None:
    """The clone's `info/attributes`: its path, its text ("" when absent) and that text with
    cardvault's block for the vault at `root` as this version writes it; None outside git."""
    top, folder = work_tree_of(root), git_dir(root)
    if top is None or folder is None:
        return None
    path = common_dir(folder) / "info" / "attributes"  # a linked work tree's is the main one's
    try:  # the clone's own file, never from a remote: a link opens as git opens it
        read = read_file(path, VAULT_FILE, named=True)
        current = decode(read.data, path, read.info.st_size)  # bounded as a vault file is
    except FileNotFoundError:
        current = ""
    except OSError as exc:
        raise CardvaultError(f"cannot read git's attributes file: {exc.strerror}", path) from exc
    block = info_block(root, top)
    return path, current, _with_block(current, block, block.splitlines()[0] + "\n")


def drivers_configured(root: Path) -> bool:
    """Whether the clone's config names each driver with exactly this cardvault's command and
    its `info/attributes` gives the vault's files to them (read from the files, the config's
    first VAULT_FILE bytes, no git started: git keeps a value without quotes or backslashes
    verbatim)."""
    folder = git_dir(root)
    if folder is None:
        return True  # not a repository: nothing to configure
    try:
        config = read_file(folder / "config", VAULT_FILE, named=True).data.decode(errors="replace")
    except OSError:
        return False
    info = _info_text(root)
    return (info is None or info[1] == info[2]) and all(
        f'[merge "{name}"]' in config and driver_command(kind) in config
        for name, (kind, _) in DRIVERS.items()
    )


def configure_drivers(root: Path) -> bool:
    """Write the drivers into the clone's git config when missing; True when it changed."""
    top = work_tree_of(root)
    if top is None or drivers_configured(root):
        return False
    for name, (kind, label) in DRIVERS.items():
        run_git(top, "config", f"merge.{name}.name", label)
        run_git(top, "config", f"merge.{name}.driver", driver_command(kind))
    info = _info_text(root)
    if info is not None and info[1] != info[2]:
        path, current, wanted = info
        atomic_write(path, wanted, digest_text(current) if path.exists() else ABSENT)
    return True
