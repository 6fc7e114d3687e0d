"""The embedding model of a benchmark's fresh vault: `--model NAME` sets `[search] model` in the
vault's cardvault.toml (committed), so the real maintain service reads that model and the
constants measured for it (cardvault/maintain/calibration.py)."""

from __future__ import annotations

import re
from pathlib import Path

from cardvault import history
from cardvault.vault.layout import Vault, open_vault_at

_MODEL_LINE = re.compile(r'^model = ".*"$', re.MULTILINE)


def use_model(root: Path, model: str | None) -> Vault:
    """The vault at `root` (just made by `cardvault init`), set to `model` when one is given."""
    if model:
        config = root / "cardvault.toml"
        text = config.read_text(encoding="utf-8")
        config.write_text(_MODEL_LINE.sub(f'model = "{model}"', text, count=1), encoding="utf-8")
        history.commit(open_vault_at(root), f"search model: {model}", None)
        vault = open_vault_at(root)
        if vault.config.model != model:
            raise SystemExit(f"could not set the model of {root} to {model}")
        return vault
    return open_vault_at(root)
