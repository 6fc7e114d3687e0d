"""The approvals `cardvault trust` records: which vault may run which exact value of a setting.

They live in `trusted.json` in the user's configuration folder, never in a repository: a remote
cannot supply one. An approval names the vault by its resolved root and its clone's `origin`
URL (from the clone's own git config, which no remote supplies) and the SHA-256 of the value,
so another repository in the same folder or a changed command is asked about again. A file
that cannot be read trusts nothing and is never overwritten: damage never widens what runs.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from cardvault.errors import CardvaultError
from cardvault.trust.user import ENV_VAR, config_dir, inside

STORE_NAME = "trusted.json"
VERSION = 1
_ORIGIN = re.compile(r'^\s*\[\s*remote\s+"origin"\s*\]\s*$')
_SECTION = re.compile(r"^\s*\[")
_URL = re.compile(r"^\s*url\s*=\s*(.*?)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Approval:
    """One approval: this vault may run this value of this setting."""

    root: str
    repository: str
    setting: str
    digest: str
    value: str
    approved: str  # ISO date and time


def store_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the approvals are kept."""
    return config_dir(env) / STORE_NAME


def value_digest(value: str) -> str:
    """The SHA-256 an approval keeps of a setting's exact value."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def vault_identity(root: Path) -> tuple[str, str]:
    """(the resolved root, the clone's origin URL or "") that approvals are keyed by."""
    resolved = Path(os.path.realpath(root))
    return str(resolved), repository_of(resolved)


def repository_of(root: Path) -> str:
    """The identity of the repository holding `root`: `origin`'s URL from the clone's own git
    config (or the `.git` file's target, for a worktree), "" outside a repository. Read from
    the files, without git; anything unexpected gives a value no approval matches."""
    for folder in (root, *root.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_dir():
                return "origin:" + _origin_url(dot_git / "config")
            if dot_git.is_file():
                return "gitfile:" + dot_git.read_text(encoding="utf-8", errors="replace")[:4096]
        except OSError:
            return "unreadable"
    return ""


def _origin_url(config: Path) -> str:
    try:
        lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "?"
    in_origin = False
    for line in lines:
        if _SECTION.match(line):
            in_origin = bool(_ORIGIN.match(line))
        elif in_origin and (found := _URL.match(line)):
            return found.group(1)
    return ""


def read_approvals(env: Mapping[str, str] | None = None, strict: bool = False) -> list[Approval]:
    """Every recorded approval. A missing file holds none; an unreadable one holds none too
    (nothing is trusted), or raises CardvaultError naming it with `strict`."""
    path = store_path(env)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != VERSION:
            raise ValueError(f"version {data.get('version')!r}, not {VERSION}")
        return [_approval(item) for item in data["approvals"]]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        if strict:
            raise CardvaultError(
                f"your trust records cannot be read ({exc}); fix or remove the file", path
            ) from exc
        return []


def _approval(item: Mapping[str, object]) -> Approval:
    return Approval(**{name: str(item[name]) for name in Approval.__dataclass_fields__})


def is_approved(root: Path, setting: str, value: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether the vault at `root` may run `value` for `setting`."""
    path = store_path(env)
    if inside(path, root):
        return False  # a store inside the vault could come from its remote
    where, repository = vault_identity(root)
    digest = value_digest(value)
    return any(
        (a.root, a.repository, a.setting, a.digest) == (where, repository, setting, digest)
        for a in read_approvals(env)
    )


def approve(
    root: Path,
    settings: Iterable[tuple[str, str]],
    now: dt.datetime,
    env: Mapping[str, str] | None = None,
) -> list[Approval]:
    """Record that the vault at `root` may run each (setting, value); a setting's earlier
    approvals for this vault are replaced. Returns the new approvals."""
    where, repository = vault_identity(root)
    made = [
        Approval(where, repository, key, value_digest(value), value, now.isoformat())
        for key, value in settings
    ]
    replaced = {a.setting for a in made}
    kept = [
        a
        for a in read_approvals(env, strict=True)
        if not (a.root == where and a.setting in replaced)
    ]
    _write(root, [*kept, *made], env)
    return made


def revoke(root: Path, env: Mapping[str, str] | None = None) -> list[Approval]:
    """Forget every approval of the vault at `root` (it need not exist any more); the removed."""
    where = str(Path(os.path.realpath(root)))
    approvals = read_approvals(env, strict=True)
    gone = [a for a in approvals if a.root == where]
    if gone:
        _write(root, [a for a in approvals if a.root != where], env)
    return gone


def _write(root: Path, approvals: list[Approval], env: Mapping[str, str] | None) -> None:
    """Replace the store atomically (temporary file, fsync, rename), owner-only."""
    path = store_path(env)
    if inside(path, root):
        raise CardvaultError(
            "your trust records would be kept inside the vault, where its remote could supply "
            f"them: point ${ENV_VAR} elsewhere",
            path,
        )
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    data = {"version": VERSION, "approvals": [asdict(a) for a in approvals]}
    tmp = path.with_name(f".{STORE_NAME}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
